package protection_test

import (
	"net/http"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-github/v92/github"

	"github.com/hubd/hubd/internal/authz"
)

func TestProtectionLifecycle(t *testing.T) {
	f := newFixture(t)
	gh := f.gh

	// Nothing protected yet; a missing branch says so.
	_, _, err := gh.Repositories.GetBranchProtection(ctx, "mona", "app", "main")
	if code, msg := status(err); code != 404 || msg != "Branch not protected" {
		t.Fatalf("unprotected: %d %q", code, msg)
	}
	_, _, err = gh.Repositories.GetBranchProtection(ctx, "mona", "app", "nope")
	if code, msg := status(err); code != 404 || msg != "Branch not found" {
		t.Fatalf("missing branch: %d %q", code, msg)
	}

	p, _, err := gh.Repositories.UpdateBranchProtection(ctx, "mona", "app", "main", &github.ProtectionRequest{
		RequiredStatusChecks: &github.RequiredStatusChecks{Strict: true, Contexts: &[]string{"lint", "ci", "ci"}},
		RequiredPullRequestReviews: &github.PullRequestReviewsEnforcementRequest{DismissStaleReviews: true,
			RequiredApprovingReviewCount: 2},
		EnforceAdmins:    true,
		AllowForcePushes: github.Ptr(true),
	})
	if err != nil {
		t.Fatal(err)
	}
	rsc := p.GetRequiredStatusChecks()
	if !rsc.Strict || !slices.Equal(*rsc.Contexts, []string{"ci", "lint"}) || len(*rsc.Checks) != 2 || (*rsc.Checks)[0].AppID != nil ||
		!strings.HasSuffix(rsc.GetContextsURL(), "/branches/main/protection/required_status_checks/contexts") {
		t.Fatalf("status checks: %+v", rsc)
	}
	rv := p.GetRequiredPullRequestReviews()
	if rv.RequiredApprovingReviewCount != 2 || !rv.DismissStaleReviews || rv.RequireCodeOwnerReviews {
		t.Fatalf("reviews: %+v", rv)
	}
	if !p.GetEnforceAdmins().Enabled || !p.GetAllowForcePushes().Enabled || p.GetAllowDeletions().Enabled ||
		p.GetRequireLinearHistory().Enabled || p.Restrictions != nil || p.GetURL() != f.e.API+"/repos/mona/app/branches/main/protection" {
		t.Fatalf("protection: %+v", p)
	}
	// Merges read the contexts where they always did.
	if got := f.requiredContexts(t, "main"); !slices.Equal(got, []string{"ci", "lint"}) {
		t.Fatalf("required_contexts: %v", got)
	}
	bp, err := f.e.Store.R().BranchProtection(ctx, f.repoID, "main")
	if err != nil || bp == nil || !bp.Strict || !bp.EnforceAdmins || bp.RequiredApprovals != 2 || !bp.DismissStaleReviews {
		t.Fatalf("stored: %+v %v", bp, err)
	}
	if bp, err := f.e.Store.R().BranchProtection(ctx, f.repoID, "feature"); bp != nil || err != nil {
		t.Fatalf("feature: %+v %v", bp, err)
	}

	got, _, err := gh.Repositories.GetBranchProtection(ctx, "mona", "app", "main")
	if err != nil || got.GetRequiredPullRequestReviews().RequiredApprovingReviewCount != 2 || !got.GetEnforceAdmins().Enabled ||
		!slices.Equal(*got.GetRequiredStatusChecks().Contexts, []string{"ci", "lint"}) {
		t.Fatalf("get: %+v %v", got, err)
	}

	// Status checks and their contexts.
	sc, _, err := gh.Repositories.GetRequiredStatusChecks(ctx, "mona", "app", "main")
	if err != nil || !sc.Strict || !slices.Equal(*sc.Contexts, []string{"ci", "lint"}) {
		t.Fatalf("get status checks: %+v %v", sc, err)
	}
	sc, _, err = gh.Repositories.UpdateRequiredStatusChecks(ctx, "mona", "app", "main", &github.RequiredStatusChecksRequest{
		Strict: github.Ptr(false), Checks: []*github.RequiredStatusCheck{{Context: "build", AppID: github.Ptr(int64(-1))}, {Context: "test"}}})
	if err != nil || sc.Strict || !slices.Equal(*sc.Contexts, []string{"build", "test"}) {
		t.Fatalf("patch status checks: %+v %v", sc, err)
	}
	names, _, err := gh.Repositories.ListRequiredStatusChecksContexts(ctx, "mona", "app", "main")
	if err != nil || !slices.Equal(names, []string{"build", "test"}) {
		t.Fatalf("contexts: %v %v", names, err)
	}
	ctxPath := protectionPath("app", "main") + "/required_status_checks/contexts"
	var list []string
	f.e.Must(200, "POST", ctxPath, f.token, map[string]any{"contexts": []string{"a", "build"}}).JSON(t, &list)
	if !slices.Equal(list, []string{"a", "build", "test"}) {
		t.Fatalf("add: %v", list)
	}
	f.e.Must(200, "DELETE", ctxPath, f.token, map[string]any{"contexts": []string{"build", "zzz"}}).JSON(t, &list)
	if !slices.Equal(list, []string{"a", "test"}) {
		t.Fatalf("remove: %v", list)
	}
	f.e.Must(200, "PUT", ctxPath, f.token, map[string]any{"contexts": []string{"ci"}}).JSON(t, &list)
	if !slices.Equal(list, []string{"ci"}) || !slices.Equal(f.requiredContexts(t, "main"), []string{"ci"}) {
		t.Fatalf("set: %v", list)
	}

	// Admin enforcement.
	if _, err := gh.Repositories.RemoveAdminEnforcement(ctx, "mona", "app", "main"); err != nil {
		t.Fatal(err)
	}
	ae, _, err := gh.Repositories.GetAdminEnforcement(ctx, "mona", "app", "main")
	if err != nil || ae.Enabled || !strings.HasSuffix(ae.GetURL(), "/protection/enforce_admins") {
		t.Fatalf("admin enforcement off: %+v %v", ae, err)
	}
	ae, _, err = gh.Repositories.AddAdminEnforcement(ctx, "mona", "app", "main")
	if err != nil || !ae.Enabled {
		t.Fatalf("admin enforcement on: %+v %v", ae, err)
	}

	// Reviews.
	pr, _, err := gh.Repositories.UpdatePullRequestReviewEnforcement(ctx, "mona", "app", "main",
		&github.PullRequestReviewsEnforcementUpdate{RequiredApprovingReviewCount: 1, DismissStaleReviews: github.Ptr(false)})
	if err != nil || pr.RequiredApprovingReviewCount != 1 || pr.DismissStaleReviews {
		t.Fatalf("patch reviews: %+v %v", pr, err)
	}
	pr, _, err = gh.Repositories.GetPullRequestReviewEnforcement(ctx, "mona", "app", "main")
	if err != nil || pr.RequiredApprovingReviewCount != 1 {
		t.Fatalf("get reviews: %+v %v", pr, err)
	}
	if _, err := gh.Repositories.RemovePullRequestReviewEnforcement(ctx, "mona", "app", "main"); err != nil {
		t.Fatal(err)
	}
	_, _, err = gh.Repositories.GetPullRequestReviewEnforcement(ctx, "mona", "app", "main")
	if code, msg := status(err); code != 404 || msg != "Required pull request reviews not enabled" {
		t.Fatalf("reviews off: %d %q", code, msg)
	}
	_, err = gh.Repositories.RemovePullRequestReviewEnforcement(ctx, "mona", "app", "main")
	if code, _ := status(err); code != 404 {
		t.Fatalf("remove reviews twice: %d", code)
	}
	// PATCH turns reviews back on, with GitHub's default of one approval.
	pr, _, err = gh.Repositories.UpdatePullRequestReviewEnforcement(ctx, "mona", "app", "main",
		&github.PullRequestReviewsEnforcementUpdate{RequiredApprovingReviewCount: 3})
	if err != nil || pr.RequiredApprovingReviewCount != 3 {
		t.Fatalf("reviews on again: %+v %v", pr, err)
	}

	// Status checks off: the contexts go too.
	if _, err := gh.Repositories.RemoveRequiredStatusChecks(ctx, "mona", "app", "main"); err != nil {
		t.Fatal(err)
	}
	_, _, err = gh.Repositories.GetRequiredStatusChecks(ctx, "mona", "app", "main")
	if code, msg := status(err); code != 404 || msg != "Required status checks not enabled" {
		t.Fatalf("status checks off: %d %q", code, msg)
	}
	if got := f.requiredContexts(t, "main"); len(got) != 0 {
		t.Fatalf("contexts left: %v", got)
	}
	f.e.Must(404, "GET", ctxPath, f.token, nil)
	got, _, err = gh.Repositories.GetBranchProtection(ctx, "mona", "app", "main")
	if err != nil || got.RequiredStatusChecks != nil || got.GetRequiredPullRequestReviews().RequiredApprovingReviewCount != 3 {
		t.Fatalf("after removing checks: %+v %v", got, err)
	}

	// Removing the protection.
	if _, err := gh.Repositories.RemoveBranchProtection(ctx, "mona", "app", "main"); err != nil {
		t.Fatal(err)
	}
	_, _, err = gh.Repositories.GetBranchProtection(ctx, "mona", "app", "main")
	if code, msg := status(err); code != 404 || msg != "Branch not protected" {
		t.Fatalf("after delete: %d %q", code, msg)
	}
	_, err = gh.Repositories.RemoveBranchProtection(ctx, "mona", "app", "main")
	if code, msg := status(err); code != 404 || msg != "Branch not protected" {
		t.Fatalf("delete twice: %d %q", code, msg)
	}
	if bp, err := f.e.Store.R().BranchProtection(ctx, f.repoID, "main"); bp != nil || err != nil {
		t.Fatalf("row left: %+v %v", bp, err)
	}
}

