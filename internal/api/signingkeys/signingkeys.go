// Package signingkeys is the REST adapter of users' GPG keys and SSH
// signing keys (users/gpg-keys, users/ssh-signing-keys): it parses
// requests, calls the signatures service and writes GitHub's shapes.
package signingkeys

import (
	"context"
	"net/http"
	"strconv"

	"github.com/hubd/hubd/internal/api"
	"github.com/hubd/hubd/internal/authz"
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

// family is what the two kinds of keys differ in: the service's methods,
// the wire converter and the id parameter; the handlers are the same.
type family[K, W any] struct {
	a      *API
	param  string
	list   func(ctx context.Context, c *authz.Caller, limit, offset int) ([]K, int, error)
	listOf func(ctx context.Context, login string, limit, offset int) ([]K, int, error)
	get    func(ctx context.Context, c *authz.Caller, id int64) (K, error)
	del    func(ctx context.Context, c *authz.Caller, id int64) error
	one    func(K) W
}

// Routes is the package's route table.
func (a *API) Routes() []rest.Route {
	gpg := family[*model.GPGKey, wire.GPGKey]{a: a, param: "gpg_key_id", list: a.svc.ListGPGKeys, listOf: a.svc.ListUserGPGKeys,
		get: a.svc.GetGPGKey, del: a.svc.DeleteGPGKey, one: wire.ToGPGKey}
	ssh := family[*model.SSHSigningKey, wire.SSHSigningKey]{a: a, param: "ssh_signing_key_id", list: a.svc.ListSSHSigningKeys,
		listOf: a.svc.ListUserSSHSigningKeys, get: a.svc.GetSSHSigningKey, del: a.svc.DeleteSSHSigningKey, one: wire.ToSSHSigningKey}
	gr, gw, ga := []string{"read:gpg_key"}, []string{"write:gpg_key"}, []string{"admin:gpg_key"}
	sr, sw, sa := []string{"read:ssh_signing_key"}, []string{"write:ssh_signing_key"}, []string{"admin:ssh_signing_key"}
	return []rest.Route{
		{Method: "GET", Pattern: "/user/gpg_keys", OperationID: "users/list-gpg-keys-for-authenticated-user", Handler: gpg.listMine, Scopes: gr},
		{Method: "POST", Pattern: "/user/gpg_keys", OperationID: "users/create-gpg-key-for-authenticated-user", Handler: a.createGPG, Scopes: gw},
		{Method: "GET", Pattern: "/user/gpg_keys/{gpg_key_id}", OperationID: "users/get-gpg-key-for-authenticated-user", Handler: gpg.getMine, Scopes: gr},
		{Method: "DELETE", Pattern: "/user/gpg_keys/{gpg_key_id}", OperationID: "users/delete-gpg-key-for-authenticated-user", Handler: gpg.deleteMine, Scopes: ga},
		{Method: "GET", Pattern: "/users/{username}/gpg_keys", OperationID: "users/list-gpg-keys-for-user", Handler: gpg.listUser},

		{Method: "GET", Pattern: "/user/ssh_signing_keys", OperationID: "users/list-ssh-signing-keys-for-authenticated-user", Handler: ssh.listMine, Scopes: sr},
		{Method: "POST", Pattern: "/user/ssh_signing_keys", OperationID: "users/create-ssh-signing-key-for-authenticated-user", Handler: a.createSSH, Scopes: sw},
		{Method: "GET", Pattern: "/user/ssh_signing_keys/{ssh_signing_key_id}", OperationID: "users/get-ssh-signing-key-for-authenticated-user", Handler: ssh.getMine, Scopes: sr},
		{Method: "DELETE", Pattern: "/user/ssh_signing_keys/{ssh_signing_key_id}", OperationID: "users/delete-ssh-signing-key-for-authenticated-user", Handler: ssh.deleteMine, Scopes: sa},
		{Method: "GET", Pattern: "/users/{username}/ssh_signing_keys", OperationID: "users/list-ssh-signing-keys-for-user", Handler: ssh.listUser},
	}
}

func (f family[K, W]) page(w http.ResponseWriter, r *http.Request, load func(limit, offset int) ([]K, int, error)) error {
	p := rest.ParsePage(r)
	list, total, err := load(p.Limit(), p.Offset())
	if err != nil {
		return err
	}
	out := make([]W, 0, len(list))
	for _, k := range list {
		out = append(out, f.one(k))
	}
	rest.SetLink(w, r, f.a.d.URLs.API, p, total)
	return rest.JSON(w, http.StatusOK, out)
}

// GET /user/gpg_keys, GET /user/ssh_signing_keys
func (f family[K, W]) listMine(w http.ResponseWriter, r *http.Request) error {
	c, err := api.RequireUser(r)
	if err != nil {
		return err
	}
	return f.page(w, r, func(limit, offset int) ([]K, int, error) { return f.list(r.Context(), c, limit, offset) })
}

// GET /users/{username}/gpg_keys, GET /users/{username}/ssh_signing_keys
func (f family[K, W]) listUser(w http.ResponseWriter, r *http.Request) error {
	return f.page(w, r, func(limit, offset int) ([]K, int, error) {
		return f.listOf(r.Context(), r.PathValue("username"), limit, offset)
	})
}

// mine is the caller and the key id of the path.
func (f family[K, W]) mine(r *http.Request) (*authz.Caller, int64, error) {
	c, err := api.RequireUser(r)
	if err != nil {
		return nil, 0, err
	}
	id, err := strconv.ParseInt(r.PathValue(f.param), 10, 64)
	if err != nil || id <= 0 {
		return nil, 0, model.ErrNotFound
	}
	return c, id, nil
}

// GET /user/gpg_keys/{gpg_key_id}, GET /user/ssh_signing_keys/{ssh_signing_key_id}
func (f family[K, W]) getMine(w http.ResponseWriter, r *http.Request) error {
	c, id, err := f.mine(r)
	if err != nil {
		return err
	}
	k, err := f.get(r.Context(), c, id)
	if err != nil {
		return err
	}
	return rest.JSON(w, http.StatusOK, f.one(k))
}

// DELETE /user/gpg_keys/{gpg_key_id}, DELETE /user/ssh_signing_keys/{ssh_signing_key_id}
func (f family[K, W]) deleteMine(w http.ResponseWriter, r *http.Request) error {
	c, id, err := f.mine(r)
	if err != nil {
		return err
	}
	if err := f.del(r.Context(), c, id); err != nil {
		return err
	}
	return rest.NoContent(w)
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
	if err := svc.MayAddGPGKey(c); err != nil {
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
	if err := svc.MayAddSSHSigningKey(c); err != nil {
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
