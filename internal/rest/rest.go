// Package rest is hubd's HTTP kit: handlers that return errors, GitHub's
// error JSON, request decoding, pagination with Link headers, media types and
// the per-request information (caller, request id, operation) handlers read.
package rest

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"net/http"
	"os"
	"strconv"
	"sync"
	"syscall"
	"time"

	"github.com/hubd/hubd/internal/authz"
	"github.com/hubd/hubd/internal/model"
)

// Handler serves one operation and returns an error instead of writing one.
type Handler func(w http.ResponseWriter, r *http.Request) error

// Info is what the middleware learns about a request; handlers read it with
// From. It is the one value hubd keeps in a request's context.
type Info struct {
	RequestID   string
	Caller      *authz.Caller
	OperationID string
	DocsURL     string
	Media       Media
	Prefix      string // "/api/v3" when the request came in under it, else ""
	Start       time.Time
	// Writes is whether the operation changes the repository it names
	// (from the route table): such an operation is refused outside the
	// caller's grant (authz.Authorize, asked by api.Deps.Repo).
	Writes bool
}

type infoKey struct{}

// WithInfo attaches info to a context.
func WithInfo(ctx context.Context, i *Info) context.Context {
	return context.WithValue(ctx, infoKey{}, i)
}

// From returns the request's info (never nil).
func From(r *http.Request) *Info {
	if i, ok := r.Context().Value(infoKey{}).(*Info); ok {
		return i
	}
	return &Info{Caller: &authz.Caller{}}
}

// Caller is shorthand for From(r).Caller.
func Caller(r *http.Request) *authz.Caller { return From(r).Caller }

// DefaultDocs is the documentation_url of errors that have no operation.
const DefaultDocs = "https://docs.github.com/rest"

// ErrorBody is GitHub's error JSON.
type ErrorBody struct {
	Message          string `json:"message"`
	Errors           []any  `json:"errors,omitempty"` // FieldError values, or strings
	DocumentationURL string `json:"documentation_url"`
	Status           string `json:"status"`
}

// FieldError is one entry of errors[].
type FieldError struct {
	Resource string `json:"resource,omitempty"`
	Field    string `json:"field,omitempty"`
	Code     string `json:"code"`
	Message  string `json:"message,omitempty"`
	Value    any    `json:"value,omitempty"`
}

// Errors that handlers and middleware return.
var (
	ErrRequiresAuth   = &model.HTTPError{Status: 401, Message: "Requires authentication"}
	ErrBadCredentials = &model.HTTPError{Status: 401, Message: "Bad credentials"}
	ErrNotFound       = &model.HTTPError{Status: 404, Message: "Not Found"}
)

// WriteError renders err as GitHub's error JSON with the right status.
func WriteError(w http.ResponseWriter, r *http.Request, err error) {
	info := From(r)
	docs := info.DocsURL
	if docs == "" {
		docs = DefaultDocs
	}
	body := ErrorBody{DocumentationURL: docs}
	status := http.StatusInternalServerError
	var (
		he *model.HTTPError
		ve *model.ValidationError
		mv *model.Moved
	)
	switch {
	case errors.Is(err, model.ErrNotFound):
		status, body.Message = 404, "Not Found"
	case errors.As(err, &he):
		status, body.Message = he.Status, he.Message
		for _, r := range he.Reasons {
			body.Errors = append(body.Errors, r)
		}
	case errors.As(err, &ve):
		status, body.Message = 422, ve.Message
		if body.Message == "" {
			body.Message = "Validation Failed"
		}
		for _, f := range ve.Errors {
			body.Errors = append(body.Errors, FieldError{Resource: f.Resource, Field: f.Field, Code: f.Code, Message: f.Message, Value: f.Value})
		}
	case errors.As(err, &mv):
		st := mv.Status
		if st == 0 {
			st = http.StatusMovedPermanently
		}
		w.Header().Set("Location", mv.Location)
		JSON(w, st, map[string]string{"message": http.StatusText(st), "url": mv.Location, "documentation_url": docs})
		return
	case ClientGone(r, err):
		// The client hung up (or stalled past a deadline): nobody reads
		// an answer, and it is not the server's fault.
		slog.Debug("client went away", "request_id", info.RequestID, "op", info.OperationID, "method", r.Method, "path", r.URL.Path, "err", err)
		if errors.Is(err, os.ErrDeadlineExceeded) {
			status, body.Message = http.StatusRequestTimeout, "Request Timeout"
			break
		}
		return
	default:
		slog.Error("internal error", "request_id", info.RequestID, "op", info.OperationID, "method", r.Method, "path", r.URL.Path, "err", err)
		body.Message = "Server Error"
	}
	if status == 401 && r.Header.Get("Authorization") == "" && body.Message == "Requires authentication" {
		// git and browsers ask for credentials on this header.
		if w.Header().Get("WWW-Authenticate") == "" && isGitRequest(r) {
			w.Header().Set("WWW-Authenticate", `Basic realm="GitHub"`)
		}
	}
	body.Status = strconv.Itoa(status)
	JSON(w, status, body)
}

// ClientGone reports whether err comes from the client going away rather
// than from the server (code that logs its own failures asks it too): the request's context was canceled (the connection
// closed), the connection broke while writing or reading, or a read or
// write deadline expired on a client too slow to keep up.
func ClientGone(r *http.Request, err error) bool {
	if errors.Is(err, context.Canceled) && r.Context().Err() != nil {
		return true
	}
	return errors.Is(err, syscall.EPIPE) || errors.Is(err, syscall.ECONNRESET) || errors.Is(err, os.ErrDeadlineExceeded) ||
		errors.Is(err, io.ErrUnexpectedEOF) && r.Context().Err() != nil
}

func isGitRequest(r *http.Request) bool {
	return r.URL.Query().Get("service") != "" || r.Header.Get("Git-Protocol") != ""
}

// JSON writes v with status. HTML characters are not escaped, like GitHub.
func JSON(w http.ResponseWriter, status int, v any) error {
	buf := GetBuffer()
	defer PutBuffer(buf)
	enc := json.NewEncoder(buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return err
	}
	h := w.Header()
	h.Set("Content-Type", "application/json; charset=utf-8")
	h.Set("Content-Length", strconv.Itoa(buf.Len()))
	w.WriteHeader(status)
	_, err := w.Write(buf.Bytes())
	return err
}

var buffers = sync.Pool{New: func() any { return new(bytes.Buffer) }}

// GetBuffer lends a buffer for a response body; PutBuffer returns it.
// Reusing them keeps large JSON bodies from growing a new slice each time.
func GetBuffer() *bytes.Buffer { return buffers.Get().(*bytes.Buffer) }

// PutBuffer returns a buffer to the pool (huge ones are dropped).
func PutBuffer(b *bytes.Buffer) {
	if b.Cap() > 4<<20 {
		return
	}
	b.Reset()
	buffers.Put(b)
}

// NoContent answers 204.
func NoContent(w http.ResponseWriter) error {
	w.WriteHeader(http.StatusNoContent)
	return nil
}

// Serve adapts a Handler to net/http, rendering its error.
func Serve(h Handler) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		if err := h(w, r); err != nil {
			WriteError(w, r, err)
		}
	}
}