// Branch names with slashes are one escaped path segment.
func TestProtectionSlashBranch(t *testing.T) {
	f := newFixture(t)
	f.branch(t, "release/1.0")
	_, _, err := f.gh.Repositories.UpdateBranchProtection(ctx, "mona", "app", "release/1.0", &github.ProtectionRequest{
		RequiredStatusChecks: &github.RequiredStatusChecks{Contexts: &[]string{"ci"}}})
	if err != nil {
		t.Fatal(err)
	}
	p, _, err := f.gh.Repositories.GetBranchProtection(ctx, "mona", "app", "release/1.0")
	if err != nil || !strings.HasSuffix(p.GetURL(), "/branches/release%2F1.0/protection") && !strings.HasSuffix(p.GetURL(), "/branches/release/1.0/protection") {
		t.Fatalf("get: %+v %v", p, err)
	}
	if got := f.requiredContexts(t, "release/1.0"); !slices.Equal(got, []string{"ci"}) {
		t.Fatalf("contexts: %v", got)
	}
}

func TestProtectionAccess(t *testing.T) {
	f := newFixture(t)
	_, writer := f.user(t, "wendy", authz.Write)
	_, reader := f.user(t, "rita", authz.Read)
	_, maintainer := f.user(t, "max", authz.Maintain)
	_, outsider := f.user(t, "otto", authz.None)
	put := map[string]any{"required_status_checks": nil, "enforce_admins": nil, "required_pull_request_reviews": nil, "restrictions": nil}
	f.e.Must(200, "PUT", protectionPath("app", "main"), f.token, put)
	for _, tc := range []struct {
		name, method, path, token string
		want                      int
		msg                       string
	}{
		{"writer reads", "GET", protectionPath("app", "main"), writer, 403, "Must have admin rights to Repository."},
		{"maintainer writes", "PUT", protectionPath("app", "main"), maintainer, 403, "Must have admin rights to Repository."},
		{"reader removes", "DELETE", protectionPath("app", "main"), reader, 403, "Must have admin rights to Repository."},
		{"outsider on public", "GET", protectionPath("app", "main") + "/enforce_admins", outsider, 403, "Must have admin rights to Repository."},
		{"outsider on private", "GET", protectionPath("secret", "main"), outsider, 404, "Not Found"},
		{"anonymous", "GET", protectionPath("app", "main"), "", 401, "Requires authentication"},
		{"writer edits contexts", "POST", protectionPath("app", "main") + "/required_status_checks/contexts", writer, 403, "Must have admin rights to Repository."},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var body any
			if tc.method != "GET" && tc.method != "DELETE" {
				body = put
				if strings.HasSuffix(tc.path, "/contexts") {
					body = map[string]any{"contexts": []string{"x"}}
				}
			}
			r := f.e.Do(tc.method, tc.path, tc.token, body)
			if r.StatusCode != tc.want || !strings.Contains(string(r.Body), tc.msg) {
				t.Fatalf("%d %s, want %d %q", r.StatusCode, r.Body, tc.want, tc.msg)
			}
		})
	}
	// Still protected, untouched.
	f.e.Must(200, "GET", protectionPath("app", "main"), f.token, nil)
}

