package commits

import (
	"context"
	"errors"
	"net/http"
	"net/url"
	"sort"
	"strings"

	"github.com/hubd/hubd/internal/api"
	"github.com/hubd/hubd/internal/authz"
	"github.com/hubd/hubd/internal/gitrepo"
	"github.com/hubd/hubd/internal/model"
	"github.com/hubd/hubd/internal/rest"
	"github.com/hubd/hubd/internal/store"
	"github.com/hubd/hubd/internal/wire"
)

var errNoBranch = &model.HTTPError{Status: http.StatusNotFound, Message: "Branch not found"}

// GET /repos/{owner}/{repo}/branches: by name, with their protection;
// protected=true or false keeps only the protected or unprotected ones.
func (a *API) listBranches(w http.ResponseWriter, r *http.Request) error {
	repo, _, err := a.d.Repo(r, authz.Read)
	if err != nil {
		return err
	}
	p := rest.ParsePage(r)
	ctx := r.Context()
	var heads []gitrepo.Ref
	if g, ok := a.gitFor(repo); ok {
		if heads, err = g.Refs(ctx, "refs/heads/"); err != nil {
			return err
		}
	}
	if f := r.URL.Query().Get("protected"); f == "true" || f == "false" {
		names, err := a.d.Store.R().ProtectedBranchNames(ctx, repo.ID)
		if err != nil {
			return err
		}
		protected := make(map[string]bool, len(names))
		for _, n := range names {
			protected[n] = true
		}
		kept := heads[:0]
		for _, h := range heads {
			if protected[strings.TrimPrefix(h.Name, "refs/heads/")] == (f == "true") {
				kept = append(kept, h)
			}
		}
		heads = kept
	}
	sort.Slice(heads, func(i, j int) bool { return heads[i].Name < heads[j].Name })
	lo, hi := min(p.Offset(), len(heads)), min(p.Offset()+p.Limit(), len(heads))
	names := make([]string, 0, hi-lo)
	for _, h := range heads[lo:hi] {
		names = append(names, strings.TrimPrefix(h.Name, "refs/heads/"))
	}
	prot, err := a.d.Store.R().BranchProtections(ctx, repo.ID, names)
	if err != nil {
		return err
	}
	out := make([]wire.ShortBranch, 0, hi-lo)
	for i, h := range heads[lo:hi] {
		out = append(out, a.d.URLs.ToShortBranch(repo, names[i], h.OID, prot[names[i]]))
	}
	rest.SetLink(w, r, a.d.URLs.API, p, len(heads))
	return rest.JSON(w, http.StatusOK, out)
}

// GET /repos/{owner}/{repo}/branches/{branch}
func (a *API) getBranch(w http.ResponseWriter, r *http.Request) error {
	repo, _, err := a.d.Repo(r, authz.Read)
	if err != nil {
		return err
	}
	name := r.PathValue("branch")
	g, ok := a.gitFor(repo)
	if !ok {
		return errNoBranch
	}
	sha, err := branchHead(r.Context(), g, name)
	if errors.Is(err, errNoBranch) {
		// A renamed branch answers at its old name with a 301, as on GitHub.
		if to, rerr := a.d.Store.R().BranchRedirect(r.Context(), repo.ID, name); rerr == nil {
			base := a.d.URLs.Web
			if rest.From(r).Prefix != "" {
				base = a.d.URLs.API
			}
			return &model.Moved{Location: base + "/repos/" + repo.FullName() + "/branches/" + (&url.URL{Path: to}).EscapedPath(), Status: http.StatusMovedPermanently}
		}
	}
	if err != nil {
		return err
	}
	b, err := a.branch(r.Context(), repo, g, name, sha)
	if err != nil {
		return err
	}
	return rest.JSON(w, http.StatusOK, b)
}

// branchHead is the commit a branch points to (errNoBranch when there is
// no such branch).
func branchHead(ctx context.Context, g *gitrepo.Repo, name string) (string, error) {
	if !gitrepo.ValidBranchName(name) {
		return "", errNoBranch
	}
	info, err := g.Info(ctx, "refs/heads/"+name)
	if errors.Is(err, gitrepo.ErrNotFound) || (err == nil && info.Type != "commit") {
		return "", errNoBranch
	}
	return info.OID, err
}

func (a *API) branch(ctx context.Context, repo *model.Repo, g *gitrepo.Repo, name, sha string) (wire.BranchWithProtection, error) {
	c, err := g.Commit(ctx, sha)
	if err != nil {
		return wire.BranchWithProtection{}, err
	}
	commits, err := a.toCommits(ctx, repo, []*gitrepo.Commit{c})
	if err != nil {
		return wire.BranchWithProtection{}, err
	}
	p, err := a.d.Store.R().BranchProtection(ctx, repo.ID, name)
	if err != nil {
		return wire.BranchWithProtection{}, err
	}
	return a.d.URLs.ToBranch(repo, name, commits[0], p), nil
}

