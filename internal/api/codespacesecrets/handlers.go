package codespacesecrets

import (
	"encoding/json"
	"net/http"
	"strconv"

	"github.com/hubd/hubd/internal/model"
	"github.com/hubd/hubd/internal/repos"
	"github.com/hubd/hubd/internal/rest"
	sealed "github.com/hubd/hubd/internal/secrets"
	"github.com/hubd/hubd/internal/wire"
)

// secretJSON is GitHub's repo-codespaces-secret, codespaces-org-secret
// (with visibility, and the repositories' URL when selected) and
// codespaces-secret (a user's: always selected, with the URL).
type secretJSON struct {
	Name                    string `json:"name"`
	CreatedAt               string `json:"created_at"`
	UpdatedAt               string `json:"updated_at"`
	Visibility              string `json:"visibility,omitempty"`
	SelectedRepositoriesURL string `json:"selected_repositories_url,omitempty"`
}

func (a *API) render(t *target, s *model.Secret) secretJSON {
	out := secretJSON{Name: s.Name, CreatedAt: wire.Time(s.CreatedAt), UpdatedAt: wire.Time(s.UpdatedAt)}
	if t.Scope.Kind == model.SecretOrganization || t.Scope.Kind == model.SecretUser {
		out.Visibility = s.Visibility
		if s.Visibility == "selected" {
			out.SelectedRepositoriesURL = a.d.URLs.API + t.Path + "/" + s.Name + "/repositories"
		}
	}
	return out
}