func TestProtectionNotProtected(t *testing.T) {
	f := newFixture(t)
	base := protectionPath("app", "feature")
	ctxBody := map[string]any{"contexts": []string{"ci"}}
	for _, tc := range []struct {
		method, sub string
		body        any
	}{
		{"GET", "", nil},
		{"DELETE", "", nil},
		{"GET", "/required_status_checks", nil},
		{"PATCH", "/required_status_checks", map[string]any{"strict": true}},
		{"DELETE", "/required_status_checks", nil},
		{"GET", "/required_status_checks/contexts", nil},
		{"POST", "/required_status_checks/contexts", ctxBody},
		{"PUT", "/required_status_checks/contexts", ctxBody},
		{"DELETE", "/required_status_checks/contexts", ctxBody},
		{"GET", "/enforce_admins", nil},
		{"POST", "/enforce_admins", nil},
		{"DELETE", "/enforce_admins", nil},
		{"GET", "/required_pull_request_reviews", nil},
		{"PATCH", "/required_pull_request_reviews", map[string]any{"required_approving_review_count": 1}},
		{"DELETE", "/required_pull_request_reviews", nil},
	} {
		t.Run(tc.method+tc.sub, func(t *testing.T) {
			r := f.e.Do(tc.method, base+tc.sub, f.token, tc.body)
			if r.StatusCode != 404 || !strings.Contains(string(r.Body), `"Branch not protected"`) {
				t.Fatalf("unprotected: %d %s", r.StatusCode, r.Body)
			}
			r = f.e.Do(tc.method, protectionPath("app", "gone")+tc.sub, f.token, tc.body)
			if r.StatusCode != 404 || !strings.Contains(string(r.Body), `"Branch not found"`) {
				t.Fatalf("missing branch: %d %s", r.StatusCode, r.Body)
			}
		})
	}
	// Nothing was created on the way.
	if bp, err := f.e.Store.R().BranchProtection(ctx, f.repoID, "feature"); bp != nil || err != nil {
		t.Fatalf("protected: %+v %v", bp, err)
	}
	r := f.e.Do("PUT", protectionPath("app", "gone"), f.token,
		map[string]any{"required_status_checks": nil, "enforce_admins": nil, "required_pull_request_reviews": nil, "restrictions": nil})
	if r.StatusCode != 404 || !strings.Contains(string(r.Body), `"Branch not found"`) {
		t.Fatalf("put on a missing branch: %d %s", r.StatusCode, r.Body)
	}
}

