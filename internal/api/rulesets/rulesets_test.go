package rulesets_test

import (
	"net/http"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-github/v92/github"

	"github.com/hubd/hubd/internal/apitest"
	"github.com/hubd/hubd/internal/authz"
)

func TestRepoRulesetCRUD(t *testing.T) {
	f := newFixture(t)
	_, readTok := f.user(t, "rita", authz.Read)
	_, writeTok := f.user(t, "walt", authz.Write)

	rs := f.create(t, github.RepositoryRuleset{
		Name: "protect main", Target: github.Ptr(github.RulesetTargetBranch), Enforcement: github.RulesetEnforcementActive,
		BypassActors: []*github.BypassActor{{ActorID: github.Ptr(int64(5)), ActorType: github.Ptr(github.BypassActorTypeRepositoryRole),
			BypassMode: github.Ptr(github.BypassModeAlways)}},
		Conditions: &github.RepositoryRulesetConditions{RefName: &github.RepositoryRulesetRefConditionParameters{
			Include: []string{"~DEFAULT_BRANCH", "refs/heads/release/*"}, Exclude: []string{"refs/heads/release/old"}}},
		Rules: &github.RepositoryRulesetRules{
			Deletion: &github.EmptyRuleParameters{}, NonFastForward: &github.EmptyRuleParameters{},
			Update: &github.UpdateRuleParameters{UpdateAllowsFetchAndMerge: true},
			PullRequest: &github.PullRequestRuleParameters{RequiredApprovingReviewCount: 2, DismissStaleReviewsOnPush: true,
				AllowedMergeMethods: []github.PullRequestMergeMethod{"merge", "squash", "rebase"}},
			RequiredStatusChecks: &github.RequiredStatusChecksRuleParameters{StrictRequiredStatusChecksPolicy: true,
				RequiredStatusChecks: []*github.RuleStatusCheck{{Context: "ci"}}},
			CommitMessagePattern: &github.PatternRuleParameters{Operator: github.PatternRuleOperatorStartsWith, Pattern: "feat"},
			RequiredSignatures:   &github.EmptyRuleParameters{},
		},
	})
	if rs.GetID() == 0 || rs.Source != "mona/app" || *rs.SourceType != github.RulesetSourceTypeRepository ||
		rs.GetNodeID() == "" || rs.GetLinks().GetSelf().GetHRef() != f.e.API+"/repos/mona/app/rulesets/"+strconv.FormatInt(rs.GetID(), 10) ||
		rs.CreatedAt == nil || rs.UpdatedAt == nil {
		t.Fatalf("created: %+v", rs)
	}
	if len(rs.BypassActors) != 1 || rs.BypassActors[0].GetActorID() != 5 || *rs.CurrentUserCanBypass != github.BypassModeAlways {
		t.Fatalf("bypass: %+v can %v", rs.BypassActors, rs.CurrentUserCanBypass)
	}
	r := rs.Rules
	if r.Deletion == nil || r.NonFastForward == nil || r.Update == nil || !r.Update.UpdateAllowsFetchAndMerge ||
		r.PullRequest == nil || r.PullRequest.RequiredApprovingReviewCount != 2 || !r.PullRequest.DismissStaleReviewsOnPush ||
		r.RequiredStatusChecks == nil || len(r.RequiredStatusChecks.RequiredStatusChecks) != 1 || !r.RequiredStatusChecks.StrictRequiredStatusChecksPolicy ||
		r.CommitMessagePattern == nil || r.CommitMessagePattern.Pattern != "feat" || r.RequiredSignatures == nil || r.Creation != nil {
		t.Fatalf("rules: %+v", r)
	}
	id := rs.GetID()

	// Readers list and read rulesets without their bypass list.
	rita := f.e.GitHub(readTok)
	got, _, err := rita.Repositories.GetRuleset(ctx, "mona", "app", id, true)
	if err != nil || got.Name != "protect main" || got.BypassActors != nil || *got.CurrentUserCanBypass != github.BypassModeNever {
		t.Fatalf("reader get: %+v %v", got, err)
	}
	list, _, err := rita.Repositories.GetAllRulesets(ctx, "mona", "app", nil)
	if err != nil || len(list) != 1 || list[0].GetID() != id {
		t.Fatalf("reader list: %v %v", list, err)
	}
	// Writers may not change them; strangers to a private repository find
	// nothing.
	for _, tc := range []struct {
		name  string
		tok   string
		do    func(gh *github.Client) error
		code  int
		words string
	}{
		{"writer creates", writeTok, func(gh *github.Client) error {
			_, _, err := gh.Repositories.CreateRuleset(ctx, "mona", "app", github.RepositoryRuleset{Name: "x", Enforcement: "active"})
			return err
		}, 403, "Must have admin rights to Repository."},
		{"writer updates", writeTok, func(gh *github.Client) error {
			_, _, err := gh.Repositories.UpdateRuleset(ctx, "mona", "app", id, github.RepositoryRuleset{Name: "x", Enforcement: "active"})
			return err
		}, 403, "Must have admin rights to Repository."},
		{"reader deletes", readTok, func(gh *github.Client) error {
			_, err := gh.Repositories.DeleteRuleset(ctx, "mona", "app", id)
			return err
		}, 403, "Must have admin rights to Repository."},
		{"anonymous creates", "", func(gh *github.Client) error {
			_, _, err := gh.Repositories.CreateRuleset(ctx, "mona", "app", github.RepositoryRuleset{Name: "x", Enforcement: "active"})
			return err
		}, 401, "Requires authentication"},
		{"missing ruleset", f.token, func(gh *github.Client) error {
			_, _, err := gh.Repositories.GetRuleset(ctx, "mona", "app", id+100, true)
			return err
		}, 404, "Not Found"},
	} {
		code, msg := status(tc.do(f.e.GitHub(tc.tok)))
		if code != tc.code || msg != tc.words {
			t.Errorf("%s: %d %q, want %d %q", tc.name, code, msg, tc.code, tc.words)
		}
	}

	// PUT changes what it gives and keeps the rest.
	upd, _, err := f.gh.Repositories.UpdateRuleset(ctx, "mona", "app", id, github.RepositoryRuleset{Name: "protect main and releases",
		Enforcement: github.RulesetEnforcementEvaluate})
	if err != nil || upd.Name != "protect main and releases" || upd.Enforcement != github.RulesetEnforcementEvaluate ||
		upd.Rules == nil || upd.Rules.Deletion == nil || len(upd.BypassActors) != 1 || upd.Conditions.RefName.Include[1] != "refs/heads/release/*" {
		t.Fatalf("update: %+v %v", upd, err)
	}

	// A second ruleset for tags; targets filters the list.
	tags := f.create(t, github.RepositoryRuleset{Name: "tags", Target: github.Ptr(github.RulesetTargetTag), Enforcement: "active",
		Conditions: &github.RepositoryRulesetConditions{RefName: &github.RepositoryRulesetRefConditionParameters{Include: []string{"~ALL"}, Exclude: []string{}}},
		Rules:      &github.RepositoryRulesetRules{Deletion: &github.EmptyRuleParameters{}, TagNamePattern: &github.PatternRuleParameters{Operator: "starts_with", Pattern: "v"}}})
	var filtered []map[string]any
	f.e.Must(200, "GET", apitest.Query("/repos/mona/app/rulesets", "targets", "tag"), f.token, nil).JSON(t, &filtered)
	if len(filtered) != 1 || int64(filtered[0]["id"].(float64)) != tags.GetID() {
		t.Fatalf("targets=tag: %v", filtered)
	}
	// Pages: one per page, Link to the next.
	resp := f.e.Must(200, "GET", apitest.Query("/repos/mona/app/rulesets", "per_page", "1"), f.token, nil)
	if !strings.Contains(resp.Header.Get("Link"), `rel="next"`) || !strings.Contains(resp.Header.Get("Link"), "page=2") {
		t.Fatalf("link: %q", resp.Header.Get("Link"))
	}

	// Delete; then it is gone.
	if _, err := f.gh.Repositories.DeleteRuleset(ctx, "mona", "app", tags.GetID()); err != nil {
		t.Fatal(err)
	}
	if _, _, err := f.gh.Repositories.GetRuleset(ctx, "mona", "app", tags.GetID(), false); err == nil {
		t.Fatal("deleted ruleset still found")
	}
}

