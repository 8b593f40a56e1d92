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
