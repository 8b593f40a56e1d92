package rulesets_test

import (
	"net/http"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-github/v92/github"

	"github.com/hubd/hubd/internal/authz"
)

// A ruleset refuses real git pushes (GH013 with the reasons, no ref
// moved) to the refs it selects, lets other refs through, passes its
// bypass actors, and refuses nothing while it only evaluates.
func TestPushEnforcement(t *testing.T) {
	f := newFixture(t)
	walt, waltTok := f.user(t, "walt", authz.Write)
	f.branch(t, "app", "release/1")
	rs := f.create(t, github.RepositoryRuleset{Name: "protect", Enforcement: "active",
		BypassActors: []*github.BypassActor{{ActorID: github.Ptr(int64(5)), ActorType: github.Ptr(github.BypassActorTypeRepositoryRole),
			BypassMode: github.Ptr(github.BypassModeAlways)}},
		Conditions: &github.RepositoryRulesetConditions{RefName: &github.RepositoryRulesetRefConditionParameters{
			Include: []string{"~DEFAULT_BRANCH", "refs/heads/release/*"}, Exclude: []string{}}},
		Rules: &github.RepositoryRulesetRules{Deletion: &github.EmptyRuleParameters{}, NonFastForward: &github.EmptyRuleParameters{}}})

	w := f.clone(t, "walt", waltTok)
	// A fast-forward push to main is fine.
	first := commitFile(t, w, "a.txt", "first")
	mustGit(t, w, "push", "-q", "origin", "HEAD:main")
	if got := f.remoteRef(t, "refs/heads/main"); got != first {
		t.Fatalf("main is %s after a fast-forward push, want %s", got, first)
	}
	// A force push is refused, with GitHub's words.
	mustGit(t, w, "commit", "-q", "--amend", "-m", "rewritten")
	rewritten := strings.TrimSpace(mustGit(t, w, "rev-parse", "HEAD"))
	out, err := git(t, w, "push", "--force", "origin", "HEAD:main")
	if err == nil || !strings.Contains(out, "remote: error: GH013: Repository rule violations found for refs/heads/main.") ||
		!strings.Contains(out, "remote: - Cannot force-push to this branch.") || !strings.Contains(out, "[remote rejected]") ||
		!strings.Contains(out, "/repos/mona/app/rules/branches/main") {
		t.Fatalf("force push by a writer: %v\n%s", err, out)
	}
	if got := f.remoteRef(t, "refs/heads/main"); got != first {
		t.Fatalf("main moved to %s after a refused push", got)
	}
	// So is a deletion of a release branch; a feature branch goes.
	if out, err := git(t, w, "push", "origin", ":release/1"); err == nil || !strings.Contains(out, "Cannot delete this branch.") {
		t.Fatalf("deletion by a writer: %v\n%s", err, out)
	}
	if out, err := git(t, w, "push", "origin", ":feature"); err != nil {
		t.Fatalf("deletion of an unprotected branch: %v\n%s", err, out)
	}
	if f.remoteRef(t, "refs/heads/release/1") == "" || f.remoteRef(t, "refs/heads/feature") != "" {
		t.Fatal("refs after the deletions")
	}
	// Several refs in one push: the refusal of one refuses the push.
	mustGit(t, w, "branch", "side")
	if out, err := git(t, w, "push", "--force", "origin", "HEAD:main", "side:side"); err == nil || !strings.Contains(out, "GH013") {
		t.Fatalf("mixed push: %v\n%s", err, out)
	}
	if f.remoteRef(t, "refs/heads/side") != "" {
		t.Fatal("a ref of a refused push moved")
	}

	// The admin bypasses (repository role 5).
	m := f.clone(t, "mona", f.token)
	mustGit(t, m, "fetch", "-q", "origin")
	mustGit(t, m, "reset", "-q", "--hard", "origin/main")
	mustGit(t, m, "commit", "-q", "--amend", "-m", "mona rewrites")
	if out, err := git(t, m, "push", "--force", "origin", "HEAD:main"); err != nil {
		t.Fatalf("force push by a bypass actor: %v\n%s", err, out)
	}
	if out, err := git(t, m, "push", "origin", ":release/1"); err != nil {
		t.Fatalf("deletion by a bypass actor: %v\n%s", err, out)
	}

	// A user bypass actor passes too.
	id := rs.GetID()
	f.e.Must(200, "PUT", "/repos/mona/app/rulesets/"+strconv.FormatInt(id, 10), f.token, map[string]any{
		"bypass_actors": []any{map[string]any{"actor_id": walt.ID, "actor_type": "User", "bypass_mode": "always"}}})
	if out, err := git(t, w, "push", "--force", "origin", rewritten+":refs/heads/main"); err != nil {
		t.Fatalf("force push by a user bypass actor: %v\n%s", err, out)
	}
	// Evaluate mode refuses nothing (and the bypass list is empty again).
	f.e.Must(200, "PUT", "/repos/mona/app/rulesets/"+strconv.FormatInt(id, 10), f.token, map[string]any{
		"bypass_actors": []any{}, "enforcement": "evaluate"})
	mustGit(t, w, "commit", "-q", "--amend", "-m", "again")
	if out, err := git(t, w, "push", "--force", "origin", "HEAD:main"); err != nil {
		t.Fatalf("force push under an evaluate ruleset: %v\n%s", err, out)
	}
}

