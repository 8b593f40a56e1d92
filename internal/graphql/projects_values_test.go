package graphql_test

import (
	"encoding/json"
	"strconv"
	"testing"

	"github.com/hubd/hubd/internal/authz"
	"github.com/hubd/hubd/internal/model"
	"github.com/hubd/hubd/internal/projects"
	"github.com/hubd/hubd/internal/wire"
)

// firstOf is the first element of a JSON list (nil if none).
func firstOf(v any) any {
	if l, _ := v.([]any); len(l) > 0 {
		return l[0]
	}
	return nil
}

// TestProjectV2ContentValues: an item's values of the built-in fields come
// from its issue (Title, Labels, Assignees, Milestone, Repository), an
// iteration value names its iteration, an iteration field shows its
// configuration, the repository lists its linked projects and node(id)
// resolves a draft issue.
func TestProjectV2ContentValues(t *testing.T) {
	w := newWorld(t)
	seedIssues(t, w, 2)
	s := projects.New(w.e.Store)
	c := &authz.Caller{Kind: authz.ClassicPAT, User: w.mona, Scopes: authz.ParseScopes("project,repo")}
	p, err := s.Create(ctx, c, w.mona, "Plan")
	if err != nil {
		t.Fatal(err)
	}
	sprint, err := s.CreateField(ctx, c, p, projects.FieldInput{Name: "Sprint", DataType: "iteration", Iteration: &model.ProjectIterations{StartDay: 1, Duration: 7,
		Iterations: []model.ProjectIteration{{Title: "Past", StartDate: "2020-01-06", Duration: 7}, {Title: "Next", StartDate: "2090-01-02", Duration: 7}}}})
	if err != nil {
		t.Fatal(err)
	}
	is, _, err := s.FindIssue(ctx, c, 0, "mona", "app", 2, false)
	if err != nil {
		t.Fatal(err)
	}
	it, err := s.AddIssue(ctx, c, p, is)
	if err != nil {
		t.Fatal(err)
	}
	next := sprint.Iteration.Iterations[1]
	if err := s.SetValues(ctx, c, p, it, []projects.Value{{FieldID: sprint.ID, Value: next.ID}}); err != nil {
		t.Fatal(err)
	}
	// A pull request with a requested reviewer.
	_, rita := w.e.NewUser("rita", false)
	inv := w.e.Must(201, "PUT", "/repos/mona/app/collaborators/rita", w.monaTok, map[string]any{"permission": "push"}).Map(t)
	w.e.Must(204, "PATCH", "/user/repository_invitations/"+strconv.FormatFloat(inv["id"].(float64), 'f', -1, 64), rita, nil)
	pr := openPull(t, w, "reviewed", "Reviewed change")
	w.e.Must(201, "POST", "/repos/mona/app/pulls/"+strconv.Itoa(pr.GetNumber())+"/requested_reviewers", w.monaTok, map[string]any{"reviewers": []string{"rita"}})
	// The pull request closes issue 2: it is the issue's linked pull request.
	w.e.Must(200, "PATCH", "/repos/mona/app/pulls/"+strconv.Itoa(pr.GetNumber()), w.monaTok, map[string]any{"body": "Fixes #2"})
	pull, _, err := s.FindIssue(ctx, c, 0, "mona", "app", int64(pr.GetNumber()), true)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.AddIssue(ctx, c, p, pull); err != nil {
		t.Fatal(err)
	}
	draft, err := s.AddDraft(ctx, c, p, "Idea", "later")
	if err != nil {
		t.Fatal(err)
	}
	repo, err := w.e.Store.R().RepoByName(ctx, "mona", "app", w.mona.ID)
	if err != nil {
		t.Fatal(err)
	}
	if err := s.LinkRepo(ctx, c, p, repo.Repo, true); err != nil {
		t.Fatal(err)
	}
	tok := w.e.Token(w.mona, "repo,project")
	q := `query($draft: ID!) { user(login: "mona") { projectV2(number: 1) {
		fields(first: 30) { nodes { ... on ProjectV2IterationField { name configuration { duration startDay
			iterations { id title startDate duration } completedIterations { title } } } } }
		items(first: 10) { nodes { type fieldValues(first: 30) { nodes { __typename
			... on ProjectV2ItemFieldTextValue { text field { ... on ProjectV2Field { name } } }
			... on ProjectV2ItemFieldIterationValue { title iterationId startDate duration field { ... on ProjectV2IterationField { name } } }
			... on ProjectV2ItemFieldLabelValue { labels(first: 10) { nodes { name } } }
			... on ProjectV2ItemFieldUserValue { users(first: 10) { nodes { login } } }
			... on ProjectV2ItemFieldMilestoneValue { milestone { title } }
			... on ProjectV2ItemFieldRepositoryValue { repository { nameWithOwner } }
			... on ProjectV2ItemFieldPullRequestValue { pullRequests(first: 10) { nodes { number } } }
			... on ProjectV2ItemFieldReviewerValue { reviewers(first: 10) { nodes { __typename ... on User { login } } } } } } } } } }
		repository(owner: "mona", name: "app") { open: projectsV2(first: 10, query: "is:open", orderBy: {field: TITLE, direction: ASC}) { totalCount nodes { title } }
			closed: projectsV2(first: 10, query: "is:closed") { totalCount } }
		node(id: $draft) { ... on DraftIssue { title body } } }`
	d := mustData(t, post(t, w.e, tok, q, map[string]any{"draft": wire.NodeID("DI", draft.ID)}))
	var cfg any
	for _, f := range dig(d, "user", "projectV2", "fields", "nodes").([]any) {
		if dig(f, "name") == "Sprint" {
			cfg = dig(f, "configuration")
		}
	}
	iters, _ := dig(cfg, "iterations").([]any)
	done, _ := dig(cfg, "completedIterations").([]any)
	if len(iters) != 1 || dig(iters[0], "title") != "Next" || len(done) != 1 || dig(done[0], "title") != "Past" ||
		dig(cfg, "duration").(json.Number).String() != "7" {
		t.Fatalf("iteration configuration: %v", cfg)
	}
	got := map[string]any{}
	var prValues map[string]any
	for _, item := range dig(d, "user", "projectV2", "items", "nodes").([]any) {
		if dig(item, "type") == "PULL_REQUEST" {
			prValues = map[string]any{}
			for _, v := range dig(item, "fieldValues", "nodes").([]any) {
				prValues[dig(v, "__typename").(string)] = v
			}
		}
		if dig(item, "type") != "ISSUE" {
			continue
		}
		for _, v := range dig(item, "fieldValues", "nodes").([]any) {
			got[dig(v, "__typename").(string)] = v
		}
	}
	if v := got["ProjectV2ItemFieldIterationValue"]; dig(v, "title") != "Next" || dig(v, "iterationId") != next.ID || dig(v, "startDate") != "2090-01-02" || dig(v, "field", "name") != "Sprint" {
		t.Fatalf("iteration value: %v", got)
	}
	if v := got["ProjectV2ItemFieldTextValue"]; dig(v, "text") != "issue 2" || dig(v, "field", "name") != "Title" {
		t.Fatalf("title value: %v", got)
	}
	if dig(firstOf(dig(got["ProjectV2ItemFieldLabelValue"], "labels", "nodes")), "name") != "kind: bug" ||
		dig(firstOf(dig(got["ProjectV2ItemFieldUserValue"], "users", "nodes")), "login") != "mona" ||
		dig(got["ProjectV2ItemFieldMilestoneValue"], "milestone", "title") != "v1" ||
		dig(got["ProjectV2ItemFieldRepositoryValue"], "repository", "nameWithOwner") != "mona/app" {
		t.Fatalf("values from the issue: %v", got)
	}
	if r := firstOf(dig(prValues["ProjectV2ItemFieldReviewerValue"], "reviewers", "nodes")); dig(r, "__typename") != "User" || dig(r, "login") != "rita" {
		t.Fatalf("the pull request's reviewers: %v", prValues)
	}
	if n := dig(firstOf(dig(got["ProjectV2ItemFieldPullRequestValue"], "pullRequests", "nodes")), "number"); n == nil || n.(json.Number).String() != strconv.Itoa(pr.GetNumber()) {
		t.Fatalf("the issue's linked pull requests: %v", got)
	}
	if _, ok := got["ProjectV2ItemFieldReviewerValue"]; ok {
		t.Fatalf("an issue has reviewers: %v", got)
	}
	if dig(d, "repository", "open", "totalCount").(json.Number).String() != "1" || dig(firstOf(dig(d, "repository", "open", "nodes")), "title") != "Plan" ||
		dig(d, "repository", "closed", "totalCount").(json.Number).String() != "0" {
		t.Fatalf("the repository's projects: %v", dig(d, "repository"))
	}
	if dig(d, "node", "title") != "Idea" || dig(d, "node", "body") != "later" {
		t.Fatalf("node(id) of a draft issue: %v", dig(d, "node"))
	}
	// Another user does not resolve the private project's draft.
	_, other := w.e.NewUser("hubot", false)
	r := post(t, w.e, other, `query($draft: ID!) { node(id: $draft) { id } }`, map[string]any{"draft": wire.NodeID("DI", draft.ID)})
	if len(r.Errors) == 0 {
		t.Fatalf("another user resolves the draft: %s", r.Raw)
	}
}