func TestRulesetValidation(t *testing.T) {
	f := newFixture(t)
	f.create(t, github.RepositoryRuleset{Name: "Taken", Enforcement: "active"})
	refs := map[string]any{"ref_name": map[string]any{"include": []string{"~ALL"}, "exclude": []string{}}}
	for _, tc := range []struct {
		name string
		body map[string]any
		want string
	}{
		{"name taken, other case", map[string]any{"name": "taken", "enforcement": "active"}, "Name must be unique"},
		{"branch rule in a push ruleset", map[string]any{"name": "p", "enforcement": "active", "target": "push",
			"rules": []any{map[string]any{"type": "deletion"}}}, "rule deletion does not apply to push rulesets"},
		{"unsupported rule", map[string]any{"name": "p", "enforcement": "active", "conditions": refs,
			"rules": []any{map[string]any{"type": "merge_queue", "parameters": map[string]any{"check_response_timeout_minutes": 5,
				"grouping_strategy": "ALLGREEN", "max_entries_to_build": 5, "max_entries_to_merge": 5, "merge_method": "MERGE",
				"min_entries_to_merge": 1, "min_entries_to_merge_wait_minutes": 1}}}}, "rule merge_queue is not supported"},
		{"last push approval", map[string]any{"name": "p", "enforcement": "active", "rules": []any{map[string]any{"type": "pull_request",
			"parameters": map[string]any{"required_approving_review_count": 1, "dismiss_stale_reviews_on_push": false, "require_code_owner_review": false,
				"require_last_push_approval": true, "required_review_thread_resolution": false}}}}, "require_last_push_approval is not supported"},
		{"bad regex", map[string]any{"name": "p", "enforcement": "active", "rules": []any{map[string]any{"type": "commit_message_pattern",
			"parameters": map[string]any{"operator": "regex", "pattern": "("}}}}, "invalid regular expression"},
		{"tag rule on branches", map[string]any{"name": "p", "enforcement": "active", "rules": []any{map[string]any{"type": "tag_name_pattern",
			"parameters": map[string]any{"operator": "starts_with", "pattern": "v"}}}}, "does not apply to branch rulesets"},
		{"twice the same rule", map[string]any{"name": "p", "enforcement": "active", "rules": []any{map[string]any{"type": "deletion"},
			map[string]any{"type": "deletion"}}}, "given more than once"},
		{"unknown role", map[string]any{"name": "p", "enforcement": "active", "bypass_actors": []any{map[string]any{"actor_id": 3,
			"actor_type": "RepositoryRole", "bypass_mode": "always"}}}, "repository role 3"},
		{"organization admin of a user's repository", map[string]any{"name": "p", "enforcement": "active", "bypass_actors": []any{
			map[string]any{"actor_type": "OrganizationAdmin", "bypass_mode": "always"}}}, "OrganizationAdmin does not apply"},
		{"repository name on a repository", map[string]any{"name": "p", "enforcement": "active", "conditions": map[string]any{
			"ref_name": map[string]any{"include": []string{"~ALL"}, "exclude": []string{}}, "repository_name": map[string]any{"include": []string{"~ALL"}, "exclude": []string{}}}},
			"repository_name applies to organization and enterprise rulesets only"},
	} {
		resp := f.e.Do("POST", "/repos/mona/app/rulesets", f.token, tc.body)
		if resp.StatusCode != http.StatusUnprocessableEntity || !strings.Contains(string(resp.Body), tc.want) {
			t.Errorf("%s: %d %s", tc.name, resp.StatusCode, resp.Body)
		}
	}
	// The schema's own checks come first: enforcement is required.
	if resp := f.e.Do("POST", "/repos/mona/app/rulesets", f.token, map[string]any{"name": "p"}); resp.StatusCode != 422 {
		t.Fatalf("no enforcement: %d %s", resp.StatusCode, resp.Body)
	}
	list, _, _ := f.gh.Repositories.GetAllRulesets(ctx, "mona", "app", nil)
	if len(list) != 1 {
		t.Fatalf("refused rulesets were stored: %d", len(list))
	}
}

