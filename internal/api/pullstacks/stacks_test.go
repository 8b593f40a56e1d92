package pullstacks_test

import (
	"encoding/json"
	"fmt"
	"net/http"
	"reflect"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-github/v92/github"

	"github.com/hubd/hubd/internal/authz"
	"github.com/hubd/hubd/internal/model"
	"github.com/hubd/hubd/internal/store"
)

func TestCreateGetAddList(t *testing.T) {
	f := newFixture(t)
	prs := f.chain(t, "model", "api", "ui")
	mainSHA := f.sha(t, "main")

	s := f.create(t, prs[0], prs[1])
	if s.Number != 1 || s.ID == 0 || !strings.HasPrefix(s.NodeID, "S_") || s.URL != f.e.API+"/repos/mona/app/stacks/1" ||
		s.Base.Ref != "main" || !s.Open || s.CreatedAt == "" || !reflect.DeepEqual(s.numbers(), prs[:2]) {
		t.Fatalf("created %+v", s)
	}
	bottom := s.PullRequests[0]
	if bottom.Title != "PR model" || bottom.State != "open" || bottom.MergedAt != nil || bottom.User == nil || bottom.User.Login != "mona" ||
		bottom.Head.Ref != "model" || bottom.Head.SHA != f.sha(t, "model") || bottom.Head.Repo == nil || bottom.Head.Repo.Name != "app" ||
		bottom.Base.Ref != "main" || bottom.Base.SHA != mainSHA || bottom.URL != f.e.API+"/repos/mona/app/pulls/1" ||
		!strings.HasSuffix(bottom.HTMLURL, "/mona/app/pull/1") {
		t.Errorf("bottom pull request %+v", bottom)
	}
	if top := s.PullRequests[1]; top.Base.Ref != "model" || top.Head.Ref != "api" {
		t.Errorf("top pull request %+v", top)
	}
	if got := f.get(t, 1); !reflect.DeepEqual(got, s) {
		t.Errorf("get %+v, created %+v", got, s)
	}

	// Add appends on top of the stack.
	var added stack
	f.e.Must(200, "POST", "/repos/mona/app/stacks/1/add", f.token, map[string]any{"pull_requests": []int{prs[2]}}).JSON(t, &added)
	if !reflect.DeepEqual(added.numbers(), prs) || added.Number != 1 || added.ID != s.ID {
		t.Errorf("after add %+v", added.numbers())
	}

	// The list shows the minimal shape; anonymous readers see public stacks.
	var list []stack
	f.e.Must(200, "GET", "/repos/mona/app/stacks", "", nil).JSON(t, &list)
	if len(list) != 1 || !reflect.DeepEqual(list[0].numbers(), prs) || list[0].Base.Ref != "main" || list[0].PullRequests[2].Head.Ref != "ui" ||
		list[0].PullRequests[2].Head.SHA != f.sha(t, "ui") || list[0].PullRequests[0].State != "open" {
		t.Errorf("list %+v", list)
	}
	// Filter by a pull request of the stack, or one in none.
	lone := f.pull(t, "lone", "main")
	for q, want := range map[string]int{fmt.Sprint(prs[1]): 1, fmt.Sprint(lone): 0, "999": 0} {
		var l []stack
		f.e.Must(200, "GET", "/repos/mona/app/stacks?pull_request="+q, f.token, nil).JSON(t, &l)
		if len(l) != want {
			t.Errorf("pull_request=%s: %d stacks, want %d", q, len(l), want)
		}
	}
	f.e.Must(422, "GET", "/repos/mona/app/stacks?pull_request=abc", f.token, nil)

	// The membership the pull request objects show.
	ids := make([]int64, 0, 4)
	for _, n := range append(prs, lone) {
		p, err := f.e.Store.R().PullByNumber(ctx, f.repoID, int64(n))
		if err != nil {
			t.Fatal(err)
		}
		ids = append(ids, p.IssueID)
	}
	refs, err := f.e.Store.R().StacksOfPulls(ctx, ids)
	if err != nil {
		t.Fatal(err)
	}
	if len(refs) != 3 || refs[ids[3]] != nil {
		t.Fatalf("stacks of pulls: %v", refs)
	}
	for i := 0; i < 3; i++ {
		want := model.PullStackRef{ID: s.ID, Number: 1, Position: i + 1, Size: 3, BaseRef: "main", BaseSHA: mainSHA}
		if *refs[ids[i]] != want {
			t.Errorf("stack of #%d: %+v, want %+v", prs[i], *refs[ids[i]], want)
		}
	}

	// Every write appended one domain event.
	if ev := f.events(t); ev["created"] != 1 || ev["added"] != 1 || len(ev) != 2 {
		t.Errorf("events %v", ev)
	}
}

