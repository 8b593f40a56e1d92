// Package signingkeys is the REST adapter of users' GPG keys and SSH
// signing keys (users/gpg-keys, users/ssh-signing-keys): it parses
// requests, calls the signatures service and writes GitHub's shapes.
package signingkeys

import (
	"net/http"
	"strconv"

	"github.com/hubd/hubd/internal/api"
	"github.com/hubd/hubd/internal/model"
	"github.com/hubd/hubd/internal/rest"
	svc "github.com/hubd/hubd/internal/signatures"
	"github.com/hubd/hubd/internal/wire"
)

// API is the package.
type API struct {
	d   *api.Deps
	svc *svc.Service
}

// New makes the package; the service is the one commits are verified with
// (api.Deps.Signatures), so that a key change is seen at once.
func New(d *api.Deps) *API { return &API{d: d, svc: d.Signatures} }

// Routes is the package's route table.
func (a *API) Routes() []rest.Route {
	gr, gw, ga := []string{"read:gpg_key"}, []string{"write:gpg_key"}, []string{"admin:gpg_key"}
	sr, sw, sa := []string{"read:ssh_signing_key"}, []string{"write:ssh_signing_key"}, []string{"admin:ssh_signing_key"}
	return []rest.Route{
		{Method: "GET", Pattern: "/user/gpg_keys", OperationID: "users/list-gpg-keys-for-authenticated-user", Handler: a.listGPG, Scopes: gr},
		{Method: "POST", Pattern: "/user/gpg_keys", OperationID: "users/create-gpg-key-for-authenticated-user", Handler: a.createGPG, Scopes: gw},
		{Method: "GET", Pattern: "/user/gpg_keys/{gpg_key_id}", OperationID: "users/get-gpg-key-for-authenticated-user", Handler: a.getGPG, Scopes: gr},
		{Method: "DELETE", Pattern: "/user/gpg_keys/{gpg_key_id}", OperationID: "users/delete-gpg-key-for-authenticated-user", Handler: a.deleteGPG, Scopes: ga},
		{Method: "GET", Pattern: "/users/{username}/gpg_keys", OperationID: "users/list-gpg-keys-for-user", Handler: a.listUserGPG},

		{Method: "GET", Pattern: "/user/ssh_signing_keys", OperationID: "users/list-ssh-signing-keys-for-authenticated-user", Handler: a.listSSH, Scopes: sr},
		{Method: "POST", Pattern: "/user/ssh_signing_keys", OperationID: "users/create-ssh-signing-key-for-authenticated-user", Handler: a.createSSH, Scopes: sw},
		{Method: "GET", Pattern: "/user/ssh_signing_keys/{ssh_signing_key_id}", OperationID: "users/get-ssh-signing-key-for-authenticated-user", Handler: a.getSSH, Scopes: sr},
		{Method: "DELETE", Pattern: "/user/ssh_signing_keys/{ssh_signing_key_id}", OperationID: "users/delete-ssh-signing-key-for-authenticated-user", Handler: a.deleteSSH, Scopes: sa},
		{Method: "GET", Pattern: "/users/{username}/ssh_signing_keys", OperationID: "users/list-ssh-signing-keys-for-user", Handler: a.listUserSSH},
	}
}

func pathID(r *http.Request, name string) (int64, error) {
	id, err := strconv.ParseInt(r.PathValue(name), 10, 64)
	if err != nil || id <= 0 {
		return 0, model.ErrNotFound
	}
	return id, nil
}

// GET /user/gpg_keys
func (a *API) listGPG(w http.ResponseWriter, r *http.Request) error {
	c, err := api.RequireUser(r)
	if err != nil {
		return err
	}
	p := rest.ParsePage(r)
	list, total, err := a.svc.ListGPGKeys(r.Context(), c, p.Limit(), p.Offset())
	if err != nil {
		return err
	}
	rest.SetLink(w, r, a.d.URLs.API, p, total)
	return rest.JSON(w, http.StatusOK, wire.ToGPGKeys(list))
}

// GET /users/{username}/gpg_keys
func (a *API) listUserGPG(w http.ResponseWriter, r *http.Request) error {
	p := rest.ParsePage(r)
	list, total, err := a.svc.ListUserGPGKeys(r.Context(), r.PathValue("username"), p.Limit(), p.Offset())
	if err != nil {
		return err
	}
	rest.SetLink(w, r, a.d.URLs.API, p, total)
	return rest.JSON(w, http.StatusOK, wire.ToGPGKeys(list))
}

type gpgBody struct {
	Name             rest.Opt[string] `json:"name"`
	ArmoredPublicKey rest.Opt[string] `json:"armored_public_key"`
}