func TestRulesForBranch(t *testing.T) {
	f := newFixture(t)
	main := f.create(t, github.RepositoryRuleset{Name: "main", Enforcement: "active", Conditions: onDefault(),
		Rules: &github.RepositoryRulesetRules{Deletion: &github.EmptyRuleParameters{},
			PullRequest: &github.PullRequestRuleParameters{RequiredApprovingReviewCount: 1}}})
	releases := f.create(t, github.RepositoryRuleset{Name: "releases", Enforcement: "active",
		Conditions: &github.RepositoryRulesetConditions{RefName: &github.RepositoryRulesetRefConditionParameters{
			Include: []string{"refs/heads/release/**/*"}, Exclude: []string{"refs/heads/release/old/*"}}},
		Rules: &github.RepositoryRulesetRules{NonFastForward: &github.EmptyRuleParameters{}}})
	// Evaluate and disabled rulesets do not count.
	f.create(t, github.RepositoryRuleset{Name: "trial", Enforcement: "evaluate", Conditions: onDefault(),
		Rules: &github.RepositoryRulesetRules{Creation: &github.EmptyRuleParameters{}}})
	f.create(t, github.RepositoryRuleset{Name: "off", Enforcement: "disabled", Conditions: onDefault(),
		Rules: &github.RepositoryRulesetRules{Update: &github.UpdateRuleParameters{}}})

	rules, _, err := f.gh.Repositories.ListRulesForBranch(ctx, "mona", "app", "main", nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(rules.Deletion) != 1 || rules.Deletion[0].RulesetID != main.GetID() || rules.Deletion[0].RulesetSource != "mona/app" ||
		rules.Deletion[0].RulesetSourceType != github.RulesetSourceTypeRepository || len(rules.PullRequest) != 1 ||
		rules.PullRequest[0].Parameters.RequiredApprovingReviewCount != 1 || len(rules.Creation) != 0 || len(rules.Update) != 0 || len(rules.NonFastForward) != 0 {
		t.Fatalf("main: %+v", rules)
	}
	for branch, want := range map[string]int{"release/1.0": 1, "release/2.x/hotfix": 1, "release/old/1": 0, "feature": 0, "release": 0} {
		rules, _, err := f.gh.Repositories.ListRulesForBranch(ctx, "mona", "app", branch, nil)
		if err != nil {
			t.Fatalf("%s: %v", branch, err)
		}
		if len(rules.NonFastForward) != want || want == 1 && rules.NonFastForward[0].RulesetID != releases.GetID() {
			t.Errorf("%s: %d non_fast_forward rules, want %d", branch, len(rules.NonFastForward), want)
		}
	}
	// Raw: the branch in the path unescaped too, paged.
	var page []map[string]any
	resp := f.e.Must(200, "GET", "/repos/mona/app/rules/branches/main?per_page=1", "", nil)
	resp.JSON(t, &page)
	if len(page) != 1 || page[0]["type"] != "deletion" || !strings.Contains(resp.Header.Get("Link"), `rel="last"`) {
		t.Fatalf("page: %v %q", page, resp.Header.Get("Link"))
	}
	f.e.Must(200, "GET", "/repos/mona/app/rules/branches/release/1.0", "", nil).JSON(t, &page)
	if len(page) != 1 || page[0]["type"] != "non_fast_forward" {
		t.Fatalf("release/1.0 raw: %v", page)
	}
}

func TestRulesetHistory(t *testing.T) {
	f := newFixture(t)
	rs := f.create(t, github.RepositoryRuleset{Name: "v1", Enforcement: "evaluate", Conditions: onDefault()})
	id := strconv.FormatInt(rs.GetID(), 10)
	f.e.Must(200, "PUT", "/repos/mona/app/rulesets/"+id, f.token, map[string]any{"name": "v2", "enforcement": "active"})
	var versions []map[string]any
	f.e.Must(200, "GET", "/repos/mona/app/rulesets/"+id+"/history", f.token, nil).JSON(t, &versions)
	if len(versions) != 2 {
		t.Fatalf("versions: %v", versions)
	}
	newest := strconv.FormatInt(int64(versions[0]["version_id"].(float64)), 10)
	oldest := strconv.FormatInt(int64(versions[1]["version_id"].(float64)), 10)
	if versions[0]["actor"].(map[string]any)["type"] != "User" {
		t.Fatalf("actor: %v", versions[0])
	}
	var v map[string]any
	f.e.Must(200, "GET", "/repos/mona/app/rulesets/"+id+"/history/"+oldest, f.token, nil).JSON(t, &v)
	if st := v["state"].(map[string]any); st["name"] != "v1" || st["enforcement"] != "evaluate" {
		t.Fatalf("oldest state: %v", v)
	}
	f.e.Must(200, "GET", "/repos/mona/app/rulesets/"+id+"/history/"+newest, f.token, nil).JSON(t, &v)
	if st := v["state"].(map[string]any); st["name"] != "v2" || st["enforcement"] != "active" {
		t.Fatalf("newest state: %v", v)
	}
	// Admins only.
	_, readTok := f.user(t, "rita", authz.Read)
	f.e.Must(403, "GET", "/repos/mona/app/rulesets/"+id+"/history", readTok, nil)
	f.e.Must(404, "GET", "/repos/mona/app/rulesets/"+id+"/history/999999", f.token, nil)
}
