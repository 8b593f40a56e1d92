// Package markdown serves the Markdown category: rendering a document as
// GitHub renders READMEs (markdown mode) or comments (gfm mode, with
// @mentions, issue references and commit SHAs linked for the reader).
package markdown

import (
	"errors"
	"io"
	"net/http"
	"strconv"

	"github.com/hubd/hubd/internal/api"
	"github.com/hubd/hubd/internal/autolinks"
	"github.com/hubd/hubd/internal/markdown"
	"github.com/hubd/hubd/internal/markdown/linked"
	"github.com/hubd/hubd/internal/model"
	"github.com/hubd/hubd/internal/rest"
)

// API is the markdown package.
type API struct{ d *api.Deps }

// New makes the package.
func New(d *api.Deps) *API { return &API{d: d} }

// Routes is the package's route table.
func (a *API) Routes() []rest.Route {
	return []rest.Route{
		{Method: "POST", Pattern: "/markdown", OperationID: "markdown/render", Handler: a.render},
		{Method: "POST", Pattern: "/markdown/raw", OperationID: "markdown/render-raw", Handler: a.renderRaw},
	}
}

// maxText is the most the API renders: "Markdown content must be 400 KB
// or less", GitHub documents, and answers larger text with errTooLarge.
// Rendering is linear, so this bounds each request's time and memory.
const maxText = 400 << 10

func errTooLarge() error {
	return &model.ValidationError{
		Message: "This API renders Markdown text up to 400 KB in size. The requested text is too large to render via the API.",
		Errors:  []model.FieldError{{Resource: "Markdown", Field: "data", Code: "too_large"}},
	}
}

type renderBody struct {
	Text    rest.Opt[string] `json:"text"`
	Mode    rest.Opt[string] `json:"mode"`
	Context rest.Opt[string] `json:"context"`
}

// POST /markdown
func (a *API) render(w http.ResponseWriter, r *http.Request) error {
	var in renderBody
	if err := rest.Decode(r, &in); err != nil {
		return err
	}
	text, ok := in.Text.Get()
	if !ok {
		return model.Unprocessable("Invalid request.\n\n\"text\" wasn't supplied.")
	}
	if len(text) > maxText {
		return errTooLarge()
	}
	mode, _ := in.Mode.Get()
	switch mode {
	case "", "markdown", "gfm":
	default:
		return model.Unprocessable("Invalid request.\n\nFor 'properties/mode', " + strconv.Quote(mode) + " is not a member of [\"markdown\", \"gfm\"].")
	}
	o := markdown.Options{Web: a.d.URLs.Web}
	if mode == "gfm" {
		o.Comment = true
		o.Context, _ = in.Context.Get()
		res := linked.Resolver(a.d, rest.Caller(r))
		o.Resolver = res
		// The context repository's autolink references link too, when
		// the caller may see it.
		if o.Context != "" {
			repo, err := linked.VisibleRepo(r.Context(), res, o.Context)
			if err != nil {
				return err
			}
			if repo != nil {
				if o.Autolinks, err = autolinks.New(a.d.Store).Set(r.Context(), repo.ID); err != nil {
					return err
				}
			}
		}
	}
	return a.write(w, r, text, o)
}

// POST /markdown/raw: the body is the document, rendered in markdown mode.
func (a *API) renderRaw(w http.ResponseWriter, r *http.Request) error {
	data, err := io.ReadAll(r.Body)
	if err != nil {
		var mbe *http.MaxBytesError
		if errors.As(err, &mbe) {
			return &model.HTTPError{Status: http.StatusRequestEntityTooLarge, Message: "Payload Too Large"}
		}
		return err
	}
	if len(data) > maxText {
		return errTooLarge()
	}
	return a.write(w, r, string(data), markdown.Options{Web: a.d.URLs.Web})
}

func (a *API) write(w http.ResponseWriter, r *http.Request, text string, o markdown.Options) error {
	out, err := markdown.Render(r.Context(), text, o)
	if err != nil {
		return err
	}
	h := w.Header()
	h.Set("Content-Type", "text/html;charset=utf-8")
	h.Set("Content-Length", strconv.Itoa(len(out)))
	w.WriteHeader(http.StatusOK)
	_, err = io.WriteString(w, out)
	return err
}
