package authz

import "testing"

// TestGraphQLPermissions: a field's own rule, else its type's, else none;
// a mutation's level is write.
func TestGraphQLPermissions(t *testing.T) {
	for _, c := range []struct{ typ, field, want string }{
		{"Repository", "issues", "issues=read"},
		{"Repository", "labels", "issues=read; pull_requests=read"},
		{"Repository", "name", ""},
		{"Issue", "title", "issues=read"},
		{"PullRequest", "labels", "pull_requests=read"},
		{"Mutation", "createIssue", "issues=write"},
		{"Mutation", "mergePullRequest", "contents=write"},
		{"User", "login", ""},
		{"Mutation", "addLabelsToLabelable", "issues=write; pull_requests=write; discussions=write"},
		{"Mutation", "addLabelsToLabelable(Discussion)", "discussions=write"},
		{"Mutation", "lockLockable(Issue)", "issues=write; pull_requests=write"},
	} {
		if got := AcceptedHeader(GraphQLPermissions(c.typ, c.field)); got != c.want {
			t.Errorf("%s.%s: %q, want %q", c.typ, c.field, got, c.want)
		}
	}
	perms := map[string]string{"issues": "write"}
	if !AllowedBy(GraphQLPermissions("Issue", "title"), perms) || AllowedBy(GraphQLPermissions("PullRequest", "title"), perms) {
		t.Error("issues: write should read issues and not pull requests")
	}
}
