package graphql_test

import (
	"encoding/json"
	"strconv"
	"testing"

	"github.com/google/go-github/v92/github"
)

const timelineQuery = `query($owner: String!, $repo: String!, $n: Int!, $first: Int, $last: Int, $after: String, $types: [IssueTimelineItemsItemType!]) {
  repository(owner: $owner, name: $repo) { issue(number: $n) {
    timelineItems(first: $first, last: $last, after: $after, itemTypes: $types) {
      totalCount
      pageInfo { hasNextPage hasPreviousPage startCursor endCursor }
      edges { cursor }
      nodes {
        __typename
        ... on IssueComment { body author { login } }
        ... on ClosedEvent { id createdAt actor { login } stateReason url }
        ... on ReopenedEvent { actor { login } }
        ... on LabeledEvent { label { name color } actor { login } }
        ... on UnlabeledEvent { label { name } }
        ... on AssignedEvent { assignee { ... on User { login } } }
        ... on UnassignedEvent { assignee { ... on User { login } } }
        ... on MilestonedEvent { milestoneTitle }
        ... on RenamedTitleEvent { previousTitle currentTitle }
        ... on CrossReferencedEvent { isCrossRepository willCloseTarget source { ... on Issue { number repository { nameWithOwner } } } target { ... on Issue { number } } }
        ... on TransferredEvent { id actor { login } fromRepository { nameWithOwner } }
      }
    }
  } }
}`

func typenames(c any) []string {
	var out []string
	for _, n := range dig(c, "nodes").([]any) {
		out = append(out, dig(n, "__typename").(string))
	}
	return out
}

// Issue.timelineItems over the issue event log: every kind gh and Octokit
// ask for, in order, with itemTypes, first/after/last and totalCount; a
// transferred issue's TransferredEvent names the repository it came from.
func TestIssueTimelineItems(t *testing.T) {
	w := newWorld(t)
	gh := w.e.GitHub(w.monaTok)
	if _, _, err := gh.Repositories.Create(ctx, "", &github.Repository{Name: github.Ptr("dst")}); err != nil {
		t.Fatal(err)
	}
	if _, _, err := gh.Issues.CreateLabel(ctx, "mona", "app", github.CreateIssueLabelRequest{Name: "urgent", Color: github.Ptr("d73a4a")}); err != nil {
		t.Fatal(err)
	}
	ms, _, err := gh.Issues.CreateMilestone(ctx, "mona", "app", github.CreateMilestoneRequest{Title: "v1"})
	if err != nil {
		t.Fatal(err)
	}
	is, _, err := gh.Issues.Create(ctx, "mona", "app", github.CreateIssueRequest{Title: "first"})
	if err != nil {
		t.Fatal(err)
	}
	n := is.GetNumber()
	steps := []func() error{
		func() error {
			_, _, err := gh.Issues.AddLabelsToIssue(ctx, "mona", "app", n, []string{"urgent"})
			return err
		},
		func() error {
			_, _, err := gh.Issues.CreateComment(ctx, "mona", "app", n, github.IssueCommentRequest{Body: "a comment"})
			return err
		},
		func() error {
			_, _, err := gh.Issues.Update(ctx, "mona", "app", n, github.UpdateIssueRequest{State: github.Ptr("closed"), StateReason: github.Ptr("not_planned")})
			return err
		},
		func() error {
			_, _, err := gh.Issues.Update(ctx, "mona", "app", n, github.UpdateIssueRequest{State: github.Ptr("open")})
			return err
		},
		func() error {
			_, _, err := gh.Issues.Update(ctx, "mona", "app", n, github.UpdateIssueRequest{Title: github.Ptr("renamed")})
			return err
		},
		func() error { _, _, err := gh.Issues.AddAssignees(ctx, "mona", "app", n, []string{"mona"}); return err },
		func() error {
			_, _, err := gh.Issues.RemoveAssignees(ctx, "mona", "app", n, []string{"mona"})
			return err
		},
		func() error {
			_, _, err := gh.Issues.Update(ctx, "mona", "app", n, github.UpdateIssueRequest{Milestone: ms.Number})
			return err
		},
		func() error { _, err := gh.Issues.RemoveLabelForIssue(ctx, "mona", "app", n, "urgent"); return err },
		func() error {
			_, _, err := gh.Issues.Create(ctx, "mona", "app", github.CreateIssueRequest{Title: "second", Body: github.Ptr("see #1")})
			return err
		},
	}
	for i, s := range steps {
		if err := s(); err != nil {
			t.Fatalf("step %d: %v", i, err)
		}
	}
	// Transfer it to mona/dst.
	repo, _, err := gh.Repositories.Get(ctx, "mona", "dst")
	if err != nil {
		t.Fatal(err)
	}
	d := mustData(t, post(t, w.e, w.monaTok, `mutation($i: ID!, $r: ID!) { transferIssue(input: {issueId: $i, repositoryId: $r}) { issue { number } } }`,
		map[string]any{"i": is.GetNodeID(), "r": repo.GetNodeID()}))
	moved, _ := dig(d, "transferIssue", "issue", "number").(json.Number).Int64()

	q := func(vars map[string]any) any {
		t.Helper()
		v := map[string]any{"owner": "mona", "repo": "dst", "n": moved}
		for k, x := range vars {
			v[k] = x
		}
		return dig(mustData(t, post(t, w.e, w.monaTok, timelineQuery, v)), "repository", "issue", "timelineItems")
	}
	all := q(map[string]any{"first": 50})
	want := []string{"LabeledEvent", "IssueComment", "ClosedEvent", "ReopenedEvent", "RenamedTitleEvent", "AssignedEvent",
		"UnassignedEvent", "MilestonedEvent", "UnlabeledEvent", "CrossReferencedEvent", "TransferredEvent"}
	got := typenames(all)
	if len(got) != len(want) || dig(all, "totalCount").(json.Number).String() != "11" {
		t.Fatalf("timeline %v, want %v: %v", got, want, all)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("timeline %v, want %v", got, want)
		}
	}
	nodes := dig(all, "nodes").([]any)
	if dig(nodes[0], "label", "name") != "urgent" || dig(nodes[0], "actor", "login") != "mona" || dig(nodes[1], "body") != "a comment" ||
		dig(nodes[2], "stateReason") != "NOT_PLANNED" || dig(nodes[4], "previousTitle") != "first" || dig(nodes[4], "currentTitle") != "renamed" ||
		dig(nodes[5], "assignee", "login") != "mona" || dig(nodes[7], "milestoneTitle") != "v1" || dig(nodes[8], "label", "name") != "urgent" {
		t.Errorf("events %v", nodes)
	}
	if x := nodes[9]; dig(x, "source", "number") != json.Number("2") || dig(x, "source", "repository", "nameWithOwner") != "mona/app" ||
		dig(x, "isCrossRepository") != true || dig(x, "target", "number") != json.Number(strconv.FormatInt(moved, 10)) {
		t.Errorf("cross-reference %v", x)
	}
	if x := nodes[10]; dig(x, "fromRepository", "nameWithOwner") != "mona/app" || dig(x, "actor", "login") != "mona" {
		t.Errorf("transferred %v", x)
	}

	// itemTypes filters in SQL: totalCount counts what it keeps.
	f := q(map[string]any{"first": 10, "types": []string{"LABELED_EVENT", "UNLABELED_EVENT", "TRANSFERRED_EVENT"}})
	if got := typenames(f); len(got) != 3 || got[2] != "TransferredEvent" || dig(f, "totalCount").(json.Number).String() != "3" {
		t.Errorf("itemTypes: %v %v", got, f)
	}
	// Pages: first 4, the next 4 after its end cursor, the last 2.
	p1 := q(map[string]any{"first": 4})
	if got := typenames(p1); len(got) != 4 || dig(p1, "pageInfo", "hasNextPage") != true || dig(p1, "pageInfo", "hasPreviousPage") != false {
		t.Errorf("first page %v", p1)
	}
	p2 := q(map[string]any{"first": 4, "after": dig(p1, "pageInfo", "endCursor")})
	if got := typenames(p2); len(got) != 4 || got[0] != "RenamedTitleEvent" || dig(p2, "pageInfo", "hasPreviousPage") != true {
		t.Errorf("second page %v", got)
	}
	last := q(map[string]any{"last": 2})
	if got := typenames(last); len(got) != 2 || got[0] != "CrossReferencedEvent" || got[1] != "TransferredEvent" {
		t.Errorf("last page %v", got)
	}
	// GitHub's pagination errors.
	if r := post(t, w.e, w.monaTok, timelineQuery, map[string]any{"owner": "mona", "repo": "dst", "n": moved, "first": 101}); len(r.Errors) == 0 ||
		r.Errors[0].Type != "EXCESSIVE_PAGINATION" {
		t.Errorf("first: 101: %s", r.Raw)
	}
}