func TestRefusals(t *testing.T) {
	f := newFixture(t)
	prs := f.chain(t, "a", "b", "c")    // #1 a→main, #2 b→a, #3 c→b
	other := f.chain(t, "x", "y")       // #4 x→main, #5 y→x
	closed := f.pull(t, "shut", "c")    // #6
	merged := f.pull(t, "done", "main") // #7
	issue, _, err := f.gh.Issues.Create(ctx, "mona", "app", github.CreateIssueRequest{Title: "plain issue"})
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := f.gh.PullRequests.Edit(ctx, "mona", "app", closed, &github.PullRequest{State: github.Ptr("closed")}); err != nil {
		t.Fatal(err)
	}
	f.e.RunJobs()
	if _, _, err := f.gh.PullRequests.Merge(ctx, "mona", "app", merged, "", nil); err != nil {
		t.Fatal(err)
	}
	f.create(t, other...) // stack 1
	reader := f.user(t, "reader", authz.Read)
	writer := f.user(t, "writer", authz.Write)
	stranger := f.user(t, "stranger", authz.None)
	body := func(n ...int) map[string]any { return map[string]any{"pull_requests": n} }
	hundredOne := make([]int, 101)
	for i := range hundredOne {
		hundredOne[i] = i + 1
	}

	for _, tc := range []struct {
		name, path, token string
		body              any
		want              int
		message           string
	}{
		{"anonymous", "/repos/mona/app/stacks", "", body(prs[0], prs[1]), 401, "Requires authentication"},
		{"reader", "/repos/mona/app/stacks", reader, body(prs[0], prs[1]), 403, "Must have write access"},
		{"stranger on public", "/repos/mona/app/stacks", stranger, body(prs[0], prs[1]), 403, "Must have write access"},
		{"stranger on private", "/repos/mona/secret/stacks", stranger, body(1, 2), 404, "Not Found"},
		{"one pull request", "/repos/mona/app/stacks", f.token, body(prs[0]), 422, ""},
		{"101 pull requests", "/repos/mona/app/stacks", f.token, body(hundredOne...), 422, ""},
		{"no list", "/repos/mona/app/stacks", f.token, map[string]any{}, 422, ""},
		{"unknown numbers", "/repos/mona/app/stacks", f.token, body(prs[0], 99, 98), 422, `"code":"missing","value":[99,98]`},
		{"an issue", "/repos/mona/app/stacks", f.token, body(prs[0], issue.GetNumber()), 422, `"resource":"Stack","field":"pull_requests","code":"missing"`},
		{"closed", "/repos/mona/app/stacks", writer, body(prs[2], closed), 422, fmt.Sprintf("Pull request #%d is closed", closed)},
		{"merged", "/repos/mona/app/stacks", writer, body(merged, prs[1]), 422, fmt.Sprintf("Pull request #%d is already merged", merged)},
		{"already stacked", "/repos/mona/app/stacks", f.token, body(other[1], prs[0]), 422, fmt.Sprintf("Pull request #%d is already part of a stack", other[1])},
		{"broken chain", "/repos/mona/app/stacks", f.token, body(prs[0], prs[2]), 422, "each PR's base ref is the previous PR's head ref"},
		{"upside down", "/repos/mona/app/stacks", f.token, body(prs[1], prs[0]), 422, "each PR's base ref is the previous PR's head ref"},
		{"twice", "/repos/mona/app/stacks", f.token, body(prs[0], prs[0]), 422, "each PR's base ref is the previous PR's head ref"},
		{"add by a reader", "/repos/mona/app/stacks/1/add", reader, body(prs[0]), 403, "Must have write access"},
		{"add to no stack", "/repos/mona/app/stacks/9/add", f.token, body(prs[0]), 404, "Not Found"},
		{"add nothing", "/repos/mona/app/stacks/1/add", f.token, body(), 422, ""},
		{"add off the top", "/repos/mona/app/stacks/1/add", f.token, body(prs[0]), 422, "each PR's base ref is the previous PR's head ref"},
		{"add a stacked one", "/repos/mona/app/stacks/1/add", f.token, body(other[0]), 422, "is already part of a stack"},
		{"add unknown", "/repos/mona/app/stacks/1/add", f.token, body(77), 422, `"value":[77]`},
		{"unstack by a reader", "/repos/mona/app/stacks/1/unstack", reader, nil, 403, "Must have write access"},
		{"unstack anonymously", "/repos/mona/app/stacks/1/unstack", "", nil, 401, "Requires authentication"},
		{"unstack no stack", "/repos/mona/app/stacks/9/unstack", f.token, nil, 404, "Not Found"},
		{"unstack a bad number", "/repos/mona/app/stacks/abc/unstack", f.token, nil, 404, "Not Found"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := f.e.Do("POST", tc.path, tc.token, tc.body)
			if r.StatusCode != tc.want || !strings.Contains(string(r.Body), tc.message) {
				t.Errorf("status %d, want %d with %q: %s", r.StatusCode, tc.want, tc.message, r.Body)
			}
		})
	}
	// Reads: hidden private repository, missing stacks.
	for _, tc := range []struct {
		path, token string
		want        int
	}{
		{"/repos/mona/secret/stacks", stranger, 404},
		{"/repos/mona/secret/stacks/1", stranger, 404},
		{"/repos/mona/secret/stacks", f.token, 200},
		{"/repos/mona/app/stacks/2", f.token, 404},
		{"/repos/mona/app/stacks/0", f.token, 404},
		{"/repos/mona/app/stacks/1", reader, 200},
	} {
		if r := f.e.Do("GET", tc.path, tc.token, nil); r.StatusCode != tc.want {
			t.Errorf("GET %s: %d, want %d: %s", tc.path, r.StatusCode, tc.want, r.Body)
		}
	}
	// Nothing was written by the refusals.
	if s := f.get(t, 1); !reflect.DeepEqual(s.numbers(), other) {
		t.Errorf("stack 1 changed: %v", s.numbers())
	}
	var list []stack
	f.e.Must(200, "GET", "/repos/mona/app/stacks", f.token, nil).JSON(t, &list)
	if ev := f.events(t); len(list) != 1 || ev["created"] != 1 || len(ev) != 1 {
		t.Errorf("after refusals: %d stacks, events %v", len(list), ev)
	}

	// A collaborator with write access may stack; an archived repository
	// is read-only.
	f.e.Must(201, "POST", "/repos/mona/app/stacks", writer, body(prs[0], prs[1]))
	f.e.Must(200, "PATCH", "/repos/mona/app", f.token, map[string]any{"archived": true})
	for _, p := range []string{"/repos/mona/app/stacks", "/repos/mona/app/stacks/2/add", "/repos/mona/app/stacks/2/unstack"} {
		r := f.e.Do("POST", p, f.token, body(prs[2]))
		if r.StatusCode != 403 || !strings.Contains(string(r.Body), "archived") {
			t.Errorf("POST %s on an archived repository: %d %s", p, r.StatusCode, r.Body)
		}
	}
	f.e.Must(200, "GET", "/repos/mona/app/stacks/2", f.token, nil)
}

