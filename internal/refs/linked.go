package refs

import (
	"context"
	"log/slog"
	"strconv"
	"strings"
	"unicode"

	"github.com/hubd/hubd/internal/authz"
	"github.com/hubd/hubd/internal/deps"
	"github.com/hubd/hubd/internal/gitrepo"
	"github.com/hubd/hubd/internal/model"
	"github.com/hubd/hubd/internal/store"
)

// Branches linked to issues: GraphQL's createLinkedBranch creates a branch
// and links it to an issue (gh issue develop), deleteLinkedBranch removes
// the link (not the branch), and deleting the branch removes its links.

// BranchName is the name GitHub gives a linked branch when none is asked
// for: the issue's number and its title in lower case, each run of other
// characters than letters and digits a hyphen ("12-fix-the-login-page").
func BranchName(is *model.Issue) string {
	var b strings.Builder
	b.WriteString(strconv.FormatInt(is.Number, 10))
	hyphen := true
	for _, r := range strings.ToLower(is.Title) {
		if unicode.IsLetter(r) || unicode.IsDigit(r) {
			if hyphen {
				b.WriteByte('-')
			}
			b.WriteRune(r)
			hyphen = false
		} else {
			hyphen = true
		}
		if b.Len() >= 200 {
			break
		}
	}
	return b.String()
}

// Link creates the branch name (BranchName of the issue when empty) at
// commit oid in repo, where the caller has perm, and links it to the
// issue. The branch exists before the link is written; a link that fails
// to be written leaves the branch, as a push would.
func (s *Service) Link(ctx context.Context, c *authz.Caller, is *model.Issue, repo *model.Repo, perm authz.Permission, name, oid string) (*model.LinkedBranch, error) {
	if is.IsPull {
		return nil, model.ErrNotFound
	}
	if name == "" {
		name = BranchName(is)
	}
	full := "refs/heads/" + strings.TrimPrefix(name, "refs/heads/")
	if _, err := s.CreateFor(ctx, c, repo, perm, "CreateLinkedBranch", full, oid); err != nil {
		return nil, err
	}
	var lb *model.LinkedBranch
	err := s.d.Store.Tx(ctx, func(tx store.Q) error {
		var err error
		if lb, err = tx.LinkBranch(ctx, is.ID, repo.ID, full, c.UserID()); err != nil {
			return err
		}
		return tx.AppendEvent(ctx, "linked_branch.created", c.UserID(), is.RepoID, 0,
			map[string]any{"issue_id": is.ID, "repository_id": repo.ID, "ref": full, "linked_branch_id": lb.ID})
	})
	return lb, err
}

// Unlink removes a link (the branch stays) for a caller with write access
// (perm) to the issue's repository.
func (s *Service) Unlink(ctx context.Context, c *authz.Caller, lb *model.LinkedBranch, issueRepo *model.Repo, perm authz.Permission) error {
	if perm < authz.Write {
		return noPermission(c, "DeleteLinkedBranch")
	}
	return s.d.Store.Tx(ctx, func(tx store.Q) error {
		gone, err := tx.UnlinkBranch(ctx, lb.ID)
		if err != nil || !gone {
			return err
		}
		return tx.AppendEvent(ctx, "linked_branch.deleted", c.UserID(), issueRepo.ID, 0,
			map[string]any{"issue_id": lb.IssueID, "repository_id": lb.RepoID, "ref": lb.Ref, "linked_branch_id": lb.ID})
	})
}

// pushed removes the links of the branches a push deleted.
func (s *Service) pushed(ctx context.Context, repo *model.Repo, _ int64, updates []deps.RefUpdate) {
	var gone []string
	for _, u := range updates {
		if u.New == gitrepo.ZeroOID && strings.HasPrefix(u.Ref, "refs/heads/") {
			gone = append(gone, u.Ref)
		}
	}
	if len(gone) == 0 {
		return
	}
	if err := s.d.Store.Tx(ctx, func(tx store.Q) error { return tx.UnlinkRefs(ctx, repo.ID, gone) }); err != nil {
		slog.WarnContext(ctx, "unlink deleted branches", "repo_id", repo.ID, "err", err)
	}
}

// noPermission is GitHub's FORBIDDEN for a mutation the viewer may not run.
func noPermission(c *authz.Caller, mutation string) error {
	who := "The viewer"
	if c.User != nil {
		who = c.User.Login
	}
	return model.Forbidden(who + " does not have the correct permissions to execute `" + mutation + "`")
}
