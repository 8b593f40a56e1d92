package deps

import (
	"log/slog"
	"net/http"

	"github.com/hubd/hubd/internal/autolinks"
	"github.com/hubd/hubd/internal/rest"
	"github.com/hubd/hubd/internal/wire"
)

// Bodies is the body formats a request's media type asks for. Under
// /repos/{owner}/{repo}/..., body_html links the repository's autolink
// references (the path's repository was authorized by the handler; its
// lookup here hits the store's cache). Only html formats read them.
func (d *Deps) Bodies(r *http.Request) wire.BodyFormat {
	f := wire.Bodies(rest.From(r).Media.Param)
	owner, name := r.PathValue("owner"), r.PathValue("repo")
	if !f.HTML || !plausibleName(owner) || !plausibleName(name) {
		return f
	}
	v, err := d.Store.R().RepoByName(r.Context(), owner, name, 0)
	if err != nil {
		return f
	}
	set, err := autolinks.New(d.Store).Set(r.Context(), v.Repo.ID)
	if err != nil {
		slog.Warn("autolinks of a body", "repo_id", v.Repo.ID, "err", err)
		return f
	}
	f.Autolinks = set
	return f
}
