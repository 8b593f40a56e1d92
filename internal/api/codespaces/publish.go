package codespaces

import (
	"net/http"

	"github.com/hubd/hubd/internal/authz"
	"github.com/hubd/hubd/internal/model"
	"github.com/hubd/hubd/internal/repos"
	"github.com/hubd/hubd/internal/rest"
	"github.com/hubd/hubd/internal/wire"
)

// codespaceWithRepo is components/schemas/codespace-with-full-repository.
type codespaceWithRepo struct {
	wire.Codespace
	Repository wire.FullRepository `json:"repository"`
}

// POST /user/codespaces/{codespace_name}/publish
func (a *API) publish(w http.ResponseWriter, r *http.Request) error {
	c, cs, err := a.mine(r, true)
	if err != nil {
		return err
	}
	if a.repos == nil {
		return model.ErrNotFound
	}
	var b struct {
		Name    string `json:"name"`
		Private bool   `json:"private"`
	}
	if err := rest.Decode(r, &b); err != nil {
		return err
	}
	if err := a.svc.Publishable(r.Context(), cs); err != nil {
		return err
	}
	if b.Name == "" {
		b.Name = cs.Name
	}
	var in repos.CreateInput
	in.Name = rest.Opt[string]{Set: true, Value: b.Name}
	in.Private = rest.Opt[bool]{Set: true, Value: b.Private}
	repo, err := a.repos.Create(r.Context(), c, c.User, in)
	if err != nil {
		return err
	}
	if err := a.svc.Publish(r.Context(), cs, repo); err != nil {
		return err
	}
	out, err := a.render(r.Context(), []*model.Codespace{cs})
	if err != nil {
		return err
	}
	full, err := repos.Full(r.Context(), a.d, c, repo, authz.Admin)
	if err != nil {
		return err
	}
	return rest.JSON(w, http.StatusCreated, codespaceWithRepo{Codespace: out[0], Repository: full})
}
