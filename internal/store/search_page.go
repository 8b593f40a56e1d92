package store

import (
	"context"
	"database/sql"
	"slices"
)

// One mechanism runs every search's page: the count, then the page's rows
// in SQL order with LIMIT and OFFSET, both over the same FROM and WHERE.

// viewerJoins are the viewer's relations to repository r that the
// visibility rule of RepoQuery reads; its two ? are the viewer's id (see
// visibleTo).
const viewerJoins = `
 LEFT JOIN org_members m ON m.org_id = r.owner_id AND m.user_id = ? AND m.state = 'active'
 LEFT JOIN repo_collaborators c ON c.repo_id = r.id AND c.user_id = ?`

// visibleTo starts the WHERE of a search over the repositories (r) v may
// see, for a FROM that ends with viewerJoins: their arguments, then the
// visibility rule, then " AND " for the search's own conditions.
func visibleTo(v Viewer) *sqlb { return visibleToAccess(v, orgAccess) }

// visibleToAccess is visibleTo with access as the test of access through
// the organization (orgAccess, or a form of it that reads the same).
func visibleToAccess(v Viewer, access string) *sqlb {
	rq := RepoQuery{Viewer: v}
	vis, visArgs := rq.whereAccess(access)
	s := &sqlb{}
	s.arg(v.UserID, v.UserID)
	s.w(vis, " AND ")
	s.arg(visArgs...)
	return s
}

// direction is the SQL of a sort direction.
func direction(desc bool) string {
	if desc {
		return " DESC"
	}
	return " ASC"
}

// searchPage is one page of a search.
type searchPage struct {
	from   string // " FROM ..." the rows are counted in
	sel    string // "SELECT cols FROM ..." the page reads ("" : SELECT cols + from)
	cols   string
	where  *sqlb // " WHERE ..." (both queries)
	order  string
	oargs  []any
	limit  int
	offset int
	// countCap, when set, stops counting there: the total is then at
	// least countCap (a search matching more is told as matching
	// countCap, like GitHub's approximate counts).
	countCap int
	// total, when set, is the count already known: only the page is read.
	total int
}

// runSearch counts the rows of p and reads its page with scan.
func runSearch[T any](ctx context.Context, q Q, p searchPage, scan func(*sql.Rows) (T, error)) ([]T, int, error) {
	where, args := p.where.b.String(), p.where.args
	count := `SELECT COUNT(*)` + p.from + where
	countArgs := args
	if p.countCap > 0 {
		count = `SELECT COUNT(*) FROM (SELECT 1` + p.from + where + ` LIMIT ?) n`
		countArgs = append(slices.Clip(args), p.countCap)
	}
	total := p.total
	if total == 0 {
		if err := q.searchRow(ctx, count, countArgs...).Scan(&total); err != nil {
			return nil, 0, err
		}
	}
	if p.offset >= total {
		return []T{}, total, nil
	}
	sel := p.sel
	if sel == "" {
		sel = `SELECT ` + p.cols + p.from
	}
	pageArgs := append(append(slices.Clip(args), p.oargs...), limitOr30(p.limit), p.offset)
	rows, err := q.searchRows(ctx, sel+where+p.order+` LIMIT ? OFFSET ?`, pageArgs...)
	if err != nil {
		return nil, 0, err
	}
	defer rows.Close()
	out := []T{}
	for rows.Next() {
		v, err := scan(rows)
		if err != nil {
			return nil, 0, err
		}
		out = append(out, v)
	}
	return out, total, rows.Err()
}