// Pattern, creation and pull request rules on pushes.
func TestPushRules(t *testing.T) {
	f := newFixture(t)
	_, waltTok := f.user(t, "walt", authz.Write)
	f.create(t, github.RepositoryRuleset{Name: "main via pulls", Enforcement: "active", Conditions: onDefault(),
		Rules: &github.RepositoryRulesetRules{PullRequest: &github.PullRequestRuleParameters{}}})
	f.create(t, github.RepositoryRuleset{Name: "features", Enforcement: "active",
		Conditions: &github.RepositoryRulesetConditions{RefName: &github.RepositoryRulesetRefConditionParameters{
			Include: []string{"refs/heads/feature*"}, Exclude: []string{}}},
		Rules: &github.RepositoryRulesetRules{
			CommitMessagePattern:  &github.PatternRuleParameters{Operator: github.PatternRuleOperatorRegex, Pattern: `^(feat|fix): `},
			RequiredLinearHistory: &github.EmptyRuleParameters{}}})
	f.create(t, github.RepositoryRuleset{Name: "no wip", Enforcement: "active",
		Conditions: &github.RepositoryRulesetConditions{RefName: &github.RepositoryRulesetRefConditionParameters{
			Include: []string{"~ALL"}, Exclude: []string{"~DEFAULT_BRANCH", "refs/heads/feature*"}}},
		Rules: &github.RepositoryRulesetRules{Creation: &github.EmptyRuleParameters{},
			BranchNamePattern: &github.PatternRuleParameters{Operator: github.PatternRuleOperatorStartsWith, Pattern: "wip/", Negate: github.Ptr(true)}}})

	w := f.clone(t, "walt", waltTok)
	commitFile(t, w, "a.txt", "fix: a")
	out, err := git(t, w, "push", "origin", "HEAD:main")
	if err == nil || !strings.Contains(out, "- Changes must be made through a pull request.") {
		t.Fatalf("push to main: %v\n%s", err, out)
	}
	// The feature branch takes conforming commits, not others.
	if out, err := git(t, w, "push", "origin", "HEAD:feature"); err != nil {
		t.Fatalf("conforming push: %v\n%s", err, out)
	}
	bad := commitFile(t, w, "b.txt", "wip stuff")
	out, err = git(t, w, "push", "origin", "HEAD:feature")
	if err == nil || !strings.Contains(out, "Commit message must match a given regex pattern: ^(feat|fix): ") || !strings.Contains(out, bad) {
		t.Fatalf("nonconforming push: %v\n%s", err, out)
	}
	// No merge commits on features.
	mustGit(t, w, "reset", "-q", "--hard", "HEAD~1")
	mustGit(t, w, "checkout", "-q", "-b", "other", "HEAD~1")
	commitFile(t, w, "c.txt", "feat: c")
	mustGit(t, w, "checkout", "-q", "-")
	mustGit(t, w, "merge", "-q", "--no-ff", "-m", "feat: merge other", "other")
	if out, err := git(t, w, "push", "origin", "HEAD:feature"); err == nil || !strings.Contains(out, "This branch must not contain merge commits.") {
		t.Fatalf("merge commit push: %v\n%s", err, out)
	}
	// Other branches may not be created, and never named wip/.
	out, err = git(t, w, "push", "origin", "HEAD~1:refs/heads/wip/x")
	if err == nil || !strings.Contains(out, "Cannot create ref due to creations being restricted.") ||
		!strings.Contains(out, "Branch name must not start with a matching pattern: wip/") {
		t.Fatalf("wip branch: %v\n%s", err, out)
	}
	// Tags are not branches: no branch ruleset applies to them.
	if out, err := git(t, w, "push", "origin", "HEAD~1:refs/tags/v1"); err != nil {
		t.Fatalf("tag push: %v\n%s", err, out)
	}
}