// TestProjectV2ValuesQueryCount: a page of issue items with the values of
// all built-in fields (gh project item-list's fragments) costs as many
// queries for 2 items as for 8.
func TestProjectV2ValuesQueryCount(t *testing.T) {
	w := newWorld(t)
	seedIssues(t, w, 8)
	s := projects.New(w.e.Store)
	c := &authz.Caller{Kind: authz.ClassicPAT, User: w.mona, Scopes: authz.ParseScopes("project,repo")}
	p, err := s.Create(ctx, c, w.mona, "Plan")
	if err != nil {
		t.Fatal(err)
	}
	for n := int64(1); n <= 8; n++ {
		is, _, err := s.FindIssue(ctx, c, 0, "mona", "app", n, false)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := s.AddIssue(ctx, c, p, is); err != nil {
			t.Fatal(err)
		}
	}
	tok := w.e.Token(w.mona, "repo,project")
	q := `query($n: Int!) { user(login: "mona") { projectV2(number: 1) { items(first: $n) { nodes { content { ... on Issue { number } }
		fieldValues(first: 100) { nodes { __typename
			... on ProjectV2ItemFieldTextValue { text }
			... on ProjectV2ItemFieldLabelValue { labels(first: 10) { nodes { name } } }
			... on ProjectV2ItemFieldUserValue { users(first: 10) { nodes { login } } }
			... on ProjectV2ItemFieldMilestoneValue { milestone { title } }
			... on ProjectV2ItemFieldRepositoryValue { repository { url } }
			... on ProjectV2ItemFieldPullRequestValue { pullRequests(first: 10) { nodes { url } } }
			... on ProjectV2ItemFieldReviewerValue { reviewers(first: 10) { nodes { __typename } } } } } } } } } }`
	cost := func(n int) (int64, map[string]int) {
		if err := w.e.Deps.Outbox.Sync(ctx); err != nil {
			t.Fatal(err)
		}
		types := map[string]int{}
		reads := w.e.LeastReads(func() {
			d := mustData(t, post(t, w.e, tok, q, map[string]any{"n": n}))
			clear(types)
			for _, it := range dig(d, "user", "projectV2", "items", "nodes").([]any) {
				for _, v := range dig(it, "fieldValues", "nodes").([]any) {
					types[dig(v, "__typename").(string)]++
				}
			}
		})
		return reads, types
	}
	two, _ := cost(2)
	eight, types := cost(8)
	if two != eight {
		t.Errorf("a page of 2 items costs %d queries, a page of 8 costs %d", two, eight)
	}
	// Every issue has a title and a repository; the even ones a label,
	// an assignee and a milestone.
	if types["ProjectV2ItemFieldTextValue"] != 8 || types["ProjectV2ItemFieldRepositoryValue"] != 8 || types["ProjectV2ItemFieldLabelValue"] != 4 ||
		types["ProjectV2ItemFieldUserValue"] != 4 || types["ProjectV2ItemFieldMilestoneValue"] != 4 {
		t.Fatalf("values of 8 issues: %v", types)
	}
}

