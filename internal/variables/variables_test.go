package variables_test

import (
	"context"
	"strings"
	"testing"

	"github.com/hubd/hubd/internal/model"
	"github.com/hubd/hubd/internal/store"
	"github.com/hubd/hubd/internal/store/storetest"
	"github.com/hubd/hubd/internal/variables"
)

var ctx = context.Background()

// ForRun: an environment's variables over the repository's over the
// organization's shared with it; organization and repository values are
// taken by name up to 256 KB, the environment's on top.
func TestForRun(t *testing.T) {
	s := storetest.Open(t)
	owner := &model.Account{Login: "olga", Type: model.TypeUser}
	org := store.NewOrg("octo")
	repo := &model.Repo{Name: "core", Visibility: model.Private, DefaultBranch: "main"}
	other := &model.Repo{Name: "docs", Visibility: model.Public, DefaultBranch: "main"}
	var envID int64
	err := s.Tx(ctx, func(tx store.Q) error {
		if err := tx.CreateAccount(ctx, owner); err != nil {
			return err
		}
		if err := tx.CreateOrg(ctx, org, owner.ID); err != nil {
			return err
		}
		for _, r := range []*model.Repo{repo, other} {
			r.OwnerID, r.Owner = org.ID, org
			if err := tx.CreateRepo(ctx, r); err != nil {
				return err
			}
		}
		env := &model.Environment{RepoID: repo.ID, Name: "prod"}
		if err := tx.CreateEnvironment(ctx, env); err != nil {
			return err
		}
		envID = env.ID
		big := strings.Repeat("x", 48<<10) // 48 KB: five fit in 256 KB, a sixth does not
		for _, v := range []*model.Variable{
			{OrgID: org.ID, Name: "A", Value: "org", Visibility: "all"},
			{OrgID: org.ID, Name: "B", Value: "org", Visibility: "private"},
			{OrgID: org.ID, Name: "C", Value: "org", Visibility: "selected"}, // not selected for core
			{RepoID: repo.ID, Name: "B", Value: "repo"},
			{RepoID: repo.ID, Name: "D", Value: "repo"},
			{RepoID: repo.ID, EnvironmentID: envID, Name: "D", Value: "env"},
			{RepoID: other.ID, Name: "E", Value: "other repo"},
			{RepoID: repo.ID, Name: "BIG1", Value: big}, {RepoID: repo.ID, Name: "BIG2", Value: big},
			{RepoID: repo.ID, Name: "BIG3", Value: big}, {RepoID: repo.ID, Name: "BIG4", Value: big},
			{RepoID: repo.ID, Name: "BIG5", Value: big}, {RepoID: repo.ID, Name: "BIG6", Value: big},
			{RepoID: repo.ID, EnvironmentID: envID, Name: "ENVBIG", Value: big},
		} {
			v.Kind = model.VariablesActions
			if err := tx.CreateVariable(ctx, v); err != nil {
				return err
			}
		}
		// An agents variable never reaches an Actions job.
		return tx.CreateVariable(ctx, &model.Variable{Kind: model.VariablesAgents, RepoID: repo.ID, Name: "AGENT", Value: "x"})
	})
	if err != nil {
		t.Fatal(err)
	}
	svc := variables.New(s)
	got, err := svc.ForRun(ctx, model.VariablesActions, repo, envID)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]string{"A": "org", "B": "repo", "D": "env"}
	for k, v := range want {
		if got[k] != v {
			t.Errorf("%s = %q, want %q", k, got[k], v)
		}
	}
	for _, k := range []string{"C", "E", "AGENT", "BIG6"} {
		if _, ok := got[k]; ok {
			t.Errorf("%s is visible", k)
		}
	}
	for _, k := range []string{"BIG1", "BIG5", "ENVBIG"} {
		if len(got[k]) != 48<<10 {
			t.Errorf("%s missing", k)
		}
	}
	// Without the environment: the repository's D.
	got, err = svc.ForRun(ctx, model.VariablesActions, repo, 0)
	if err != nil || got["D"] != "repo" {
		t.Fatalf("no environment: %v %v", got["D"], err)
	}
}

func TestCleanName(t *testing.T) {
	for in, want := range map[string]string{"abc": "ABC", "_x1": "_X1", "Mixed_Case9": "MIXED_CASE9"} {
		if got, err := variables.CleanName(in); err != nil || got != want {
			t.Errorf("%q: %q %v", in, got, err)
		}
	}
	for _, in := range []string{"", "1A", "A-B", "A B", "github_token", "GITHUB_X", "é"} {
		if _, err := variables.CleanName(in); err == nil {
			t.Errorf("%q accepted", in)
		}
	}
}
