package authz

// Workflow files (.github/workflows) run with the repository's secrets, so
// GitHub lets a token create, change or delete them only with more than
// contents access: classic and OAuth tokens need the workflow scope, GitHub
// Apps' tokens (ghs_, ghu_) and fine-grained tokens workflows: write. A
// job's GITHUB_TOKEN never has it (the GitHub Actions app does not hold
// the permission). Signed-in web sessions and hubd's own writes (no
// caller) are not limited.

// MayWriteWorkflows reports whether c may move a ref in a way that
// creates, changes or deletes a workflow file.
func MayWriteWorkflows(c *Caller) bool {
	if c == nil {
		return true
	}
	switch c.Kind {
	case ClassicPAT, OAuthApp:
		return c.Scopes.Has("workflow")
	case FineGrained, Installation, UserToServer:
		return Covers(c.Permissions, "workflows", "write")
	}
	return true
}

// WorkflowRefusal is GitHub's refusal of a change to the workflow file at
// path by c (git push shows it as the rejected ref's reason; the REST and
// GraphQL writes answer it as their message).
func WorkflowRefusal(c *Caller, path string) string {
	who, what := "a Personal Access Token", "`workflow` scope"
	switch c.Kind {
	case OAuthApp:
		who = "an OAuth App"
	case Installation, UserToServer:
		who, what = "a GitHub App", "`workflows` permission"
	}
	return "refusing to allow " + who + " to create or update workflow `" + path + "` without " + what
}

// IsApp reports whether c is a GitHub App's token (installation or user
// access token): GitHub answers some refusals to them in its integration
// words ("Resource not accessible by integration").
func (c *Caller) IsApp() bool {
	return c != nil && (c.Kind == Installation || c.Kind == UserToServer)
}
