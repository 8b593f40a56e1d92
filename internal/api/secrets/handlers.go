package secrets

import (
	"net/http"
	"strconv"

	"github.com/hubd/hubd/internal/model"
	"github.com/hubd/hubd/internal/repos"
	"github.com/hubd/hubd/internal/rest"
	svc "github.com/hubd/hubd/internal/secrets"
	"github.com/hubd/hubd/internal/wire"
)

// secretJSON is GitHub's actions-secret, and for organization secrets
// organization-actions-secret.
type secretJSON struct {
	Name                    string `json:"name"`
	CreatedAt               string `json:"created_at"`
	UpdatedAt               string `json:"updated_at"`
	Visibility              string `json:"visibility,omitempty"`
	SelectedRepositoriesURL string `json:"selected_repositories_url,omitempty"`
}

func (a *API) render(t *Target, s *model.Secret) secretJSON {
	out := secretJSON{Name: s.Name, CreatedAt: wire.Time(s.CreatedAt), UpdatedAt: wire.Time(s.UpdatedAt)}
	if t.Scope.Kind == model.SecretOrganization {
		out.Visibility = s.Visibility
		if s.Visibility == "selected" {
			out.SelectedRepositoriesURL = a.d.URLs.API + t.Path + "/" + s.Name + "/repositories"
		}
	}
	return out
}

// List is GET .../secrets: a page of the scope's secrets.
func (a *API) List(sc Scope) rest.Handler {
	return func(w http.ResponseWriter, r *http.Request) error {
		t, err := sc(a, r)
		if err != nil {
			return err
		}
		p := rest.ParsePage(r)
		list, total, err := a.svc.List(r.Context(), t.Scope, p.Limit(), p.Offset())
		if err != nil {
			return err
		}
		return a.writeList(w, r, t, p, list, total)
	}
}

func (a *API) writeList(w http.ResponseWriter, r *http.Request, t *Target, p rest.Page, list []*model.Secret, total int) error {
	out := struct {
		TotalCount int          `json:"total_count"`
		Secrets    []secretJSON `json:"secrets"`
	}{TotalCount: total, Secrets: make([]secretJSON, len(list))}
	for i, s := range list {
		out.Secrets[i] = a.render(t, s)
	}
	rest.SetLink(w, r, a.d.URLs.API, p, total)
	return rest.JSON(w, http.StatusOK, out)
}

// PublicKey is GET .../secrets/public-key.
func (a *API) PublicKey(sc Scope) rest.Handler {
	return func(w http.ResponseWriter, r *http.Request) error {
		t, err := sc(a, r)
		if err != nil {
			return err
		}
		k, err := a.svc.PublicKey(r.Context(), t.Scope)
		if err != nil {
			return err
		}
		return rest.JSON(w, http.StatusOK, map[string]string{"key_id": k.ID, "key": k.Key})
	}
}

// Get is GET .../secrets/{secret_name}: the secret without its value.
func (a *API) Get(sc Scope) rest.Handler {
	return func(w http.ResponseWriter, r *http.Request) error {
		t, err := sc(a, r)
		if err != nil {
			return err
		}
		s, err := a.svc.Get(r.Context(), t.Scope, r.PathValue("secret_name"))
		if err != nil {
			return err
		}
		return rest.JSON(w, http.StatusOK, a.render(t, s))
	}
}

// Put is PUT .../secrets/{secret_name}: 201 when it made the secret, 204
// when it replaced its value.
func (a *API) Put(sc Scope) rest.Handler {
	return func(w http.ResponseWriter, r *http.Request) error {
		t, err := sc(a, r)
		if err != nil {
			return err
		}
		var body struct {
			EncryptedValue string   `json:"encrypted_value"`
			KeyID          string   `json:"key_id"`
			Visibility     string   `json:"visibility"`
			RepoIDs        *[]int64 `json:"selected_repository_ids"`
		}
		if err := rest.Decode(r, &body); err != nil {
			return err
		}
		in := svc.Put{KeyID: body.KeyID, EncryptedValue: body.EncryptedValue}
		if t.Scope.Kind == model.SecretOrganization {
			in.Visibility = body.Visibility
			if body.RepoIDs != nil {
				in.RepoIDs = append([]int64{}, *body.RepoIDs...)
			}
		}
		created, err := a.svc.Set(r.Context(), t.Scope, t.Actor, r.PathValue("secret_name"), in)
		if err != nil {
			return err
		}
		if created {
			return rest.JSON(w, http.StatusCreated, struct{}{})
		}
		w.WriteHeader(http.StatusNoContent)
		return nil
	}
}

