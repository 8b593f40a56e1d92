package authz

import (
	"errors"
	"testing"

	"github.com/hubd/hubd/internal/model"
)

// Authorize on alice's public repository (alice owns it: the role never
// stands in the way) for each token kind, inside and outside its grant:
// reads always pass, writes only inside, with GitHub's refusal.
func TestAuthorizeGrants(t *testing.T) {
	alice := &model.Account{ID: 1, Login: "alice"}
	pub := &model.Repo{ID: 10, OwnerID: 1, Owner: alice, Visibility: model.Public}
	perms := map[string]string{"issues": "write", "metadata": "read"}
	integration, pat := ErrIntegrationMessage, ErrPATMessage
	for _, c := range []struct {
		name   string
		caller Caller
		want   string // "" allowed, "404", or the 403 message
	}{
		{"classic with public_repo", Caller{Kind: ClassicPAT, User: alice, Scopes: ParseScopes("public_repo")}, ""},
		{"classic without a repository scope", Caller{Kind: ClassicPAT, User: alice, Scopes: ParseScopes("read:user")}, "404"},
		{"oauth without a repository scope", Caller{Kind: OAuthApp, User: alice, Scopes: ParseScopes("gist")}, "404"},
		{"installation on alice", Caller{Kind: Installation, InstallationTargetID: 1, Permissions: perms}, ""},
		{"installation elsewhere", Caller{Kind: Installation, InstallationTargetID: 2, Permissions: perms}, integration},
		{"job token of another repository", Caller{Kind: Installation, InstallationTargetID: 1, RepoIDs: map[int64]bool{11: true}, Permissions: perms}, integration},
		{"job token of this repository", Caller{Kind: Installation, InstallationTargetID: 1, RepoIDs: map[int64]bool{10: true}, Permissions: perms}, ""},
		{"fine-grained selecting it", Caller{Kind: FineGrained, User: alice, ResourceOwnerID: 1, OwnerAccess: true, Permissions: perms}, ""},
		{"fine-grained selecting another", Caller{Kind: FineGrained, User: alice, ResourceOwnerID: 1, OwnerAccess: true, RepoIDs: map[int64]bool{11: true}, Permissions: perms}, pat},
		{"fine-grained of another owner", Caller{Kind: FineGrained, User: alice, ResourceOwnerID: 2, OwnerAccess: true, Permissions: perms}, pat},
		{"ghu_ installed on alice", Caller{Kind: UserToServer, User: alice, AppReach: map[int64]map[int64]bool{1: nil}, Permissions: perms}, ""},
		{"ghu_ installed elsewhere", Caller{Kind: UserToServer, User: alice, AppReach: map[int64]map[int64]bool{2: nil}, Permissions: perms}, integration},
		{"ghu_ selecting another", Caller{Kind: UserToServer, User: alice, AppReach: map[int64]map[int64]bool{1: {11: true}}, Permissions: perms}, integration},
	} {
		if _, err := Authorize(&c.caller, pub, RepoFacts{}, false, Read); err != nil {
			t.Errorf("%s: read refused: %v", c.name, err)
		}
		_, err := Authorize(&c.caller, pub, RepoFacts{}, true, Read)
		var he *model.HTTPError
		switch {
		case c.want == "" && err != nil:
			t.Errorf("%s: write refused: %v", c.name, err)
		case c.want == "404" && !errors.Is(err, model.ErrNotFound):
			t.Errorf("%s: write: %v, want 404", c.name, err)
		case c.want != "" && c.want != "404" && (!errors.As(err, &he) || he.Status != 403 || he.Message != c.want):
			t.Errorf("%s: write: %v, want 403 %q", c.name, err, c.want)
		}
	}
}

// WritesRepository: every non-GET operation writes unless reading alone
// satisfies one way of being allowed it.
func TestWritesRepository(t *testing.T) {
	for _, c := range []struct {
		op, category, subcategory, method string
		want                              bool
	}{
		{"issues/create", "issues", "issues", "POST", true},
		{"reactions/create-for-issue", "reactions", "reactions", "POST", true},
		{"repos/create-fork", "repos", "forks", "POST", true},
		{"issues/list-for-repo", "issues", "issues", "GET", false},
		{"activity/set-repo-subscription", "activity", "watching", "PUT", false},
		{"no/such-operation", "no", "such", "POST", true},
	} {
		sets, known := RequiredPermissions(c.op, c.category, c.subcategory, c.method)
		if got := WritesRepository(sets, known, c.method); got != c.want {
			t.Errorf("%s %s: %v, want %v", c.method, c.op, got, c.want)
		}
	}
}

// What the grant adds to a repository lookup: Authorize for a write by an
// installation token (the longest path: Grants, then the role) beside
// RepoPermission alone, which every lookup computed before.
func BenchmarkAuthorize(b *testing.B) {
	org := &model.Account{ID: 1, Type: model.TypeOrganization}
	repo := &model.Repo{ID: 10, OwnerID: 1, Owner: org, Visibility: model.Public}
	c := &Caller{Kind: Installation, InstallationTargetID: 1, RepoIDs: map[int64]bool{10: true},
		Permissions: map[string]string{"issues": "write", "contents": "write", "metadata": "read"}}
	b.Run("RepoPermission", func(b *testing.B) {
		for b.Loop() {
			RepoPermission(c, repo, RepoFacts{})
		}
	})
	b.Run("Authorize-write", func(b *testing.B) {
		for b.Loop() {
			if _, err := Authorize(c, repo, RepoFacts{}, true, Write); err != nil {
				b.Fatal(err)
			}
		}
	})
}