type renameBody struct {
	NewName rest.Opt[string] `json:"new_name"`
}

// POST /repos/{owner}/{repo}/branches/{branch}/rename: writers rename
// branches, admins the default branch (which then becomes the new name, in
// the repository and its HEAD).
func (a *API) renameBranch(w http.ResponseWriter, r *http.Request) error {
	repo, perm, err := a.d.WritableRepo(r, authz.Write)
	if err != nil {
		return err
	}
	var in renameBody
	if err := rest.Decode(r, &in); err != nil {
		return err
	}
	newName, ok := in.NewName.Get()
	if !ok {
		return model.Unprocessable("Invalid request.\n\n\"new_name\" wasn't supplied.")
	}
	ctx := r.Context()
	old := r.PathValue("branch")
	g, exists := a.gitFor(repo)
	if !exists {
		return errNoBranch
	}
	sha, err := branchHead(ctx, g, old)
	if err != nil {
		return err
	}
	isDefault := old == repo.DefaultBranch
	if isDefault && perm < authz.Admin {
		return api.NeedPermission(authz.Admin)
	}
	newName = strings.TrimPrefix(strings.TrimSpace(newName), "refs/heads/")
	if !gitrepo.ValidBranchName(newName) {
		return &model.ValidationError{Errors: []model.FieldError{{Resource: "Branch", Field: "new_name", Code: "invalid", Value: newName}}}
	}
	if newName == old {
		b, err := a.branch(ctx, repo, g, old, sha)
		if err != nil {
			return err
		}
		return rest.JSON(w, http.StatusCreated, b)
	}
	taken := func() error {
		return &model.ValidationError{Errors: []model.FieldError{{Resource: "Branch", Field: "new_name", Code: "already_exists", Value: newName}}}
	}
	if _, err := g.Info(ctx, "refs/heads/"+newName); err == nil {
		return taken()
	} else if !errors.Is(err, gitrepo.ErrNotFound) {
		return err
	}
	// Create the new ref, then delete the old one if it has not moved;
	// when it has (a push won the race), undo and report the conflict.
	if err := g.UpdateRef(ctx, "refs/heads/"+newName, sha, gitrepo.ZeroOID); err != nil {
		if errors.Is(err, gitrepo.ErrRefConflict) {
			return taken() // created meanwhile, or a file/directory clash (a/b vs a)
		}
		return err
	}
	if err := g.DeleteRef(ctx, "refs/heads/"+old, sha); err != nil {
		if uerr := g.DeleteRef(ctx, "refs/heads/"+newName, sha); uerr != nil {
			return errors.Join(err, uerr)
		}
		if errors.Is(err, gitrepo.ErrRefConflict) {
			return model.Conflict("Branch " + old + " was updated during the rename; try again.")
		}
		return err
	}
	c := rest.Caller(r)
	after := *repo
	err = a.d.Store.Tx(ctx, func(tx store.Q) error {
		if err := tx.RecordBranchRename(ctx, repo.ID, old, newName); err != nil {
			return err
		}
		_, err := tx.RenameBranchProtection(ctx, repo.ID, old, newName) // protection follows the branch
		return err
	})
	if err != nil {
		return err
	}
	if isDefault {
		if err := g.SetHead(ctx, newName); err != nil {
			return err
		}
		err := a.d.Store.Tx(ctx, func(tx store.Q) error {
			changed, err := tx.SetDefaultBranch(ctx, repo.ID, old, newName)
			if err != nil || !changed {
				return err
			}
			return tx.AppendEvent(ctx, "repository.edited", c.UserID(), repo.ID, orgID(repo), map[string]any{
				"action": "edited", "repository_id": repo.ID, "full_name": repo.FullName(),
				"changes": map[string]any{"default_branch": map[string]any{"from": old}},
			})
		})
		if err != nil {
			return err
		}
		after.DefaultBranch = newName
	}
	err = a.d.RecordPush(ctx, &after, c.UserID(), []api.RefUpdate{
		{Ref: "refs/heads/" + newName, Old: gitrepo.ZeroOID, New: sha},
		{Ref: "refs/heads/" + old, Old: sha, New: gitrepo.ZeroOID},
	}, false)
	if err != nil {
		return err
	}
	b, err := a.branch(ctx, &after, g, newName, sha)
	if err != nil {
		return err
	}
	return rest.JSON(w, http.StatusCreated, b)
}

func orgID(r *model.Repo) int64 {
	if r.Owner != nil && r.Owner.IsOrg() {
		return r.Owner.ID
	}
	return 0
}
