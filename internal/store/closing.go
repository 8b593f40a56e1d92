package store

import (
	"context"

	"github.com/hubd/hubd/internal/model"
)

// PullsMergedAs loads a repository's pull requests whose merge commit is
// one of shas (internal/closing: a push that landed them).
func (q Q) PullsMergedAs(ctx context.Context, repoID int64, shas []string) ([]*model.Pull, error) {
	if len(shas) == 0 {
		return nil, nil
	}
	in, args := inList(shas)
	return q.pulls(ctx, pullSelect+` WHERE p.repo_id = ? AND p.merged_at IS NOT NULL AND p.merge_commit_sha IN (`+in+`) ORDER BY p.number`,
		append([]any{repoID}, args...)...)
}
