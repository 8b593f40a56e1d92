package gitdb

import (
	"context"
	"errors"
	"log/slog"
	"net/http"
	"strings"

	"github.com/hubd/hubd/internal/api"
	"github.com/hubd/hubd/internal/gitrepo"
	"github.com/hubd/hubd/internal/model"
	"github.com/hubd/hubd/internal/rest"
	"github.com/hubd/hubd/internal/wire"
)

// refAttempts bounds the compare-and-swap retries of a ref change that lost
// a race (each retry re-reads the ref and re-checks the update).
const refAttempts = 16

// refTarget is the object a full ref name points to (not peeled):
// model.ErrNotFound when there is no such ref.
func refTarget(ctx context.Context, g *gitrepo.Repo, name string) (gitrepo.ObjectInfo, error) {
	if !gitrepo.ValidRefName(name) {
		return gitrepo.ObjectInfo{}, model.ErrNotFound
	}
	info, err := g.Info(ctx, name)
	if errors.Is(err, gitrepo.ErrNotFound) {
		return info, model.ErrNotFound
	}
	return info, err
}

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
		info, err := refTarget(ctx, g, prefix)
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
	info, err := refTarget(r.Context(), g, name)
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
	repo, g, err := a.repoFor(r, true)
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
	if !strings.HasPrefix(name, "refs/") || strings.Count(name, "/") < 2 {
		return model.Unprocessable("Reference name must start with 'refs/' and contain at least three slash-separated components.")
	}
	if !gitrepo.ValidRefName(name) {
		return model.Unprocessable(name + " is not a valid ref name.")
	}
	ctx := r.Context()
	target, err := refObject(ctx, g, name, sha)
	if err != nil {
		return err
	}
	if err := a.ruled(r, repo, name, gitrepo.ZeroOID, target.OID); err != nil {
		return err
	}
	err = g.UpdateRef(ctx, name, target.OID, gitrepo.ZeroOID)
	if errors.Is(err, gitrepo.ErrRefConflict) {
		return model.Unprocessable("Reference already exists")
	}
	if err != nil {
		return err
	}
	a.recordRef(r, repo, name, gitrepo.ZeroOID, target.OID)
	out := a.d.URLs.ToGitRef(repo, name, target.Type, target.OID)
	w.Header().Set("Location", out.URL)
	return rest.JSON(w, http.StatusCreated, out)
}

// refObject finds the object a ref is to point to: 422 "Object does not
// exist" when it is not there; a branch must point to a commit.
func refObject(ctx context.Context, g *gitrepo.Repo, name, sha string) (gitrepo.ObjectInfo, error) {
	info, err := object(ctx, g, sha, "")
	if errors.Is(err, model.ErrNotFound) {
		return info, model.Unprocessable("Object does not exist")
	}
	if err != nil {
		return info, err
	}
	if strings.HasPrefix(name, "refs/heads/") && info.Type != "commit" {
		return info, model.Unprocessable("Object is not a commit: a branch must point to a commit")
	}
	return info, nil
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
	repo, g, err := a.repoFor(r, true)
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
	force := in.Force.Value
	ctx := r.Context()
	name := "refs/" + r.PathValue("ref")
	if _, err := refTarget(ctx, g, name); errors.Is(err, model.ErrNotFound) {
		return model.Unprocessable("Reference does not exist")
	} else if err != nil {
		return err
	}
	target, err := refObject(ctx, g, name, sha)
	if err != nil {
		return err
	}
	for attempt := 1; ; attempt++ {
		cur, err := refTarget(ctx, g, name)
		if errors.Is(err, model.ErrNotFound) {
			return model.Unprocessable("Reference does not exist")
		}
		if err != nil {
			return err
		}
		if cur.OID == target.OID {
			break // already there
		}
		if !force {
			ff, err := fastForward(ctx, g, cur.OID, target.OID)
			if err != nil {
				return err
			}
			if !ff {
				return model.Unprocessable("Update is not a fast forward")
			}
		}
		if err := a.ruled(r, repo, name, cur.OID, target.OID); err != nil {
			return err
		}
		err = g.UpdateRef(ctx, name, target.OID, cur.OID)
		if errors.Is(err, gitrepo.ErrRefConflict) && attempt < refAttempts {
			continue
		}
		if errors.Is(err, gitrepo.ErrRefConflict) {
			return model.Unprocessable("Reference cannot be updated")
		}
		if err != nil {
			return err
		}
		a.recordRef(r, repo, name, cur.OID, target.OID)
		break
	}
	return rest.JSON(w, http.StatusOK, a.d.URLs.ToGitRef(repo, name, target.Type, target.OID))
}

// fastForward reports whether moving a ref from old to new keeps old's
// history: both lead to commits and old's commit is an ancestor of new's.
func fastForward(ctx context.Context, g *gitrepo.Repo, old, new string) (bool, error) {
	infos, err := g.InfoMany(ctx, []string{old + "^{commit}", new + "^{commit}"})
	if err != nil {
		return false, err
	}
	if infos[0].Type != "commit" || infos[1].Type != "commit" {
		return false, nil
	}
	return g.IsAncestor(ctx, infos[0].OID, infos[1].OID)
}

// DELETE /repos/{owner}/{repo}/git/refs/{ref}: never the default branch.
func (a *API) deleteRef(w http.ResponseWriter, r *http.Request) error {
	repo, g, err := a.repoFor(r, true)
	if err != nil {
		return err
	}
	ctx := r.Context()
	name := "refs/" + r.PathValue("ref")
	for attempt := 1; ; attempt++ {
		cur, err := refTarget(ctx, g, name)
		if errors.Is(err, model.ErrNotFound) {
			return model.Unprocessable("Reference does not exist")
		}
		if err != nil {
			return err
		}
		if name == "refs/heads/"+repo.DefaultBranch {
			return model.Unprocessable("Cannot delete the default branch")
		}
		if err := a.ruled(r, repo, name, cur.OID, gitrepo.ZeroOID); err != nil {
			return err
		}
		err = g.DeleteRef(ctx, name, cur.OID)
		if errors.Is(err, gitrepo.ErrRefConflict) && attempt < refAttempts {
			continue
		}
		if errors.Is(err, gitrepo.ErrRefConflict) {
			return model.Unprocessable("Reference cannot be deleted")
		}
		if err != nil {
			return err
		}
		a.recordRef(r, repo, name, cur.OID, gitrepo.ZeroOID)
		break
	}
	w.WriteHeader(http.StatusNoContent)
	return nil
}

// recordRef records a ref change made through the API as a push. The ref
// has moved already, so a failure here is logged rather than reported: the
// client must not retry a change that happened.
func (a *API) recordRef(r *http.Request, repo *model.Repo, name, old, new string) {
	err := a.d.RecordPush(r.Context(), repo, rest.Caller(r).UserID(), []api.RefUpdate{{Ref: name, Old: old, New: new}}, false)
	if err != nil {
		slog.Error("record ref update", "request_id", rest.From(r).RequestID, "repo", repo.ID, "ref", name, "err", err)
	}
}