// TestCopyProjectV2: a copy has the fields and views, not the issues; a
// stranger may not copy a private project, nor copy into another's account.
func TestCopyProjectV2(t *testing.T) {
	w := newWorld(t)
	seedIssues(t, w, 1)
	s := projects.New(w.e.Store)
	c := &authz.Caller{Kind: authz.ClassicPAT, User: w.mona, Scopes: authz.ParseScopes("project,repo")}
	p, err := s.Create(ctx, c, w.mona, "Plan")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.CreateField(ctx, c, p, projects.FieldInput{Name: "Size", DataType: "single_select", Options: []model.ProjectOption{{Name: "S"}, {Name: "L"}}}); err != nil {
		t.Fatal(err)
	}
	is, _, err := s.FindIssue(ctx, c, 0, "mona", "app", 1, false)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.AddIssue(ctx, c, p, is); err != nil {
		t.Fatal(err)
	}
	if _, err := s.AddDraft(ctx, c, p, "Idea", ""); err != nil {
		t.Fatal(err)
	}
	tok := w.e.Token(w.mona, "repo,project")
	m := `mutation($p: ID!, $o: ID!, $d: Boolean) { copyProjectV2(input: {projectId: $p, ownerId: $o, title: "Copy", includeDraftIssues: $d}) {
		projectV2 { number title items(first: 10) { totalCount nodes { type } } fields(first: 30) { nodes { ... on ProjectV2SingleSelectField { name options { name } } } } } } }`
	pid, owner := wire.NodeID("PVT", p.ID), wire.NodeID("U", w.mona.ID)
	d := mustData(t, post(t, w.e, tok, m, map[string]any{"p": pid, "o": owner, "d": false}))
	cp := dig(d, "copyProjectV2", "projectV2")
	var size any
	for _, f := range dig(cp, "fields", "nodes").([]any) {
		if dig(f, "name") == "Size" {
			size = f
		}
	}
	if dig(cp, "title") != "Copy" || dig(cp, "number").(json.Number).String() != "2" || dig(cp, "items", "totalCount").(json.Number).String() != "0" ||
		len(dig(size, "options").([]any)) != 2 {
		t.Fatalf("copy: %v", cp)
	}
	d = mustData(t, post(t, w.e, tok, m, map[string]any{"p": pid, "o": owner, "d": true}))
	if items := dig(d, "copyProjectV2", "projectV2", "items"); dig(items, "totalCount").(json.Number).String() != "1" || dig(firstOf(dig(items, "nodes")), "type") != "DRAFT_ISSUE" {
		t.Fatalf("copy with drafts: %v", items)
	}
	stranger, strTok := w.e.NewUser("eve", false)
	strTok = w.e.Token(stranger, "repo,project")
	if r := post(t, w.e, strTok, m, map[string]any{"p": pid, "o": wire.NodeID("U", stranger.ID), "d": false}); len(r.Errors) == 0 || r.Errors[0].Type != "NOT_FOUND" {
		t.Fatalf("a stranger copies a private project: %s", r.Raw)
	}
	if r := post(t, w.e, tok, m, map[string]any{"p": pid, "o": wire.NodeID("U", stranger.ID), "d": false}); len(r.Errors) == 0 {
		t.Fatalf("a copy into another user's account: %s", r.Raw)
	}
}