// Settings hubd does not enforce are refused, naming the field; nothing is
// stored.
func TestProtectionValidation(t *testing.T) {
	f := newFixture(t)
	body := func(mod func(m map[string]any)) map[string]any {
		m := map[string]any{
			"required_status_checks":        map[string]any{"strict": false, "contexts": []string{"ci"}},
			"enforce_admins":                false,
			"required_pull_request_reviews": map[string]any{"required_approving_review_count": 1},
			"restrictions":                  nil,
		}
		mod(m)
		return m
	}
	reviews := func(k string, v any) func(m map[string]any) {
		return func(m map[string]any) { m["required_pull_request_reviews"].(map[string]any)[k] = v }
	}
	set := func(k string, v any) func(m map[string]any) { return func(m map[string]any) { m[k] = v } }
	for _, tc := range []struct {
		name string
		body map[string]any
		want string // in the body
	}{
		{"seven approvals", body(reviews("required_approving_review_count", 7)), "7 must be less than or equal to 6."},
		{"negative approvals", body(reviews("required_approving_review_count", -1)), "must be greater than or equal to 0"},
		{"last push approval", body(reviews("require_last_push_approval", true)), "required_pull_request_reviews.require_last_push_approval"},
		{"dismissal restrictions on a user's repository", body(reviews("dismissal_restrictions", map[string]any{"users": []string{"mona"}})),
			"Dismissal restrictions are supported only for repositories owned by an organization."},
		{"bypass by a stranger", body(reviews("bypass_pull_request_allowances", map[string]any{"users": []string{"nobody"}})), "User nobody could not be found"},
		{"restrictions on a user's repository", body(set("restrictions", map[string]any{"users": []string{}, "teams": []string{}})),
			"Only organization repositories can have users and team restrictions"},
		{"linear history", body(set("required_linear_history", true)), "required_linear_history"},
		{"lock branch", body(set("lock_branch", true)), "lock_branch"},
		{"conversation resolution", body(set("required_conversation_resolution", true)), "required_conversation_resolution"},
		{"block creations", body(set("block_creations", true)), "block_creations"},
		{"fork syncing", body(set("allow_fork_syncing", true)), "allow_fork_syncing"},
		{"app id", body(set("required_status_checks", map[string]any{"strict": true, "contexts": []string{},
			"checks": []map[string]any{{"context": "ci", "app_id": 42}}})), "required_status_checks.checks.app_id"},
		{"missing key", map[string]any{"enforce_admins": true}, "Invalid request"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := f.e.Do("PUT", protectionPath("app", "main"), f.token, tc.body)
			if r.StatusCode != 422 || !strings.Contains(string(r.Body), tc.want) {
				t.Fatalf("%d %s, want 422 with %q", r.StatusCode, r.Body, tc.want)
			}
		})
	}
	if bp, err := f.e.Store.R().BranchProtection(ctx, f.repoID, "main"); bp != nil || err != nil {
		t.Fatalf("stored: %+v %v", bp, err)
	}
	// The defaults of those settings (false, empty) are accepted.
	ok := body(func(m map[string]any) {
		m["required_linear_history"], m["lock_branch"], m["allow_deletions"] = false, false, true
		m["required_pull_request_reviews"] = map[string]any{"required_approving_review_count": 0, "require_code_owner_reviews": false,
			"dismissal_restrictions": map[string]any{}, "bypass_pull_request_allowances": map[string]any{"users": []string{}}}
	})
	var got map[string]any
	f.e.Must(200, "PUT", protectionPath("app", "main"), f.token, ok).JSON(t, &got)
	if got["allow_deletions"].(map[string]any)["enabled"] != true ||
		got["required_pull_request_reviews"].(map[string]any)["required_approving_review_count"] != float64(0) {
		t.Fatalf("accepted: %v", got)
	}
	// The sub-resources validate the same way.
	r := f.e.Do("PATCH", protectionPath("app", "main")+"/required_pull_request_reviews", f.token, map[string]any{"required_approving_review_count": 9})
	if r.StatusCode != 422 {
		t.Fatalf("patch reviews 9: %d %s", r.StatusCode, r.Body)
	}
	r = f.e.Do("PATCH", protectionPath("app", "main")+"/required_pull_request_reviews", f.token, map[string]any{"require_last_push_approval": true})
	if r.StatusCode != 422 || !strings.Contains(string(r.Body), "require_last_push_approval") {
		t.Fatalf("patch last push approval: %d %s", r.StatusCode, r.Body)
	}
	r = f.e.Do("PATCH", protectionPath("app", "main")+"/required_status_checks", f.token,
		map[string]any{"checks": []map[string]any{{"context": "x", "app_id": 7}}})
	if r.StatusCode != 422 || !strings.Contains(string(r.Body), "app_id") {
		t.Fatalf("patch app id: %d %s", r.StatusCode, r.Body)
	}
	if got := f.requiredContexts(t, "main"); !slices.Equal(got, []string{"ci"}) {
		t.Fatalf("contexts changed by a refused request: %v", got)
	}
	_ = http.StatusOK
}
