package protection

import (
	"net/http"

	"github.com/hubd/hubd/internal/authz"
	"github.com/hubd/hubd/internal/rest"
	"github.com/hubd/hubd/internal/wire"
)

// GET /repos/{owner}/{repo}/codeowners/errors
func (a *API) codeownersErrors(w http.ResponseWriter, r *http.Request) error {
	repo, _, err := a.d.Repo(r, authz.Read)
	if err != nil {
		return err
	}
	list, err := a.owners.Errors(r.Context(), repo, r.URL.Query().Get("ref"))
	if err != nil {
		return err
	}
	return rest.JSON(w, http.StatusOK, wire.ToCodeownersErrors(list))
}