// POST /user/gpg_keys
func (a *API) createGPG(w http.ResponseWriter, r *http.Request) error {
	c, err := api.RequireUser(r)
	if err != nil {
		return err
	}
	var in gpgBody
	if err := rest.Decode(r, &in); err != nil {
		return err
	}
	armored, ok := in.ArmoredPublicKey.Get()
	if !ok {
		return model.Invalid("GpgKey", "armored_public_key", "missing_field")
	}
	k, err := a.svc.CreateGPGKey(r.Context(), c, in.Name.Value, armored)
	if err != nil {
		return err
	}
	return rest.JSON(w, http.StatusCreated, wire.ToGPGKey(k))
}

// GET /user/gpg_keys/{gpg_key_id}
func (a *API) getGPG(w http.ResponseWriter, r *http.Request) error {
	c, err := api.RequireUser(r)
	if err != nil {
		return err
	}
	id, err := pathID(r, "gpg_key_id")
	if err != nil {
		return err
	}
	k, err := a.svc.GetGPGKey(r.Context(), c, id)
	if err != nil {
		return err
	}
	return rest.JSON(w, http.StatusOK, wire.ToGPGKey(k))
}

// DELETE /user/gpg_keys/{gpg_key_id}
func (a *API) deleteGPG(w http.ResponseWriter, r *http.Request) error {
	c, err := api.RequireUser(r)
	if err != nil {
		return err
	}
	id, err := pathID(r, "gpg_key_id")
	if err != nil {
		return err
	}
	if err := a.svc.DeleteGPGKey(r.Context(), c, id); err != nil {
		return err
	}
	return rest.NoContent(w)
}

// GET /user/ssh_signing_keys
func (a *API) listSSH(w http.ResponseWriter, r *http.Request) error {
	c, err := api.RequireUser(r)
	if err != nil {
		return err
	}
	p := rest.ParsePage(r)
	list, total, err := a.svc.ListSSHSigningKeys(r.Context(), c, p.Limit(), p.Offset())
	if err != nil {
		return err
	}
	rest.SetLink(w, r, a.d.URLs.API, p, total)
	return rest.JSON(w, http.StatusOK, wire.ToSSHSigningKeys(list))
}

// GET /users/{username}/ssh_signing_keys
func (a *API) listUserSSH(w http.ResponseWriter, r *http.Request) error {
	p := rest.ParsePage(r)
	list, total, err := a.svc.ListUserSSHSigningKeys(r.Context(), r.PathValue("username"), p.Limit(), p.Offset())
	if err != nil {
		return err
	}
	rest.SetLink(w, r, a.d.URLs.API, p, total)
	return rest.JSON(w, http.StatusOK, wire.ToSSHSigningKeys(list))
}

type sshBody struct {
	Title rest.Opt[string] `json:"title"`
	Key   rest.Opt[string] `json:"key"`
}

// POST /user/ssh_signing_keys
func (a *API) createSSH(w http.ResponseWriter, r *http.Request) error {
	c, err := api.RequireUser(r)
	if err != nil {
		return err
	}
	var in sshBody
	if err := rest.Decode(r, &in); err != nil {
		return err
	}
	key, ok := in.Key.Get()
	if !ok {
		return model.Invalid("SshSigningKey", "key", "missing_field")
	}
	k, err := a.svc.CreateSSHSigningKey(r.Context(), c, in.Title.Value, key)
	if err != nil {
		return err
	}
	return rest.JSON(w, http.StatusCreated, wire.ToSSHSigningKey(k))
}

// GET /user/ssh_signing_keys/{ssh_signing_key_id}
func (a *API) getSSH(w http.ResponseWriter, r *http.Request) error {
	c, err := api.RequireUser(r)
	if err != nil {
		return err
	}
	id, err := pathID(r, "ssh_signing_key_id")
	if err != nil {
		return err
	}
	k, err := a.svc.GetSSHSigningKey(r.Context(), c, id)
	if err != nil {
		return err
	}
	return rest.JSON(w, http.StatusOK, wire.ToSSHSigningKey(k))
}

// DELETE /user/ssh_signing_keys/{ssh_signing_key_id}
func (a *API) deleteSSH(w http.ResponseWriter, r *http.Request) error {
	c, err := api.RequireUser(r)
	if err != nil {
		return err
	}
	id, err := pathID(r, "ssh_signing_key_id")
	if err != nil {
		return err
	}
	if err := a.svc.DeleteSSHSigningKey(r.Context(), c, id); err != nil {
		return err
	}
	return rest.NoContent(w)
}
