package releases

import (
	"net/http"

	"github.com/hubd/hubd/internal/api"
	"github.com/hubd/hubd/internal/authz"
	"github.com/hubd/hubd/internal/model"
	svc "github.com/hubd/hubd/internal/releases"
)

// reactions are the handlers of a release's reactions (reacting needs read
// access and a user whose token may write to public repositories).
func (a *API) reactions() api.Reactions[svc.Access] {
	return api.Reactions[svc.Access]{D: a.d, Svc: a.svc, Open: a.openRelease,
		Repo: func(x svc.Access) *model.Repo { return x.Repo }}
}

// openRelease finds the repository and the {release_id} of a reactions
// request.
func (a *API) openRelease(r *http.Request, write bool) (svc.Access, int64, error) {
	x, err := a.access(r, authz.Read)
	if err != nil {
		return x, 0, err
	}
	if write {
		c, err := api.RequireUser(r)
		if err != nil {
			return x, 0, err
		}
		if err := api.RequireScope(c, "public_repo"); err != nil {
			return x, 0, err
		}
	}
	id, err := pathID(r, "release_id")
	return x, id, err
}