// Delete is DELETE .../secrets/{secret_name}.
func (a *API) Delete(sc Scope) rest.Handler {
	return func(w http.ResponseWriter, r *http.Request) error {
		t, err := sc(a, r)
		if err != nil {
			return err
		}
		if err := a.svc.Delete(r.Context(), t.Scope, t.Actor, r.PathValue("secret_name")); err != nil {
			return err
		}
		w.WriteHeader(http.StatusNoContent)
		return nil
	}
}

// listForRepo is GET /repos/{owner}/{repo}/{app}/organization-secrets:
// the organization's secrets the repository may use.
func (a *API) listForRepo(app string) rest.Handler {
	sc := repoScope(app)
	return func(w http.ResponseWriter, r *http.Request) error {
		t, err := sc(a, r)
		if err != nil {
			return err
		}
		p := rest.ParsePage(r)
		list, total, err := a.svc.OrgSecretsForRepo(r.Context(), app, t.Repo, p.Limit(), p.Offset())
		if err != nil {
			return err
		}
		// actions-secret items: name and times only.
		return a.writeList(w, r, &Target{Scope: t.Scope}, p, list, total)
	}
}

// selectedRepos is GET /orgs/{org}/{app}/secrets/{secret_name}/repositories.
func (a *API) selectedRepos(sc Scope) rest.Handler {
	return func(w http.ResponseWriter, r *http.Request) error {
		t, err := sc(a, r)
		if err != nil {
			return err
		}
		p := rest.ParsePage(r)
		ctx := r.Context()
		ids, total, err := a.svc.SelectedRepos(ctx, t.Scope, r.PathValue("secret_name"), p.Limit(), p.Offset())
		if err != nil {
			return err
		}
		out, err := repos.MinimalByIDs(ctx, a.d, rest.Caller(r), ids)
		if err != nil {
			return err
		}
		rest.SetLink(w, r, a.d.URLs.API, p, total)
		return rest.JSON(w, http.StatusOK, map[string]any{"total_count": total, "repositories": out})
	}
}

// setRepos is PUT /orgs/{org}/{app}/secrets/{secret_name}/repositories.
func (a *API) setRepos(sc Scope) rest.Handler {
	return func(w http.ResponseWriter, r *http.Request) error {
		t, err := sc(a, r)
		if err != nil {
			return err
		}
		var body struct {
			IDs []int64 `json:"selected_repository_ids"`
		}
		if err := rest.Decode(r, &body); err != nil {
			return err
		}
		if err := a.svc.SetRepos(r.Context(), t.Scope, t.Actor, r.PathValue("secret_name"), append([]int64{}, body.IDs...)); err != nil {
			return err
		}
		w.WriteHeader(http.StatusNoContent)
		return nil
	}
}

// addRepo is PUT (and with remove DELETE)
// /orgs/{org}/{app}/secrets/{secret_name}/repositories/{repository_id}.
func (a *API) addRepo(sc Scope, remove bool) rest.Handler {
	return func(w http.ResponseWriter, r *http.Request) error {
		t, err := sc(a, r)
		if err != nil {
			return err
		}
		id, err := strconv.ParseInt(r.PathValue("repository_id"), 10, 64)
		if err != nil || id <= 0 {
			return model.ErrNotFound
		}
		if err := a.svc.AddRepo(r.Context(), t.Scope, t.Actor, r.PathValue("secret_name"), id, remove); err != nil {
			return err
		}
		w.WriteHeader(http.StatusNoContent)
		return nil
	}
}
