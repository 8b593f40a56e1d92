// Package markdown serves the Markdown category: rendering a document as
// GitHub renders READMEs (markdown mode) or comments (gfm mode, with
// @mentions, issue references and commit SHAs linked for the reader).
package markdown

import (
	"context"
	"errors"
	"io"
	"net/http"
	"strconv"
	"strings"

	"github.com/hubd/hubd/internal/api"
	"github.com/hubd/hubd/internal/authz"
	"github.com/hubd/hubd/internal/autolinks"
	"github.com/hubd/hubd/internal/gitrepo"
	"github.com/hubd/hubd/internal/markdown"
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
		res := &resolver{d: a.d, c: rest.Caller(r), repos: map[string]*model.Repo{}}
		o.Resolver = res
		// The context repository's autolink references link too, when
		// the caller may see it.
		if o.Context != "" {
			repo, err := res.repo(r.Context(), o.Context)
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

// Render renders body_html for a reader: comment marks issue and comment
// bodies (gfm mode), repo is the repository they belong to (nil for none).
func Render(ctx context.Context, d *api.Deps, c *authz.Caller, repo *model.Repo, src string, comment bool) (string, error) {
	o := markdown.Options{Comment: comment, Web: d.URLs.Web}
	if comment {
		o.Resolver = Resolver(d, c)
		if repo != nil {
			o.Context = repo.FullName()
		}
	}
	return markdown.Render(ctx, src, o)
}

// Resolver looks references up for caller c: accounts by login, and
// repositories (with their issues and commits) only when c may see them.
// It remembers repositories for the one document it serves.
func Resolver(d *api.Deps, c *authz.Caller) markdown.Resolver {
	return &resolver{d: d, c: c, repos: map[string]*model.Repo{}}
}

type resolver struct {
	d     *api.Deps
	c     *authz.Caller
	repos map[string]*model.Repo // lower full name; nil = none
}

func (r *resolver) Account(ctx context.Context, login string) (string, bool, bool, error) {
	acc, err := r.d.Store.R().AccountByLogin(ctx, login)
	if errors.Is(err, model.ErrNotFound) {
		return "", false, false, nil
	}
	if err != nil {
		return "", false, false, err
	}
	return acc.Login, acc.IsOrg(), true, nil
}

func (r *resolver) repo(ctx context.Context, full string) (*model.Repo, error) {
	key := strings.ToLower(full)
	if v, ok := r.repos[key]; ok {
		return v, nil
	}
	owner, name, ok := strings.Cut(full, "/")
	if !ok || owner == "" || name == "" || strings.Contains(name, "/") {
		return nil, nil
	}
	v, err := r.d.Store.R().RepoByName(ctx, owner, name, r.c.UserID())
	if errors.Is(err, model.ErrNotFound) {
		r.repos[key] = nil
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var repo *model.Repo
	if authz.CanSee(authz.RepoPermission(r.c, v.Repo, v.Facts)) {
		repo = v.Repo
	}
	r.repos[key] = repo
	return repo, nil
}

func (r *resolver) Repo(ctx context.Context, full string) (string, bool, error) {
	repo, err := r.repo(ctx, full)
	if err != nil || repo == nil {
		return "", false, err
	}
	return repo.FullName(), true, nil
}

func (r *resolver) Issue(ctx context.Context, full string, n int64) (bool, bool, error) {
	repo, err := r.repo(ctx, full)
	if err != nil || repo == nil {
		return false, false, err
	}
	is, err := r.d.Store.R().IssueByNumber(ctx, repo.ID, n)
	if errors.Is(err, model.ErrNotFound) {
		return false, false, nil
	}
	if err != nil {
		return false, false, err
	}
	return is.IsPull, true, nil
}

func (r *resolver) Commit(ctx context.Context, full, sha string) (string, bool, error) {
	repo, err := r.repo(ctx, full)
	if err != nil || repo == nil {
		return "", false, err
	}
	// Open, not GitRepo: a read must not create storage.
	g := r.d.Git.Open(repo.ID)
	if !g.Exists() {
		return "", false, nil
	}
	info, err := g.Info(ctx, sha+"^{commit}")
	if errors.Is(err, gitrepo.ErrNotFound) {
		return "", false, nil
	}
	if err != nil {
		return "", false, err
	}
	return info.OID, true, nil
}
