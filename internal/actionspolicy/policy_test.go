package actionspolicy

import (
	"strings"
	"testing"

	"github.com/hubd/hubd/internal/model"
)

func TestCheckUses(t *testing.T) {
	repo := &model.Repo{Name: "app", Owner: &model.Account{Login: "octo", Type: model.TypeOrganization}}
	yes := true
	e := &Effective{Chain: Chain{Org: &Settings{AllowedActions: Selected, Patterns: []string{"docker/login-action@v3", "hashicorp/*"}}, Repo: &Settings{Enabled: &yes}}}
	cases := []struct {
		uses string
		err  string
	}{
		{"./local", ""},
		{"octo/tool@v1", ""},
		{"actions/checkout@v4", ""},
		{"docker/login-action@v3", ""},
		{"hashicorp/setup-terraform@v3", ""},
		{"docker/login-action@v2", "because all actions must be from a repository owned by octo, created by GitHub, or match one of the patterns: docker/login-action@v3, hashicorp/*."},
	}
	for _, c := range cases {
		err := e.CheckUses(repo, []string{c.uses}, nil)
		if (err == nil) != (c.err == "") || (err != nil && !strings.HasSuffix(err.Error(), c.err)) {
			t.Errorf("%s: %v, want %q", c.uses, err, c.err)
		}
	}
	e.Org.SHAPinning = true
	if err := e.CheckUses(repo, []string{"octo/tool@v1"}, nil); err == nil || !strings.Contains(err.Error(), "pinned to a full-length commit SHA") {
		t.Errorf("pinning: %v", err)
	}
}

func TestSubject(t *testing.T) {
	claims := map[string]any{"repository": "octo/app", "ref": "refs/heads/main", "event_name": "push", "workflow": "CI", "repository_owner": "octo"}
	no := false
	cases := []struct {
		c    Chain
		want string
	}{
		{Chain{}, "repo:octo/app:ref:refs/heads/main"},
		{Chain{Org: &Settings{OIDC: OIDC{IncludeClaimKeys: []string{"repository_owner", "context"}}}}, "repository_owner:octo:ref:refs/heads/main"},
		{Chain{Org: &Settings{OIDC: OIDC{IncludeClaimKeys: []string{"repository_owner"}}}, Repo: &Settings{OIDC: OIDC{UseDefault: &no, IncludeClaimKeys: []string{"repo", "workflow"}}}}, "repo:octo/app:workflow:CI"},
	}
	for _, c := range cases {
		if got := subject(c.c, claims); got != c.want {
			t.Errorf("sub %q, want %q", got, c.want)
		}
	}
}

func TestCheckUsesEnterprise(t *testing.T) {
	repo := &model.Repo{Name: "app", Owner: &model.Account{Login: "octo", Type: model.TypeOrganization}}
	e := &Effective{Chain: Chain{Enterprise: Settings{AllowedActions: LocalOnly}, Org: &Settings{}, Repo: &Settings{}}}
	known := func(login string) bool { return login == "tools" }
	if err := e.CheckUses(repo, []string{"tools/lint@v1"}, known); err != nil {
		t.Errorf("an action of the enterprise: %v", err)
	}
	err := e.CheckUses(repo, []string{"actions/checkout@v4"}, known)
	if err == nil || !strings.Contains(err.Error(), "must be from a repository owned by your enterprise.") {
		t.Errorf("GitHub's action under local_only: %v", err)
	}
}
