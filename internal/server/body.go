package server

import (
	"bytes"
	"errors"
	"io"
	"net/http"

	"github.com/hubd/hubd/internal/model"
	"github.com/hubd/hubd/internal/reqschema"
	"github.com/hubd/hubd/internal/reqschema/ojson"
	"github.com/hubd/hubd/internal/rest"
)

// handle runs a route's handler with its request body checked against the
// operation's schema in GitHub's description (reqschema), answering as
// GitHub does:
//
//   - 413 for a body over the server's limit, 400 "Problems parsing JSON"
//     for malformed JSON and 400 "Body should be a JSON object" for another
//     JSON value where only an object fits: at once, before the handler,
//     as GitHub rejects such bodies before it looks at the request.
//   - 422 "Invalid request.\n\n..." when the schema rejects the body: when
//     the handler first reads the body. GitHub checks the caller (401, 403,
//     404 for a hidden repository) before it validates, and handlers read
//     the body only after those checks, so a refusal they return without
//     reading it stands; once they read it, they get the 422 and nothing
//     has been written.
//
// A valid body reaches the handler byte for byte, so rest.Decode works as
// before. Operations without an application/json body schema (text bodies,
// uploads, hubd's extension routes) are not checked; an empty body is {}
// unless the description says the body is optional.
func handle(rt *rest.Route, w http.ResponseWriter, r *http.Request) error {
	held, err := checkBody(r, rt)
	if err != nil {
		return err
	}
	err = rt.Handler(w, r)
	if held != nil && held.read {
		// Whatever the handler made of the failed read, the answer is the
		// schema's.
		return held.err
	}
	return err
}

// heldBody stands in for a body that failed validation: reading it yields
// the 422.
type heldBody struct {
	err  error
	read bool
}

func (b *heldBody) Read([]byte) (int, error) { b.read = true; return 0, b.err }
func (b *heldBody) Close() error             { return nil }

// checkBody reads and validates the body. It returns an error to answer at
// once, or a heldBody (already installed as r.Body) when the schema
// rejects the body.
func checkBody(r *http.Request, rt *rest.Route) (*heldBody, error) {
	if rt.Extension || r.Body == nil {
		return nil, nil
	}
	switch r.Method {
	case http.MethodPost, http.MethodPut, http.MethodPatch, http.MethodDelete:
	default:
		return nil, nil
	}
	body := reqschema.For(rt.OperationID)
	if body == nil {
		return nil, nil
	}
	data, err := io.ReadAll(r.Body)
	r.Body = io.NopCloser(bytes.NewReader(data))
	if err != nil {
		var mbe *http.MaxBytesError
		if errors.As(err, &mbe) {
			return nil, &model.HTTPError{Status: http.StatusRequestEntityTooLarge, Message: "Payload Too Large"}
		}
		return nil, model.BadRequest("Problems parsing JSON")
	}
	trimmed := bytes.TrimSpace(data)
	if !body.Required && string(trimmed) == "null" {
		// An optional body sent as null is no body (go-github sends null
		// for nil options, and GitHub takes it).
		r.Body = io.NopCloser(bytes.NewReader(nil))
		return nil, nil
	}
	if len(trimmed) == 0 {
		if !body.Required {
			return nil, nil
		}
		trimmed = []byte("{}")
	}
	v, err := ojson.Parse(trimmed)
	if err != nil {
		return nil, model.BadRequest("Problems parsing JSON")
	}
	if _, isObject := v.(*ojson.Object); !isObject && !body.AcceptsNonObject() {
		return nil, model.BadRequest("Body should be a JSON object")
	}
	if errs := body.Validate(v); errs != nil {
		held := &heldBody{err: model.Unprocessable(reqschema.Message(errs))}
		r.Body = held
		return held, nil
	}
	return nil, nil
}
