package repos

import (
	"context"
	"strconv"
	"time"

	"github.com/hubd/hubd/internal/deps"
	"github.com/hubd/hubd/internal/gitrepo"
	"github.com/hubd/hubd/internal/licenses"
	"github.com/hubd/hubd/internal/model"
)

// initFiles are the files of a new repository's initial commit: the README
// of auto_init, and the gitignore_template and license_template texts.
type initFiles struct {
	readme    bool
	gitignore string
	license   *licenses.License
}

func (f initFiles) any() bool { return f.readme || f.gitignore != "" || f.license != nil }

// templates reads the template names of a create body, refusing unknown
// ones as GitHub does (gitignore names are case sensitive, license keys
// are not).
func (f *initFiles) templates(in CreateInput, e *errs) {
	if v, ok := in.GitignoreTemplate.Get(); ok && v != "" {
		if src, found := licenses.Gitignore(v); found {
			f.gitignore = src
		} else {
			e.custom("gitignore_template", "gitignore_template is an unknown gitignore template.")
		}
	}
	if v, ok := in.LicenseTemplate.Get(); ok && v != "" {
		if l, found := licenses.Find(v); found {
			f.license = l
		} else {
			e.custom("license_template", "license_template is an unknown license template.")
		}
	}
}

// initialCommit gives a new repository GitHub's initial commit on the
// default branch, authored by the creator: with auto_init a README with the
// repository's name (and description), with templates a .gitignore and a
// LICENSE whose [year] and [fullname] name this year and the owner.
func (a *Service) initialCommit(ctx context.Context, repo *model.Repo, user *model.Account, f initFiles) error {
	g, err := a.d.GitRepo(ctx, repo)
	if err != nil {
		return err
	}
	now := time.Now()
	var entries []gitrepo.TreeEntry
	add := func(name, content string) error {
		oid, err := g.WriteObject(ctx, "blob", []byte(content))
		if err == nil {
			entries = append(entries, gitrepo.TreeEntry{Mode: "100644", Name: name, OID: oid})
		}
		return err
	}
	if f.readme {
		readme := "# " + repo.Name + "\n"
		if repo.Description != "" {
			readme += repo.Description + "\n"
		}
		if err := add("README.md", readme); err != nil {
			return err
		}
	}
	if f.gitignore != "" {
		if err := add(".gitignore", f.gitignore); err != nil {
			return err
		}
	}
	if f.license != nil {
		holder := repo.Owner.Name
		if holder == "" {
			holder = repo.Owner.Login
		}
		if err := add("LICENSE", f.license.Fill(strconv.Itoa(now.Year()), holder)); err != nil {
			return err
		}
	}
	treeData, err := gitrepo.EncodeTree(entries)
	if err != nil {
		return err
	}
	tree, err := g.WriteObject(ctx, "tree", treeData)
	if err != nil {
		return err
	}
	sig := a.signature(user, now)
	commit, err := g.WriteObject(ctx, "commit", gitrepo.EncodeCommit(&gitrepo.Commit{Tree: tree, Author: sig, Committer: sig, Message: "Initial commit"}))
	if err != nil {
		return err
	}
	ref := "refs/heads/" + repo.DefaultBranch
	if err := g.UpdateRef(ctx, ref, commit, gitrepo.ZeroOID); err != nil {
		return err
	}
	return a.d.RecordPush(ctx, repo, user.ID, []deps.RefUpdate{{Ref: ref, Old: gitrepo.ZeroOID, New: commit}}, false)
}

// signature is a user's git identity: their name (or login) and their
// email or this instance's no-reply address.
func (a *Service) signature(u *model.Account, when time.Time) gitrepo.Signature {
	name := u.Name
	if name == "" {
		name = u.Login
	}
	return gitrepo.Signature{Name: name, Email: a.d.URLs.CommitEmail(u), When: when.UTC()}
}
