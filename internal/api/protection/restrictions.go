package protection

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"

	"github.com/hubd/hubd/internal/model"
	"github.com/hubd/hubd/internal/rest"
)

// GET .../protection/restrictions
func (a *API) getRestrictions(w http.ResponseWriter, r *http.Request) error {
	repo, perm, branch, err := a.repo(r)
	if err != nil {
		return err
	}
	p, err := a.svc.Restrictions(r.Context(), repo, perm, branch)
	if err != nil {
		return err
	}
	actors, err := a.svc.Actors(r.Context(), p)
	if err != nil {
		return err
	}
	return rest.JSON(w, http.StatusOK, a.d.URLs.ToBranchRestrictionPolicy(repo, p, actors))
}

// DELETE .../protection/restrictions
func (a *API) removeRestrictions(w http.ResponseWriter, r *http.Request) error {
	repo, perm, branch, err := a.repo(r)
	if err != nil {
		return err
	}
	if err := a.svc.RemoveRestrictions(r.Context(), repo, perm, rest.Caller(r).UserID(), branch); err != nil {
		return err
	}
	return rest.NoContent(w)
}

// restrictionNames is the body of the users, teams and apps operations:
// {"<kind>": [...]}, or a bare array of names (which the spec also
// allows for teams, and clients send for all three).
func restrictionNames(r *http.Request, kind string) ([]string, error) {
	data, err := io.ReadAll(r.Body)
	if err != nil {
		return nil, model.BadRequest("Problems parsing JSON")
	}
	var list []string
	if trimmed := bytes.TrimSpace(data); len(trimmed) > 0 && trimmed[0] == '[' {
		if err := json.Unmarshal(trimmed, &list); err != nil {
			return nil, model.Invalid("ProtectedBranch", kind, "invalid")
		}
		return list, nil
	}
	r.Body = io.NopCloser(bytes.NewReader(data))
	var obj map[string]rest.Opt[[]string]
	if err := rest.Decode(r, &obj); err != nil {
		return nil, err
	}
	v, ok := obj[kind].Get()
	if !ok {
		return nil, model.Invalid("ProtectedBranch", kind, "missing_field")
	}
	return v, nil
}

// GET, POST, PUT and DELETE .../protection/restrictions/{users,teams,apps}:
// op "" reads the list.
func (a *API) restrictionList(kind, op string) rest.Handler {
	return func(w http.ResponseWriter, r *http.Request) error {
		repo, perm, branch, err := a.repo(r)
		if err != nil {
			return err
		}
		var p *model.BranchProtection
		if op == "" {
			p, err = a.svc.Restrictions(r.Context(), repo, perm, branch)
		} else {
			var names []string
			if names, err = restrictionNames(r, kind); err != nil {
				return err
			}
			p, err = a.svc.EditRestrictions(r.Context(), repo, perm, rest.Caller(r).UserID(), branch, kind, op, names)
		}
		if err != nil {
			return err
		}
		actors, err := a.svc.Actors(r.Context(), p)
		if err != nil {
			return err
		}
		l := a.d.URLs.ToActorLists(p.Push, actors)
		switch kind {
		case "users":
			return rest.JSON(w, http.StatusOK, l.Users)
		case "teams":
			return rest.JSON(w, http.StatusOK, l.Teams)
		}
		return rest.JSON(w, http.StatusOK, l.Apps)
	}
}
