package gitdb

import (
	"errors"
	"net/http"
	"strings"

	"github.com/hubd/hubd/internal/model"
	"github.com/hubd/hubd/internal/refs"
	"github.com/hubd/hubd/internal/rest"
	"github.com/hubd/hubd/internal/wire"
)

// GET /repos/{owner}/{repo}/git/matching-refs/{ref}: every ref whose name
// starts with refs/{ref} (heads/feat matches heads/feature-a), all refs for
// an empty {ref}. GitHub does not paginate this list.
func (a *API) listMatchingRefs(w http.ResponseWriter, r *http.Request) error {
	repo, g, err := a.repoFor(r, false)
	if err != nil {
		return err
	}
	prefix := "refs/" + r.PathValue("ref")
	out := []wire.GitRef{}
	if strings.ContainsAny(prefix, "*?[\\\x00\n") {
		return rest.JSON(w, http.StatusOK, out)
	}
	// for-each-ref matches whole path components: list the directory and
	// compare the names as strings.
	refs, err := g.Refs(r.Context(), prefix[:strings.LastIndexByte(prefix, '/')+1])
	if err != nil {
		return err
	}
	for _, ref := range refs {
		if strings.HasPrefix(ref.Name, prefix) {
			out = append(out, a.d.URLs.ToGitRef(repo, ref.Name, ref.Type, ref.OID))
		}
	}
	return rest.JSON(w, http.StatusOK, out)
}

// GET /repos/{owner}/{repo}/git/refs and GET /repos/{owner}/{repo}/git/refs/{ref}:
// the legacy forms. Without {ref} every ref; with one, the ref itself when
// refs/{ref} exists, else the refs whose names start with refs/{ref} (so
// "heads" lists the branches), 404 when none does. Lists are paginated
// with Link, as GitHub paginated them.
func (a *API) listRefs(w http.ResponseWriter, r *http.Request) error {
	repo, g, err := a.repoFor(r, false)
	if err != nil {
		return err
	}
	ctx := r.Context()
	sub := r.PathValue("ref")
	if strings.ContainsAny(sub, "*?[\\\x00\n") || strings.HasPrefix(sub, "/") {
		return model.ErrNotFound
	}
	prefix := "refs/" + sub
	if sub != "" {
		info, err := refs.Target(ctx, g, prefix)
		if err == nil {
			return rest.JSON(w, http.StatusOK, a.d.URLs.ToGitRef(repo, prefix, info.Type, info.OID))
		}
		if !errors.Is(err, model.ErrNotFound) {
			return err
		}
	}
	refs, err := g.Refs(ctx, prefix[:strings.LastIndexByte(prefix, '/')+1])
	if err != nil {
		return err
	}
	matched := refs[:0]
	for _, ref := range refs {
		if strings.HasPrefix(ref.Name, prefix) {
			matched = append(matched, ref)
		}
	}
	if sub != "" && len(matched) == 0 {
		return model.ErrNotFound
	}
	p := rest.ParsePage(r)
	page := matched[min(p.Offset(), len(matched)):min(p.Offset()+p.Limit(), len(matched))]
	out := make([]wire.GitRef, 0, len(page))
	for _, ref := range page {
		out = append(out, a.d.URLs.ToGitRef(repo, ref.Name, ref.Type, ref.OID))
	}
	rest.SetLink(w, r, a.d.URLs.API, p, len(matched))
	return rest.JSON(w, http.StatusOK, out)
}

// GET /repos/{owner}/{repo}/git/ref/{ref}
func (a *API) getRef(w http.ResponseWriter, r *http.Request) error {
	repo, g, err := a.repoFor(r, false)
	if err != nil {
		return err
	}
	name := "refs/" + r.PathValue("ref")
	info, err := refs.Target(r.Context(), g, name)
	if err != nil {
		return err
	}
	return rest.JSON(w, http.StatusOK, a.d.URLs.ToGitRef(repo, name, info.Type, info.OID))
}

type createRefBody struct {
	Ref rest.Opt[string] `json:"ref"`
	SHA rest.Opt[string] `json:"sha"`
}

// POST /repos/{owner}/{repo}/git/refs
func (a *API) createRef(w http.ResponseWriter, r *http.Request) error {
	repo, _, err := a.repoFor(r, true)
	if err != nil {
		return err
	}
	var in createRefBody
	if err := rest.Decode(r, &in); err != nil {
		return err
	}
	name, err := requiredString(in.Ref, "ref")
	if err != nil {
		return err
	}
	sha, err := requiredString(in.SHA, "sha")
	if err != nil {
		return err
	}
	target, err := a.refs.Create(r.Context(), rest.Caller(r), repo, name, sha)
	if err != nil {
		return err
	}
	out := a.d.URLs.ToGitRef(repo, name, target.Type, target.OID)
	w.Header().Set("Location", out.URL)
	return rest.JSON(w, http.StatusCreated, out)
}

type updateRefBody struct {
	SHA   rest.Opt[string] `json:"sha"`
	Force rest.Opt[bool]   `json:"force"`
}

// PATCH /repos/{owner}/{repo}/git/refs/{ref}: a fast-forward unless force;
// the ref moves only if it still holds the value the check was made
// against, so of two concurrent updates one wins and the other is
// re-checked against the winner.
func (a *API) updateRef(w http.ResponseWriter, r *http.Request) error {
	repo, _, err := a.repoFor(r, true)
	if err != nil {
		return err
	}
	var in updateRefBody
	if err := rest.Decode(r, &in); err != nil {
		return err
	}
	sha, err := requiredString(in.SHA, "sha")
	if err != nil {
		return err
	}
	if in.Force.Null {
		return model.Unprocessable("Invalid request.\n\nFor 'properties/force', nil is not a boolean.")
	}
	target, err := a.refs.Update(r.Context(), rest.Caller(r), repo, "refs/"+r.PathValue("ref"), sha, in.Force.Value)
	if err != nil {
		return err
	}
	return rest.JSON(w, http.StatusOK, a.d.URLs.ToGitRef(repo, "refs/"+r.PathValue("ref"), target.Type, target.OID))
}

// DELETE /repos/{owner}/{repo}/git/refs/{ref}: never the default branch.
func (a *API) deleteRef(w http.ResponseWriter, r *http.Request) error {
	repo, _, err := a.repoFor(r, true)
	if err != nil {
		return err
	}
	if err := a.refs.Delete(r.Context(), rest.Caller(r), repo, "refs/"+r.PathValue("ref")); err != nil {
		return err
	}
	w.WriteHeader(http.StatusNoContent)
	return nil
}
