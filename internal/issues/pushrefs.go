package issues

import (
	"context"
	"log/slog"
	"strconv"
	"strings"

	"github.com/hubd/hubd/internal/deps"
	"github.com/hubd/hubd/internal/gitrepo"
	"github.com/hubd/hubd/internal/model"
	"github.com/hubd/hubd/internal/store"
)

// maxPushedCommits bounds the commits of one ref update read for references
// (a push of a long new history references nothing from its old commits).
const maxPushedCommits = 100

// referencePushed records a "referenced" event on every issue of the
// repository that a newly pushed commit's message names (#N), with the
// commit id, as GitHub does. It runs after the push was recorded; a failure
// is logged, never undoes the push.
func (a *Service) referencePushed(ctx context.Context, repo *model.Repo, actorID int64, updates []deps.RefUpdate) {
	if err := a.referenceCommits(ctx, repo, actorID, updates); err != nil {
		slog.Warn("referenced events of a push", "repo_id", repo.ID, "err", err)
	}
}

func (a *Service) referenceCommits(ctx context.Context, repo *model.Repo, actorID int64, updates []deps.RefUpdate) error {
	g, err := a.d.GitRepo(ctx, repo)
	if err != nil {
		return err
	}
	type ref struct {
		commit string
		number int64
	}
	var refs []ref
	seen := map[string]bool{}
	for _, u := range updates {
		branch, ok := strings.CutPrefix(u.Ref, "refs/heads/")
		if !ok || u.New == gitrepo.ZeroOID {
			continue
		}
		// The commits this update brought: old..new, or for a new branch
		// those on no other branch.
		args := []string{"rev-list", "--max-count=" + strconv.Itoa(maxPushedCommits), u.New}
		if u.Old != gitrepo.ZeroOID {
			args = append(args, "^"+u.Old)
		} else {
			args = append(args, "--not", "--exclude="+branch, "--branches")
		}
		out, err := g.Git(ctx, nil, args...)
		if err != nil {
			return err
		}
		for _, sha := range strings.Fields(string(out)) {
			if seen[sha] {
				continue
			}
			seen[sha] = true
			_, data, err := g.Read(ctx, sha, 1<<20)
			if err != nil {
				continue
			}
			c, err := gitrepo.ParseCommit(sha, data)
			if err != nil {
				continue
			}
			for _, r := range references(c.Message) {
				if r.owner == "" || (strings.EqualFold(r.owner, repo.Owner.Login) && strings.EqualFold(r.repo, repo.Name)) {
					refs = append(refs, ref{sha, r.number})
				}
			}
		}
	}
	if len(refs) == 0 {
		return nil
	}
	orgID := int64(0)
	if repo.Owner != nil && repo.Owner.IsOrg() {
		orgID = repo.Owner.ID
	}
	return a.d.Store.Tx(ctx, func(tx store.Q) error {
		for _, r := range refs {
			target, err := tx.IssueByNumber(ctx, repo.ID, r.number)
			if err != nil {
				continue // no such issue: nothing to reference
			}
			commit := r.commit
			e := &model.IssueEvent{RepoID: repo.ID, IssueID: target.ID, ActorID: actorID, Event: "referenced", CommitID: &commit}
			if err := tx.AddIssueEvent(ctx, e, orgID, map[string]any{"number": target.Number, "commit_id": commit}); err != nil {
				return err
			}
		}
		return nil
	})
}
