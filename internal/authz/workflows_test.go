package authz

import "testing"

// TestWorkflowWrites: who may change workflow files, and GitHub's words
// for each kind of token that may not.
func TestWorkflowWrites(t *testing.T) {
	path := ".github/workflows/ci.yml"
	pat := "refusing to allow a Personal Access Token to create or update workflow `" + path + "` without `workflow` scope"
	app := "refusing to allow a GitHub App to create or update workflow `" + path + "` without `workflows` permission"
	for _, tc := range []struct {
		name string
		c    *Caller
		may  bool
		msg  string
	}{
		{"hubd itself", nil, true, ""},
		{"anonymous", &Caller{}, true, ""},
		{"classic repo", &Caller{Kind: ClassicPAT, Scopes: ParseScopes("repo")}, false, pat},
		{"classic repo,workflow", &Caller{Kind: ClassicPAT, Scopes: ParseScopes("repo,workflow")}, true, ""},
		{"oauth repo", &Caller{Kind: OAuthApp, Scopes: ParseScopes("repo")}, false,
			"refusing to allow an OAuth App to create or update workflow `" + path + "` without `workflow` scope"},
		{"oauth workflow", &Caller{Kind: OAuthApp, Scopes: ParseScopes("public_repo,workflow")}, true, ""},
		{"fine-grained contents", &Caller{Kind: FineGrained, Permissions: map[string]string{"contents": "write"}}, false, pat},
		{"fine-grained workflows", &Caller{Kind: FineGrained, Permissions: map[string]string{"contents": "write", "workflows": "write"}}, true, ""},
		{"installation contents", &Caller{Kind: Installation, Permissions: map[string]string{"contents": "write"}}, false, app},
		{"installation workflows", &Caller{Kind: Installation, Permissions: map[string]string{"workflows": "write"}}, true, ""},
		{"user access token", &Caller{Kind: UserToServer, Permissions: map[string]string{"contents": "write"}}, false, app},
	} {
		if got := MayWriteWorkflows(tc.c); got != tc.may {
			t.Errorf("%s: may %v", tc.name, got)
		}
		if !tc.may {
			if got := WorkflowRefusal(tc.c, path); got != tc.msg {
				t.Errorf("%s: %q", tc.name, got)
			}
		}
	}
}