// The timelines of a page of issues load in a fixed number of queries,
// however many issues the page has.
func TestIssueTimelineItemsBatched(t *testing.T) {
	w := newWorld(t)
	gh := w.e.GitHub(w.monaTok)
	for i := 0; i < 6; i++ {
		is, _, err := gh.Issues.Create(ctx, "mona", "app", github.CreateIssueRequest{Title: "x"})
		if err != nil {
			t.Fatal(err)
		}
		if _, _, err := gh.Issues.CreateComment(ctx, "mona", "app", is.GetNumber(), github.IssueCommentRequest{Body: "c"}); err != nil {
			t.Fatal(err)
		}
		if _, _, err := gh.Issues.Update(ctx, "mona", "app", is.GetNumber(), github.UpdateIssueRequest{State: github.Ptr("closed")}); err != nil {
			t.Fatal(err)
		}
	}
	const query = `query($n: Int!) { repository(owner: "mona", name: "app") { issues(first: $n, states: [CLOSED]) { nodes {
	  timelineItems(first: 10) { totalCount nodes { __typename ... on IssueComment { body } ... on ClosedEvent { actor { login } } } } } } } }`
	reads := func(n int) int64 {
		return w.e.LeastReads(func() {
			d := mustData(t, post(t, w.e, w.monaTok, query, map[string]any{"n": n}))
			for _, is := range dig(d, "repository", "issues", "nodes").([]any) {
				if got := typenames(dig(is, "timelineItems")); len(got) != 2 || got[0] != "IssueComment" || got[1] != "ClosedEvent" {
					t.Fatalf("timeline %v", got)
				}
			}
		})
	}
	one, six := reads(1), reads(6)
	if six > one {
		t.Errorf("queries for one issue's timeline %d, for six %d", one, six)
	}
}