// The git refs API and the contents API refuse what the rules refuse,
// with GitHub's statuses and words.
func TestRESTEnforcement(t *testing.T) {
	f := newFixture(t)
	_, waltTok := f.user(t, "walt", authz.Write)
	walt := f.e.GitHub(waltTok)
	f.branch(t, "app", "release/1")
	f.create(t, github.RepositoryRuleset{Name: "protect", Enforcement: "active",
		BypassActors: []*github.BypassActor{{ActorID: github.Ptr(int64(5)), ActorType: github.Ptr(github.BypassActorTypeRepositoryRole)}},
		Conditions: &github.RepositoryRulesetConditions{RefName: &github.RepositoryRulesetRefConditionParameters{
			Include: []string{"~DEFAULT_BRANCH", "release/*"}, Exclude: []string{}}},
		Rules: &github.RepositoryRulesetRules{Deletion: &github.EmptyRuleParameters{}, NonFastForward: &github.EmptyRuleParameters{},
			PullRequest: &github.PullRequestRuleParameters{}}})

	// Contents writes to main: 409.
	_, _, err := walt.Repositories.CreateFile(ctx, "mona", "app", "x.txt", &github.RepositoryContentFileOptions{
		Message: github.Ptr("x"), Content: []byte("x"), Branch: github.Ptr("main")})
	if code, msg := status(err); code != http.StatusConflict || msg != "Repository rule violations found\n\nChanges must be made through a pull request.\n\n" {
		t.Fatalf("contents write to main: %d %q", code, msg)
	}
	head := f.write(t, walt, "feature", "y.txt") // elsewhere fine
	// Refs API: deletion and a forced move refused with 422.
	resp := f.e.Do("DELETE", "/repos/mona/app/git/refs/heads/release/1", waltTok, nil)
	if resp.StatusCode != 422 || !strings.Contains(string(resp.Body), `Repository rule violations found\n\nCannot delete this branch.\n\n`) {
		t.Fatalf("delete release/1: %d %s", resp.StatusCode, resp.Body)
	}
	resp = f.e.Do("PATCH", "/repos/mona/app/git/refs/heads/release/1", waltTok, map[string]any{"sha": head, "force": true})
	if resp.StatusCode != 422 || !strings.Contains(string(resp.Body), "Changes must be made through a pull request.") {
		t.Fatalf("update release/1: %d %s", resp.StatusCode, resp.Body)
	}
	// The bypassing admin may.
	f.e.Must(200, "PATCH", "/repos/mona/app/git/refs/heads/release/1", f.token, map[string]any{"sha": head, "force": true})
	f.e.Must(204, "DELETE", "/repos/mona/app/git/refs/heads/release/1", f.token, nil)
	f.write(t, f.gh, "main", "z.txt")
}

