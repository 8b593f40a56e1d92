package store_test

import (
	"context"
	"errors"
	"testing"

	"github.com/hubd/hubd/internal/model"
	"github.com/hubd/hubd/internal/store"
	"github.com/hubd/hubd/internal/store/storetest"
)

// The migration that makes each workflow run its own check suite rebuilds
// check_suites on SQLite (its inline UNIQUE cannot be dropped): a database
// an older hubd filled keeps every check run and annotation, a suite one
// workflow run alone pointed at becomes that run's, other apps keep one
// suite per commit, and the foreign keys are on and cascade afterwards.
func TestMigrateCheckSuitesPerWorkflowRun(t *testing.T) {
	ctx := context.Background()
	dsn := storetest.Empty(t)
	n := store.MigrationWith("CREATE TABLE check_suites_new")
	if n == 0 {
		t.Fatal("no migration rebuilds check_suites")
	}
	old, err := store.OpenMigratedTo(ctx, dsn, n-1)
	if err != nil {
		t.Fatal(err)
	}
	var repo *model.Repo
	var runs []*model.WorkflowRun
	err = old.Tx(ctx, func(tx store.Q) error {
		a := &model.Account{Login: "mona", Type: model.TypeUser}
		if err := tx.CreateAccount(ctx, a); err != nil {
			return err
		}
		repo = &model.Repo{OwnerID: a.ID, Owner: a, Name: "app", Visibility: model.Public}
		if err := tx.CreateRepo(ctx, repo); err != nil {
			return err
		}
		for i, sha := range []string{"aaa", "aaa", "bbb"} {
			r := &model.WorkflowRun{RepoID: repo.ID, WorkflowID: int64(i + 1), Name: "CI", DisplayTitle: "CI", RunAttempt: 1,
				Event: "push", Status: "completed", Ref: "refs/heads/main", HeadSHA: sha, ActorID: a.ID, TriggeringActorID: a.ID,
				Source: "on: push", CheckSuiteID: []int64{2, 2, 3}[i]}
			if err := tx.CreateRun(ctx, r); err != nil {
				return err
			}
			runs = append(runs, r)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	for _, q := range []string{
		// suite 1: app 0's of aaa; 2: the Actions app's of aaa, shared by
		// two workflow runs; 3: the Actions app's of bbb, one run's. A
		// deleted suite 4 moved the id sequence past the rows.
		`INSERT INTO check_suites (id, repo_id, head_sha, app_id, status, created_at, updated_at) VALUES (1, ?, 'aaa', 0, 'completed', 1, 1)`,
		`INSERT INTO check_suites (id, repo_id, head_sha, app_id, status, created_at, updated_at) VALUES (2, ?, 'aaa', 7, 'completed', 1, 1)`,
		`INSERT INTO check_suites (id, repo_id, head_sha, app_id, status, created_at, updated_at) VALUES (3, ?, 'bbb', 7, 'completed', 1, 1)`,
		`INSERT INTO check_suites (id, repo_id, head_sha, app_id, status, created_at, updated_at) VALUES (4, ?, 'ccc', 7, 'completed', 1, 1)`,
		`DELETE FROM check_suites WHERE id = 4 AND repo_id = ?`,
		`INSERT INTO check_runs (id, repo_id, suite_id, head_sha, name, status, created_at, updated_at) VALUES (10, ?, 1, 'aaa', 'lint', 'completed', 1, 1)`,
		`INSERT INTO check_runs (id, repo_id, suite_id, head_sha, name, status, created_at, updated_at) VALUES (11, ?, 1, 'aaa', 'test', 'completed', 1, 1)`,
		`INSERT INTO check_runs (id, repo_id, suite_id, head_sha, app_id, name, status, created_at, updated_at) VALUES (12, ?, 2, 'aaa', 7, 'build', 'completed', 1, 1)`,
		`INSERT INTO check_runs (id, repo_id, suite_id, head_sha, app_id, name, status, created_at, updated_at) VALUES (13, ?, 3, 'bbb', 7, 'build', 'completed', 1, 1)`,
	} {
		if err := store.Exec(ctx, old, q, repo.ID); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	if old.Postgres() { // an older hubd made its ids from the sequence
		for _, q := range []string{`SELECT setval(pg_get_serial_sequence('check_suites', 'id'), 4)`,
			`SELECT setval(pg_get_serial_sequence('check_runs', 'id'), 13)`} {
			if err := store.Exec(ctx, old, q); err != nil {
				t.Fatal(err)
			}
		}
	}
	if err := store.Exec(ctx, old, `INSERT INTO check_annotations (run_id, path, start_line, end_line, annotation_level, message)
 VALUES (10, 'a.go', 1, 1, 'warning', 'look')`); err != nil {
		t.Fatal(err)
	}
	if err := old.Close(); err != nil {
		t.Fatal(err)
	}

	s, err := store.Open(ctx, dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	q := s.R()
	for id, suite := range map[int64]int64{10: 1, 11: 1, 12: 2, 13: 3} {
		if r, err := q.CheckRunByID(ctx, repo.ID, id); err != nil || r.SuiteID != suite {
			t.Errorf("run %d after the migration: %+v %v, want it in suite %d", id, r, err, suite)
		}
	}
	if a, err := q.CheckAnnotations(ctx, 10, 10, 0); err != nil || len(a) != 1 || a[0].Message != "look" {
		t.Errorf("annotations %v %v", a, err)
	}
	for id, run := range map[int64]int64{1: 0, 2: 0, 3: runs[2].ID} {
		su, err := q.CheckSuiteByID(ctx, repo.ID, id)
		if err != nil || su.WorkflowRunID != run {
			t.Errorf("suite %d: %+v %v, want workflow run %d", id, su, err, run)
		}
	}

	err = s.Tx(ctx, func(tx store.Q) error {
		// App 0 keeps its one suite of aaa.
		su := &model.CheckSuite{RepoID: repo.ID, HeadSHA: "aaa"}
		created, err := tx.EnsureCheckSuite(ctx, su)
		if err != nil || created || su.ID != 1 {
			t.Errorf("app 0's suite of aaa: %+v created %v %v", su, created, err)
		}
		// A new workflow run of aaa gets a suite of its own, past the
		// deleted suite's id; a second suite of that run is refused.
		w := &model.CheckSuite{RepoID: repo.ID, HeadSHA: "aaa", AppID: 7, WorkflowRunID: 99}
		if err := tx.CreateWorkflowRunSuite(ctx, w); err != nil || w.ID <= 4 || w.WorkflowRunID != 99 {
			t.Errorf("workflow run suite %+v %v", w, err)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Tx(ctx, func(tx store.Q) error {
		return tx.CreateWorkflowRunSuite(ctx, &model.CheckSuite{RepoID: repo.ID, HeadSHA: "aaa", AppID: 7, WorkflowRunID: 99})
	}); err == nil {
		t.Errorf("a second suite of workflow run 99 was made")
	}
	// The foreign keys hold again: deleting suite 1 takes its runs (and
	// their annotations) with it.
	if err := store.Exec(ctx, s, `DELETE FROM check_suites WHERE id = 1`); err != nil {
		t.Fatal(err)
	}
	if _, err := q.CheckRunByID(ctx, repo.ID, 10); !errors.Is(err, model.ErrNotFound) {
		t.Errorf("run 10 after its suite was deleted: %v", err)
	}
	if a, err := q.CheckAnnotations(ctx, 10, 10, 0); err != nil || len(a) != 0 {
		t.Errorf("annotations of a deleted run %v %v", a, err)
	}
}