func TestUnstack(t *testing.T) {
	f := newFixture(t)
	prs := f.chain(t, "one", "two", "three")

	// A stack of open pull requests dissolves: 204, gone, its pull
	// requests free to stack again under a new number.
	f.create(t, prs...)
	r := f.e.Must(204, "POST", "/repos/mona/app/stacks/1/unstack", f.token, nil)
	if len(r.Body) != 0 {
		t.Errorf("204 with a body: %s", r.Body)
	}
	f.e.Must(404, "GET", "/repos/mona/app/stacks/1", f.token, nil)
	f.e.Must(404, "POST", "/repos/mona/app/stacks/1/unstack", f.token, nil)
	s := f.create(t, prs...)
	if s.Number != 2 {
		t.Errorf("numbers are not reused: got %d", s.Number)
	}

	// Merge the bottom: unstacking keeps it and removes the others.
	f.e.RunJobs()
	if _, _, err := f.gh.PullRequests.Merge(ctx, "mona", "app", prs[0], "", nil); err != nil {
		t.Fatal(err)
	}
	var left stack
	f.e.Must(200, "POST", "/repos/mona/app/stacks/2/unstack", f.token, nil).JSON(t, &left)
	if !reflect.DeepEqual(left.numbers(), prs[:1]) || left.Open || left.PullRequests[0].MergedAt == nil || left.PullRequests[0].State != "closed" {
		t.Errorf("after unstack: %+v", left)
	}
	// Nothing left that may leave: 422.
	r = f.e.Do("POST", "/repos/mona/app/stacks/2/unstack", f.token, nil)
	if r.StatusCode != 422 || !strings.Contains(string(r.Body), "Pull requests in this stack cannot be removed") {
		t.Errorf("unstack of merged only: %d %s", r.StatusCode, r.Body)
	}
	// The removed ones stack again (three is based on two).
	s = f.create(t, prs[1], prs[2])
	if s.Base.Ref != "one" {
		t.Errorf("base of the new stack: %q", s.Base.Ref)
	}

	// A pull request queued for merge stays; the one above it goes.
	top, err := f.e.Store.R().PullByNumber(ctx, f.repoID, int64(prs[1]))
	if err != nil {
		t.Fatal(err)
	}
	err = f.e.Store.Tx(ctx, func(tx store.Q) error {
		return tx.CreateMergeRequest(ctx, &model.MergeRequest{UUID: "queued-1", PullID: top.IssueID, RepoID: f.repoID,
			Method: "merge", Action: "merge", ExpectedHeadSHA: top.HeadSHA, Status: "pending"})
	})
	if err != nil {
		t.Fatal(err)
	}
	f.e.Must(200, "POST", fmt.Sprintf("/repos/mona/app/stacks/%d/unstack", s.Number), f.token, nil).JSON(t, &left)
	if !reflect.DeepEqual(left.numbers(), prs[1:2]) || !left.Open {
		t.Errorf("unstack around a queued merge: %+v", left)
	}
	refs, err := f.e.Store.R().StacksOfPulls(ctx, []int64{top.IssueID})
	if err != nil || refs[top.IssueID] == nil || refs[top.IssueID].Position != 1 || refs[top.IssueID].Size != 1 {
		t.Errorf("membership of the queued one: %+v %v", refs[top.IssueID], err)
	}
	if ev := f.events(t); ev["created"] != 3 || ev["dissolved"] != 1 || ev["unstacked"] != 2 {
		t.Errorf("events %v", ev)
	}
}

