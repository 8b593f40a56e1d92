package permbench

import (
	"context"
	"fmt"
	"testing"

	"github.com/hubd/hubd/internal/authz"
	"github.com/hubd/hubd/internal/model"
	"github.com/hubd/hubd/internal/store"
	"github.com/hubd/hubd/internal/store/storetest"
)

// BenchmarkPermissions measures the store queries behind the two requests of
// bench/perms.sh on the same seed, on SQLite or (HUBD_TEST_DATABASE) on
// PostgreSQL: RepoByName, the lookup every /repos/{owner}/{repo} request
// starts with (the repository and the viewer's facts, team grants through
// nested teams included), and ListRepos as GET /user/repos asks it. Each
// runs in a transaction, where hubd's read cache never answers, and the
// "-cold" runs the way a request right after a write does (read
// connections, cached statements, the read cache emptied before each run,
// off the clock), ListIssues as GET /issues asks it across the
// repositories teamster reaches among them. ms/op is the time per query.
func BenchmarkPermissions(b *testing.B) {
	ctx := context.Background()
	st := storetest.Open(b)
	s, err := Seed(ctx, st, Defaults)
	if err != nil {
		b.Fatal(err)
	}
	run := func(b *testing.B, fn func(q store.Q) error) {
		for b.Loop() {
			if err := st.Tx(ctx, fn); err != nil {
				b.Fatal(err)
			}
		}
		b.ReportMetric(float64(b.Elapsed().Microseconds())/1000/float64(b.N), "ms/op")
	}
	get := func(userID int64, want authz.Permission) func(q store.Q) error {
		return func(q store.Q) error {
			v, err := q.RepoByName(ctx, "acme", "r00001", userID)
			if err != nil {
				return err
			}
			if p := authz.RepoPermission(&authz.Caller{User: &model.Account{ID: userID}}, v.Repo, v.Facts); p != want {
				return fmt.Errorf("permission %s, want %s", p, want)
			}
			return nil
		}
	}
	b.Run("RepoByName/deep-nested-team", func(b *testing.B) { run(b, get(s.Deep.ID, authz.Write)) })
	b.Run("RepoByName/org-owner-control", func(b *testing.B) { run(b, get(s.Owner.ID, authz.Admin)) })
	for _, page := range []int{1, 60} {
		f := store.RepoQuery{Viewer: store.Viewer{UserID: s.Teamster.ID}, ViewerOwner: true, ViewerCollaborator: true,
			ViewerOrgMember: true, Sort: "full_name", Limit: 30, Offset: 30 * (page - 1)}
		list := func(q store.Q) error {
			list, total, err := q.ListRepos(ctx, f)
			if err == nil && (len(list) != 30 || total != Defaults.Repos) {
				err = fmt.Errorf("page %d: %d repositories of %d, want 30 of %d", page, len(list), total, Defaults.Repos)
			}
			return err
		}
		b.Run(fmt.Sprintf("ListRepos/user-repos-page-%d", page), func(b *testing.B) { run(b, list) })
		// The same query as a request right after a write runs it: outside
		// a transaction, on the read connections, with its prepared
		// statement cached (a transaction prepares its statements anew, so
		// the runs above include parsing and planning every time). The
		// empty write before each run empties the read cache, off the
		// clock.
		b.Run(fmt.Sprintf("ListRepos/user-repos-page-%d-cold", page), func(b *testing.B) {
			for b.Loop() {
				b.StopTimer()
				if err := st.Tx(ctx, func(store.Q) error { return nil }); err != nil {
					b.Fatal(err)
				}
				b.StartTimer()
				if err := list(st.R()); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(b.Elapsed().Microseconds())/1000/float64(b.N), "ms/op")
		})
	}
	// GET /issues?filter=all for teamster, cold: the open issues of every
	// repository they reach (one in each of the 2,000), newest first.
	b.Run("ListIssues/issues-across-page-1-cold", func(b *testing.B) {
		rq := store.RepoQuery{Viewer: store.Viewer{UserID: s.Teamster.ID}, ViewerOwner: true, ViewerCollaborator: true, ViewerOrgMember: true}
		f := store.IssueQuery{Repos: &rq, Desc: true, Limit: 30}
		want := Defaults.Repos * Defaults.Issues
		for b.Loop() {
			b.StopTimer()
			if err := st.Tx(ctx, func(store.Q) error { return nil }); err != nil {
				b.Fatal(err)
			}
			b.StartTimer()
			list, total, err := st.R().ListIssues(ctx, f)
			if err == nil && (len(list) != 30 || total != want) {
				err = fmt.Errorf("%d issues of %d, want 30 of %d", len(list), total, want)
			}
			if err != nil {
				b.Fatal(err)
			}
		}
		b.ReportMetric(float64(b.Elapsed().Microseconds())/1000/float64(b.N), "ms/op")
	})
}
