package store

import "context"

// RepoNameByID is the owner login and name of a repository, for the
// /repositories/{id}/... form of its paths.
func (q Q) RepoNameByID(ctx context.Context, id int64) (owner, name string, err error) {
	err = q.row(ctx, `SELECT a.login, r.name FROM repos r JOIN accounts a ON a.id = r.owner_id WHERE r.id = ?`, id).Scan(&owner, &name)
	return owner, name, notFound(err)
}