func TestPagination(t *testing.T) {
	f := newFixture(t)
	for i := 0; i < 5; i++ {
		f.create(t, f.chain(t, fmt.Sprintf("s%d-a", i), fmt.Sprintf("s%d-b", i))...)
	}
	var got []int64
	pages, next := 0, "/repos/mona/app/stacks?per_page=2"
	for next != "" {
		r := f.e.Must(200, "GET", next, f.token, nil)
		var list []stack
		r.JSON(t, &list)
		pages++
		for _, s := range list {
			got = append(got, s.Number)
		}
		next = ""
		for _, part := range strings.Split(r.Header.Get("Link"), ",") {
			if strings.Contains(part, `rel="next"`) {
				next = strings.Trim(strings.TrimSpace(strings.Split(part, ";")[0]), "<>")
			}
		}
	}
	if !reflect.DeepEqual(got, []int64{5, 4, 3, 2, 1}) || pages != 3 {
		t.Errorf("paged %v in %d pages", got, pages)
	}
	// go-github reads the same Link header.
	req, _ := f.gh.NewRequest(ctx, "GET", "repos/mona/app/stacks?per_page=2&page=3", nil)
	var last []stack
	resp, err := f.gh.Do(req, &last)
	if err != nil || len(last) != 1 || last[0].Number != 1 || resp.PrevPage != 2 || resp.NextPage != 0 || resp.FirstPage != 1 {
		t.Errorf("page 3: %v %+v %v", last, resp, err)
	}
}

// Concurrent changes of one stack: each either applies or answers 409 (or
// 404/422 once the stack is gone), and the stack stays consistent.
func TestConcurrentChanges(t *testing.T) {
	f := newFixture(t)
	prs := f.chain(t, "c0", "c1", "c2", "c3", "c4", "c5")
	f.create(t, prs[0], prs[1])
	var wg sync.WaitGroup
	codes := make([]int, 8)
	for i := range codes {
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			path, body := "/repos/mona/app/stacks/1/add", any(map[string]any{"pull_requests": []int{prs[2+i%4]}})
			if i == 7 {
				path, body = "/repos/mona/app/stacks/1/unstack", nil
			}
			req, _ := http.NewRequest("POST", f.e.API+path, strings.NewReader(jsonOf(body)))
			req.Header.Set("Authorization", "token "+f.token)
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				return
			}
			resp.Body.Close()
			codes[i] = resp.StatusCode
		}(i)
	}
	wg.Wait()
	t.Logf("codes %v", codes)
	for i, c := range codes {
		switch c {
		case 200, 204, 404, 409, 422:
		default:
			t.Errorf("request %d: %d", i, c)
		}
	}
	r := f.e.Do("GET", "/repos/mona/app/stacks/1", f.token, nil)
	if r.StatusCode == 404 {
		return // the unstack won last
	}
	var s stack
	r.JSON(t, &s)
	// Whatever applied, the stack is a prefix of the chain.
	if len(s.numbers()) > 0 && !reflect.DeepEqual(s.numbers(), prs[:len(s.numbers())]) {
		t.Errorf("inconsistent stack after concurrent changes: %v (codes %v)", s.numbers(), codes)
	}
}

func jsonOf(v any) string {
	if v == nil {
		return ""
	}
	b, _ := json.Marshal(v)
	return string(b)
}