// Pull request merges meet the pull_request and required_status_checks
// rules (with classic protection's words), unless the caller bypasses.
func TestMergeGate(t *testing.T) {
	f := newFixture(t)
	_, waltTok := f.user(t, "walt", authz.Write)
	_, wendyTok := f.user(t, "wendy", authz.Write)
	walt, wendy := f.e.GitHub(waltTok), f.e.GitHub(wendyTok)
	rs := f.create(t, github.RepositoryRuleset{Name: "main", Enforcement: "active", Conditions: onDefault(),
		Rules: &github.RepositoryRulesetRules{
			PullRequest: &github.PullRequestRuleParameters{RequiredApprovingReviewCount: 1},
			RequiredStatusChecks: &github.RequiredStatusChecksRuleParameters{
				RequiredStatusChecks: []*github.RuleStatusCheck{{Context: "ci"}}}}})

	head := f.write(t, walt, "feature", "a.txt")
	pr, _, err := walt.PullRequests.Create(ctx, "mona", "app", github.CreatePullRequest{Title: github.Ptr("gated"), Head: "feature", Base: "main"})
	if err != nil {
		t.Fatal(err)
	}
	n := pr.GetNumber()
	merge := func(gh *github.Client) (int, string) {
		_, _, err := gh.PullRequests.Merge(ctx, "mona", "app", n, "", nil)
		return status(err)
	}
	if code, msg := merge(walt); code != 405 || msg != "At least 1 approving review is required by reviewers with write access." {
		t.Fatalf("unapproved: %d %q", code, msg)
	}
	// Admins are held to rulesets (unlike classic protection without
	// enforce_admins) unless they are bypass actors.
	if code, msg := merge(f.gh); code != 405 || msg != "At least 1 approving review is required by reviewers with write access." {
		t.Fatalf("admin, unapproved: %d %q", code, msg)
	}
	f.e.RunJobs()
	if got, _, _ := walt.PullRequests.Get(ctx, "mona", "app", n); got.GetMergeableState() != "blocked" {
		t.Fatalf("mergeable_state %q, want blocked", got.GetMergeableState())
	}
	if _, _, err := wendy.PullRequests.CreateReview(ctx, "mona", "app", n, &github.PullRequestReviewRequest{Event: github.Ptr("APPROVE")}); err != nil {
		t.Fatal(err)
	}
	if code, msg := merge(walt); code != 405 || msg != `Required status check "ci" is expected.` {
		t.Fatalf("approved, no ci: %d %q", code, msg)
	}
	// A bypass actor in pull_request mode merges; they still cannot push.
	f.e.Must(200, "PUT", "/repos/mona/app/rulesets/"+strconv.FormatInt(rs.GetID(), 10), f.token, map[string]any{
		"bypass_actors": []any{map[string]any{"actor_id": 5, "actor_type": "RepositoryRole", "bypass_mode": "pull_request"}}})
	got, _, err := f.gh.Repositories.GetRuleset(ctx, "mona", "app", rs.GetID(), true)
	if err != nil || *got.CurrentUserCanBypass != "pull_requests_only" {
		t.Fatalf("current_user_can_bypass: %+v %v", got, err)
	}
	if _, _, err := f.gh.Repositories.CreateFile(ctx, "mona", "app", "direct.txt", &github.RepositoryContentFileOptions{
		Message: github.Ptr("direct"), Content: []byte("x"), Branch: github.Ptr("main")}); err == nil {
		t.Fatal("a pull_request-mode bypass actor pushed to main directly")
	}
	if _, _, err := f.gh.Repositories.CreateStatus(ctx, "mona", "app", head, github.RepoStatus{State: github.Ptr("success"), Context: github.Ptr("ci")}); err != nil {
		t.Fatal(err)
	}
	if code, msg := merge(walt); code != 200 {
		t.Fatalf("approved and green: %d %q", code, msg)
	}

	// A second pull request: the admin bypasses in pull_request mode.
	f.write(t, walt, "feature", "b.txt")
	pr2, _, err := walt.PullRequests.Create(ctx, "mona", "app", github.CreatePullRequest{Title: github.Ptr("second"), Head: "feature", Base: "main"})
	if err != nil {
		t.Fatal(err)
	}
	n = pr2.GetNumber()
	if code, msg := merge(walt); code != 405 || msg != "At least 1 approving review is required by reviewers with write access." {
		t.Fatalf("second, writer: %d %q", code, msg)
	}
	if code, msg := merge(f.gh); code != 200 {
		t.Fatalf("second, bypassing admin: %d %q", code, msg)
	}
}
