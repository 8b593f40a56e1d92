package store

import (
	"context"
	"strings"

	"github.com/hubd/hubd/internal/model"
)

// SetDefaultBranch renames a repository's default branch from old to name,
// only while it is still old (a concurrent change wins); it reports whether
// the row changed.
func (q Q) SetDefaultBranch(ctx context.Context, repoID int64, old, name string) (bool, error) {
	res, err := q.exec(ctx, `UPDATE repos SET default_branch = ?, updated_at = ? WHERE id = ? AND default_branch = ?`,
		name, unix(q.Now()), repoID, old)
	if err != nil {
		return false, err
	}
	n, err := res.RowsAffected()
	return n > 0, err
}

// UsersForCommits loads, in one query, the users that commit identities may
// name: users whose email is one of emails, and users whose login is one of
// logins (taken from noreply addresses). Both lists are compared ignoring
// case. The lists are padded to a few fixed lengths so that the prepared
// statement cache stays small.
func (q Q) UsersForCommits(ctx context.Context, emails, logins []string) ([]*model.Account, error) {
	if len(emails) == 0 && len(logins) == 0 {
		return nil, nil
	}
	var b strings.Builder
	b.WriteString(`SELECT ` + accountCols + ` FROM accounts a WHERE a.type = 'User' AND (LOWER(a.email) IN (`)
	args := make([]any, 0, len(emails)+len(logins)+16)
	in := func(vals []string) {
		n := padded(len(vals))
		for i := 0; i < n; i++ {
			if i > 0 {
				b.WriteByte(',')
			}
			b.WriteByte('?')
			switch {
			case i < len(vals):
				args = append(args, strings.ToLower(vals[i]))
			case len(vals) > 0:
				args = append(args, strings.ToLower(vals[0]))
			default:
				args = append(args, "@") // matches nobody: neither a login nor an address
			}
		}
	}
	in(emails)
	b.WriteString(`) OR a.lower_login IN (`)
	in(logins)
	b.WriteString(`))`)
	return q.accounts(ctx, b.String(), args...)
}

// padded rounds a list length up to 4, 16, 64, 256... (at least 1).
func padded(n int) int {
	p := 4
	for p < n {
		p *= 4
	}
	return p
}

// RecordBranchRename remembers that branch old is now name: GET of the old
// name redirects. Earlier redirects to old follow it to name, and a
// redirect from name (the new branch now exists) is dropped.
func (q Q) RecordBranchRename(ctx context.Context, repoID int64, old, name string) error {
	if _, err := q.exec(ctx, `DELETE FROM branch_redirects WHERE repo_id = ? AND old_name IN (?, ?)`, repoID, old, name); err != nil {
		return err
	}
	if _, err := q.exec(ctx, `UPDATE branch_redirects SET new_name = ? WHERE repo_id = ? AND new_name = ?`, name, repoID, old); err != nil {
		return err
	}
	_, err := q.exec(ctx, `INSERT INTO branch_redirects (repo_id, old_name, new_name) VALUES (?,?,?)`, repoID, old, name)
	return err
}

// BranchRedirect is the branch old was renamed to (model.ErrNotFound when it
// was not).
func (q Q) BranchRedirect(ctx context.Context, repoID int64, old string) (string, error) {
	var name string
	err := q.row(ctx, `SELECT new_name FROM branch_redirects WHERE repo_id = ? AND old_name = ?`, repoID, old).Scan(&name)
	return name, notFound(err)
}
