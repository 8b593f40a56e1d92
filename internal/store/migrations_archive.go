package store

import (
	"context"

	"github.com/hubd/hubd/internal/authz"
	"github.com/hubd/hubd/internal/model"
)

// Reads and writes of the migration archive (internal/migrations) that no
// other domain needs: every reaction of a page of subjects, a repository's
// direct grants, and milestone numbers kept from the archive.

// SubjectReactions loads the reactions of subjects (one subject type), in
// one query per hundred subjects, oldest first per subject.
func (q Q) SubjectReactions(ctx context.Context, subject string, ids []int64) (map[int64][]*model.Reaction, error) {
	out := map[int64][]*model.Reaction{}
	for start := 0; start < len(ids); start += 100 {
		in, args := inList(ids[start:min(start+100, len(ids))])
		rows, err := q.query(ctx, `SELECT x.subject_id, x.id, x.content, x.created_at, `+slim("a")+` FROM reactions x
 JOIN accounts a ON a.id = x.user_id WHERE x.subject_type = ? AND x.subject_id IN (`+in+`) ORDER BY x.id`,
			append([]any{subject}, args...)...)
		if err != nil {
			return nil, err
		}
		for rows.Next() {
			var sid, created int64
			var a slimAccount
			r := &model.Reaction{}
			if err := rows.Scan(append([]any{&sid, &r.ID, &r.Content, &created}, a.dest()...)...); err != nil {
				rows.Close()
				return nil, err
			}
			r.CreatedAt, r.User = fromUnix(created), a.account()
			out[sid] = append(out[sid], r)
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// DirectGrant is a user's direct permission on a repository.
type DirectGrant struct {
	User *model.Account // slim
	Perm authz.Permission
}

// DirectCollaborators is one page of a repository's direct collaborators
// (their own grants, not teams' or the organization's) in id order, and
// how many there are.
func (q Q) DirectCollaborators(ctx context.Context, repoID int64, limit, offset int) ([]DirectGrant, int, error) {
	var total int
	if err := q.row(ctx, `SELECT COUNT(*) FROM repo_collaborators WHERE repo_id = ?`, repoID).Scan(&total); err != nil {
		return nil, 0, err
	}
	rows, err := q.query(ctx, `SELECT c.permission, `+slim("a")+` FROM repo_collaborators c JOIN accounts a ON a.id = c.user_id
 WHERE c.repo_id = ? ORDER BY a.id LIMIT ? OFFSET ?`, repoID, limit, offset)
	if err != nil {
		return nil, 0, err
	}
	defer rows.Close()
	out := []DirectGrant{}
	for rows.Next() {
		var perm string
		var a slimAccount
		if err := rows.Scan(append([]any{&perm}, a.dest()...)...); err != nil {
			return nil, 0, err
		}
		g := DirectGrant{User: a.account()}
		g.Perm, _ = authz.ParsePermission(perm)
		out = append(out, g)
	}
	return out, total, rows.Err()
}

// ReserveMilestoneNumbers makes the repository's next milestone number at
// least next, so an import keeps an archive's numbers (gaps included).
func (q Q) ReserveMilestoneNumbers(ctx context.Context, repoID, next int64) error {
	_, err := q.exec(ctx, `INSERT INTO issue_counters (repo_id, last_milestone) VALUES (?, ?)
 ON CONFLICT (repo_id) DO UPDATE SET last_milestone = excluded.last_milestone WHERE issue_counters.last_milestone < excluded.last_milestone`,
		repoID, next-1)
	return err
}

// SetAssetDownloads sets an imported asset's download count.
func (q Q) SetAssetDownloads(ctx context.Context, id, n int64) error {
	_, err := q.exec(ctx, `UPDATE release_assets SET download_count = ? WHERE id = ?`, n, id)
	return err
}
