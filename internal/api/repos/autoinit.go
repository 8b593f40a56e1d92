package repos

import (
	"context"
	"net/url"
	"strconv"
	"time"

	"github.com/hubd/hubd/internal/api"
	"github.com/hubd/hubd/internal/gitrepo"
	"github.com/hubd/hubd/internal/model"
)

// initialCommit gives a new repository GitHub's auto_init commit: a README
// with the repository's name (and description) on the default branch,
// authored by the creator.
func (a *API) initialCommit(ctx context.Context, repo *model.Repo, user *model.Account) error {
	g, err := a.d.GitRepo(ctx, repo)
	if err != nil {
		return err
	}
	readme := "# " + repo.Name + "\n"
	if repo.Description != "" {
		readme += repo.Description + "\n"
	}
	blob, err := g.WriteObject(ctx, "blob", []byte(readme))
	if err != nil {
		return err
	}
	treeData, err := gitrepo.EncodeTree([]gitrepo.TreeEntry{{Mode: "100644", Name: "README.md", OID: blob}})
	if err != nil {
		return err
	}
	tree, err := g.WriteObject(ctx, "tree", treeData)
	if err != nil {
		return err
	}
	sig := a.signature(user, time.Now())
	commit, err := g.WriteObject(ctx, "commit", gitrepo.EncodeCommit(&gitrepo.Commit{Tree: tree, Author: sig, Committer: sig, Message: "Initial commit"}))
	if err != nil {
		return err
	}
	ref := "refs/heads/" + repo.DefaultBranch
	if err := g.UpdateRef(ctx, ref, commit, gitrepo.ZeroOID); err != nil {
		return err
	}
	return a.d.RecordPush(ctx, repo, user.ID, []api.RefUpdate{{Ref: ref, Old: gitrepo.ZeroOID, New: commit}}, false)
}

// signature is a user's git identity: their name (or login) and public email,
// or a no-reply address of this instance when they have none.
func (a *API) signature(u *model.Account, when time.Time) gitrepo.Signature {
	name := u.Name
	if name == "" {
		name = u.Login
	}
	email := u.Email
	if email == "" {
		host := "users.noreply.localhost"
		if p, err := url.Parse(a.d.URLs.Web); err == nil && p.Hostname() != "" {
			host = "users.noreply." + p.Hostname()
		}
		email = strconv.FormatInt(u.ID, 10) + "+" + u.Login + "@" + host
	}
	return gitrepo.Signature{Name: name, Email: email, When: when.UTC()}
}