// list is GET .../codespaces/secrets.
func (a *API) list(sc scope) rest.Handler {
	return func(w http.ResponseWriter, r *http.Request) error {
		t, err := sc(a, r)
		if err != nil {
			return err
		}
		p := rest.ParsePage(r)
		list, total, err := a.svc.Secrets.List(r.Context(), t.Scope, p.Limit(), p.Offset())
		if err != nil {
			return err
		}
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
}

// publicKey is GET .../codespaces/secrets/public-key.
func (a *API) publicKey(sc scope) rest.Handler {
	return func(w http.ResponseWriter, r *http.Request) error {
		t, err := sc(a, r)
		if err != nil {
			return err
		}
		k, err := a.svc.Secrets.PublicKey(r.Context(), t.Scope)
		if err != nil {
			return err
		}
		return rest.JSON(w, http.StatusOK, map[string]string{"key_id": k.ID, "key": k.Key})
	}
}

// get is GET .../codespaces/secrets/{secret_name}: the secret without its
// value.
func (a *API) get(sc scope) rest.Handler {
	return func(w http.ResponseWriter, r *http.Request) error {
		t, err := sc(a, r)
		if err != nil {
			return err
		}
		s, err := a.svc.Secrets.Get(r.Context(), t.Scope, r.PathValue("secret_name"))
		if err != nil {
			return err
		}
		return rest.JSON(w, http.StatusOK, a.render(t, s))
	}
}

// repoIDs reads selected_repository_ids, whose items a user secret's
// request may also send as strings of digits.
func repoIDs(raw []json.RawMessage) ([]int64, error) {
	out := make([]int64, 0, len(raw))
	for _, m := range raw {
		var n int64
		if err := json.Unmarshal(m, &n); err != nil {
			var s string
			if json.Unmarshal(m, &s) != nil {
				return nil, model.Invalid("Secret", "selected_repository_ids", "invalid")
			}
			if n, err = strconv.ParseInt(s, 10, 64); err != nil || n <= 0 {
				return nil, model.Unprocessable("Repository id " + strconv.Quote(s) + " is not a repository id.")
			}
		}
		out = append(out, n)
	}
	return out, nil
}

// put is PUT .../codespaces/secrets/{secret_name}: 201 when it made the
// secret, 204 when it replaced its value.
func (a *API) put(sc scope) rest.Handler {
	return func(w http.ResponseWriter, r *http.Request) error {
		t, err := sc(a, r)
		if err != nil {
			return err
		}
		var body struct {
			EncryptedValue string             `json:"encrypted_value"`
			KeyID          string             `json:"key_id"`
			Visibility     string             `json:"visibility"`
			RepoIDs        *[]json.RawMessage `json:"selected_repository_ids"`
		}
		if err := rest.Decode(r, &body); err != nil {
			return err
		}
		in := sealed.Put{KeyID: body.KeyID, EncryptedValue: body.EncryptedValue}
		if body.RepoIDs != nil && t.Scope.Kind != model.SecretRepository {
			if in.RepoIDs, err = repoIDs(*body.RepoIDs); err != nil {
				return err
			}
		}
		ctx := r.Context()
		var created bool
		switch t.Scope.Kind {
		case model.SecretUser:
			created, err = a.svc.SetUserSecret(ctx, t.Caller, r.PathValue("secret_name"), in)
		case model.SecretOrganization:
			in.Visibility = body.Visibility
			created, err = a.svc.Secrets.Set(ctx, t.Scope, t.actor(), r.PathValue("secret_name"), in)
		default:
			created, err = a.svc.Secrets.Set(ctx, t.Scope, t.actor(), r.PathValue("secret_name"), in)
		}
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

// del is DELETE .../codespaces/secrets/{secret_name}.
func (a *API) del(sc scope) rest.Handler {
	return func(w http.ResponseWriter, r *http.Request) error {
		t, err := sc(a, r)
		if err != nil {
			return err
		}
		if err := a.svc.Secrets.Delete(r.Context(), t.Scope, t.actor(), r.PathValue("secret_name")); err != nil {
			return err
		}
		w.WriteHeader(http.StatusNoContent)
		return nil
	}
}

// selectedRepos is GET .../codespaces/secrets/{secret_name}/repositories:
// the repositories selected for the secret that the caller sees.
func (a *API) selectedRepos(sc scope) rest.Handler {
	return func(w http.ResponseWriter, r *http.Request) error {
		t, err := sc(a, r)
		if err != nil {
			return err
		}
		p := rest.ParsePage(r)
		ctx := r.Context()
		ids, total, err := a.svc.Secrets.SelectedRepos(ctx, t.Scope, r.PathValue("secret_name"), p.Limit(), p.Offset())
		if err != nil {
			return err
		}
		out, err := repos.MinimalByIDs(ctx, a.d, t.Caller, ids)
		if err != nil {
			return err
		}
		rest.SetLink(w, r, a.d.URLs.API, p, total)
		return rest.JSON(w, http.StatusOK, map[string]any{"total_count": total, "repositories": out})
	}
}

// setRepos is PUT .../codespaces/secrets/{secret_name}/repositories.
func (a *API) setRepos(sc scope) rest.Handler {
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
		ids := append([]int64{}, body.IDs...)
		if t.Scope.Kind == model.SecretUser {
			err = a.svc.SetUserSecretRepos(r.Context(), t.Caller, r.PathValue("secret_name"), ids)
		} else {
			err = a.svc.Secrets.SetRepos(r.Context(), t.Scope, t.actor(), r.PathValue("secret_name"), ids)
		}
		if err != nil {
			return err
		}
		w.WriteHeader(http.StatusNoContent)
		return nil
	}
}

// addRepo is PUT (with remove, DELETE)
// .../codespaces/secrets/{secret_name}/repositories/{repository_id}.
func (a *API) addRepo(sc scope, remove bool) rest.Handler {
	return func(w http.ResponseWriter, r *http.Request) error {
		t, err := sc(a, r)
		if err != nil {
			return err
		}
		id, err := strconv.ParseInt(r.PathValue("repository_id"), 10, 64)
		if err != nil || id <= 0 {
			return model.ErrNotFound
		}
		if t.Scope.Kind == model.SecretUser {
			err = a.svc.AddUserSecretRepo(r.Context(), t.Caller, r.PathValue("secret_name"), id, remove)
		} else {
			err = a.svc.Secrets.AddRepo(r.Context(), t.Scope, t.actor(), r.PathValue("secret_name"), id, remove)
		}
		if err != nil {
			return err
		}
		w.WriteHeader(http.StatusNoContent)
		return nil
	}
}
