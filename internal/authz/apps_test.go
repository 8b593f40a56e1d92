package authz

import (
	"reflect"
	"testing"

	"github.com/hubd/hubd/internal/model"
)

func TestRequiredPermissions(t *testing.T) {
	for _, c := range []struct {
		op, cat, sub, method string
		want                 string
		known                bool
	}{
		{"issues/create", "issues", "issues", "POST", "issues=write", true},
		{"issues/list-for-repo", "issues", "issues", "GET", "issues=read", true},
		{"issues/create-label", "issues", "labels", "POST", "issues=write; pull_requests=write", true},
		{"repos/create-fork", "repos", "forks", "POST", "administration=write,contents=read", true},
		{"repos/get-content", "repos", "contents", "GET", "contents=read", true},
		{"meta/root", "meta", "meta", "GET", "", true},
		{"users/get-authenticated", "users", "users", "GET", "", true}, // the badge refuses it, not the rule
		{"no/such", "nothing", "here", "GET", "", false},
	} {
		sets, known := RequiredPermissions(c.op, c.cat, c.sub, c.method)
		if known != c.known || AcceptedHeader(sets) != c.want {
			t.Errorf("%s: %q %v, want %q %v", c.op, AcceptedHeader(sets), known, c.want, c.known)
		}
	}
	sets, _ := RequiredPermissions("issues/create-label", "issues", "labels", "POST")
	if !AllowedBy(sets, map[string]string{"pull_requests": "write"}) || AllowedBy(sets, map[string]string{"issues": "read"}) {
		t.Error("alternatives: one of them at its level allows")
	}
	sets, _ = RequiredPermissions("repos/create-fork", "repos", "forks", "POST")
	if AllowedBy(sets, map[string]string{"administration": "write"}) || !AllowedBy(sets, map[string]string{"administration": "write", "contents": "write"}) {
		t.Error("a set needs all of its permissions, each at its level or above")
	}
}

func TestPermissionsArithmetic(t *testing.T) {
	if got := IntersectPermissions(map[string]string{"issues": "write", "contents": "write", "checks": "read"},
		map[string]string{"issues": "read", "contents": "write"}); !reflect.DeepEqual(got, map[string]string{"issues": "read", "contents": "write"}) {
		t.Errorf("intersection %v", got)
	}
	if got := WithMetadata(map[string]string{"members": "read"}); got["metadata"] != "" {
		t.Errorf("organization permissions bring no metadata: %v", got)
	}
	if got := WithMetadata(map[string]string{"issues": "read"}); got["metadata"] != "read" {
		t.Errorf("repository permissions bring metadata: read: %v", got)
	}
	if name, ok := WithinPermissions(map[string]string{"issues": "write", "contents": "read"}, map[string]string{"issues": "read", "contents": "write"}); ok || name != "issues" {
		t.Errorf("within: %q %v", name, ok)
	}
	for perms, want := range map[string]Permission{"administration": Admin, "issues": Write, "metadata": Read} {
		if got := InstallationLevel(map[string]string{perms: "write", "metadata": "read"}); got != want {
			t.Errorf("%s: write gives %v, want %v", perms, got, want)
		}
	}
}

func TestInstallationRepoPermission(t *testing.T) {
	org := &model.Account{ID: 1, Type: model.TypeOrganization}
	private := &model.Repo{ID: 9, OwnerID: 1, Owner: org, Visibility: model.Private}
	public := &model.Repo{ID: 10, OwnerID: 2, Owner: &model.Account{ID: 2}, Visibility: model.Public}
	bot := &model.Account{ID: 5, Type: model.TypeBot}
	perms := map[string]string{"issues": "write", "metadata": "read"}
	for _, c := range []struct {
		name string
		c    *Caller
		r    *model.Repo
		want Permission
	}{
		{"selected", &Caller{Kind: Installation, User: bot, Permissions: perms, InstallationTargetID: 1, RepoIDs: map[int64]bool{9: true}}, private, Write},
		{"not selected", &Caller{Kind: Installation, User: bot, Permissions: perms, InstallationTargetID: 1, RepoIDs: map[int64]bool{}}, private, None},
		{"all of the account", &Caller{Kind: Installation, User: bot, Permissions: perms, InstallationTargetID: 1}, private, Write},
		{"another account", &Caller{Kind: Installation, User: bot, Permissions: perms, InstallationTargetID: 3}, private, None},
		{"no repository permission", &Caller{Kind: Installation, User: bot, Permissions: map[string]string{"members": "read"}, InstallationTargetID: 1}, private, None},
		{"public elsewhere", &Caller{Kind: Installation, User: bot, Permissions: perms, InstallationTargetID: 1}, public, Read},
	} {
		if got := RepoPermission(c.c, c.r, RepoFacts{}); got != c.want {
			t.Errorf("%s: %v, want %v", c.name, got, c.want)
		}
	}
}
