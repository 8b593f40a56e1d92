package issues_test

import (
	"fmt"
	"reflect"
	"testing"

	"github.com/google/go-github/v92/github"

	"github.com/hubd/hubd/internal/apitest"
	"github.com/hubd/hubd/internal/model"
	"github.com/hubd/hubd/internal/store"
)

func subNumbers(list []*github.SubIssue) []int {
	out := []int{}
	for _, s := range list {
		out = append(out, int(*s.Number))
	}
	return out
}

func TestSubIssues(t *testing.T) {
	w := newWorld(t)
	var ids []int64
	for i := 1; i <= 5; i++ {
		ids = append(ids, w.issue(t, fmt.Sprint("issue ", i)).GetID())
	}
	parent, resp, err := w.tg.SubIssue.Add(ctx, "mona", "hello", 1, github.SubIssueRequest{SubIssueID: ids[1]})
	if err != nil || resp.StatusCode != 201 || *parent.Number != 1 {
		t.Fatalf("add %+v %v", parent, err)
	}
	for _, i := range []int{2, 3} {
		if _, _, err := w.tg.SubIssue.Add(ctx, "mona", "hello", 1, github.SubIssueRequest{SubIssueID: ids[i]}); err != nil {
			t.Fatal(err)
		}
	}
	list, _, err := w.rg.SubIssue.ListByIssue(ctx, "mona", "hello", 1, nil)
	if err != nil || !reflect.DeepEqual(subNumbers(list), []int{2, 3, 4}) {
		t.Fatalf("list %v %v", subNumbers(list), err)
	}
	if ptrStr(list[0].ParentIssueURL) != w.e.API+"/repos/mona/hello/issues/1" {
		t.Fatalf("parent_issue_url %q", ptrStr(list[0].ParentIssueURL))
	}
	// Closing a sub-issue completes part of the parent.
	if _, _, err := w.mg.Issues.Update(ctx, "mona", "hello", 3, github.UpdateIssueRequest{State: github.Ptr("closed")}); err != nil {
		t.Fatal(err)
	}
	m := w.e.Must(200, "GET", "/repos/mona/hello/issues/1", w.ritaT, nil).Map(t)
	if s := m["sub_issues_summary"].(map[string]any); s["total"] != float64(3) || s["completed"] != float64(1) || s["percent_completed"] != float64(33) {
		t.Fatalf("summary %v", s)
	}
	got, _, err := w.rg.SubIssue.GetParentIssue(ctx, "mona", "hello", 2)
	if err != nil || got.GetNumber() != 1 {
		t.Fatalf("parent %v %v", got, err)
	}
	w.e.Must(404, "GET", "/repos/mona/hello/issues/5/parent", w.ritaT, nil)

	// Reprioritize: #4 first, then #2 after #3.
	if _, _, err := w.tg.SubIssue.Reprioritize(ctx, "mona", "hello", 1, github.SubIssueRequest{SubIssueID: ids[3], BeforeID: github.Ptr(ids[1])}); err != nil {
		t.Fatal(err)
	}
	if _, _, err := w.tg.SubIssue.Reprioritize(ctx, "mona", "hello", 1, github.SubIssueRequest{SubIssueID: ids[1], AfterID: github.Ptr(ids[2])}); err != nil {
		t.Fatal(err)
	}
	list, _, _ = w.rg.SubIssue.ListByIssue(ctx, "mona", "hello", 1, nil)
	if !reflect.DeepEqual(subNumbers(list), []int{4, 3, 2}) {
		t.Fatalf("after reprioritize %v", subNumbers(list))
	}

	for _, tc := range []struct {
		name   string
		method string
		path   string
		body   any
		status int
	}{
		{"itself", "POST", "/repos/mona/hello/issues/1/sub_issues", map[string]any{"sub_issue_id": ids[0]}, 422},
		{"duplicate", "POST", "/repos/mona/hello/issues/1/sub_issues", map[string]any{"sub_issue_id": ids[1]}, 422},
		{"second parent", "POST", "/repos/mona/hello/issues/5/sub_issues", map[string]any{"sub_issue_id": ids[1]}, 422},
		{"cycle", "POST", "/repos/mona/hello/issues/2/sub_issues", map[string]any{"sub_issue_id": ids[0]}, 422},
		{"unknown", "POST", "/repos/mona/hello/issues/1/sub_issues", map[string]any{"sub_issue_id": 999999}, 404},
		{"missing id", "POST", "/repos/mona/hello/issues/1/sub_issues", map[string]any{}, 422},
		{"both anchors", "PATCH", "/repos/mona/hello/issues/1/sub_issues/priority", map[string]any{"sub_issue_id": ids[1], "after_id": ids[2], "before_id": ids[3]}, 422},
		{"anchor not a sibling", "PATCH", "/repos/mona/hello/issues/1/sub_issues/priority", map[string]any{"sub_issue_id": ids[1], "after_id": ids[4]}, 422},
		{"remove a stranger", "DELETE", "/repos/mona/hello/issues/1/sub_issue", map[string]any{"sub_issue_id": ids[4]}, 404},
	} {
		if r := w.e.Do(tc.method, tc.path, w.tinaT, tc.body); r.StatusCode != tc.status {
			t.Errorf("%s: %d %s", tc.name, r.StatusCode, r.Body)
		}
	}
	// Readers may not change the tree.
	if _, _, err := w.rg.SubIssue.Add(ctx, "mona", "hello", 5, github.SubIssueRequest{SubIssueID: ids[0]}); apitest.Status(err) != 403 {
		t.Fatalf("reader adds: %v", err)
	}
	// Moving #2 under #5 with replace_parent.
	if _, _, err := w.tg.SubIssue.Add(ctx, "mona", "hello", 5, github.SubIssueRequest{SubIssueID: ids[1], ReplaceParent: github.Ptr(true)}); err != nil {
		t.Fatal(err)
	}
	list, _, _ = w.rg.SubIssue.ListByIssue(ctx, "mona", "hello", 1, nil)
	if !reflect.DeepEqual(subNumbers(list), []int{4, 3}) {
		t.Fatalf("after move %v", subNumbers(list))
	}
	removed, _, err := w.tg.SubIssue.Remove(ctx, "mona", "hello", 1, github.SubIssueRequest{SubIssueID: ids[3]})
	if err != nil || *removed.Number != 1 {
		t.Fatalf("remove %v %v", removed, err)
	}
	evs, _, _ := w.rg.Issues.ListIssueEvents(ctx, "mona", "hello", 2, nil)
	var kinds []string
	for _, e := range evs {
		kinds = append(kinds, e.GetEvent())
	}
	if !reflect.DeepEqual(kinds, []string{"parent_issue_added", "parent_issue_removed", "parent_issue_added"}) {
		t.Fatalf("child events %v", kinds)
	}
	var raw []map[string]any
	w.e.Must(200, "GET", "/repos/mona/hello/issues/1/events", w.ritaT, nil).JSON(t, &raw)
	if ref := raw[0]["sub_issue"].(map[string]any); raw[0]["event"] != "sub_issue_added" || ref["number"] != float64(2) ||
		ref["repository"].(map[string]any)["full_name"] != "mona/hello" {
		t.Fatalf("parent event %v", raw[0])
	}
	// Nesting is limited to eight levels.
	chain := []int64{}
	for i := 0; i < 8; i++ {
		chain = append(chain, w.issue(t, fmt.Sprint("level ", i)).GetID())
	}
	num := func(id int64) int {
		is, err := w.e.Store.R().IssueByID(ctx, id)
		if err != nil {
			t.Fatal(err)
		}
		return int(is.Number)
	}
	for i := 1; i < 8; i++ {
		w.e.Must(201, "POST", fmt.Sprintf("/repos/mona/hello/issues/%d/sub_issues", num(chain[i-1])), w.tinaT, map[string]any{"sub_issue_id": chain[i]})
	}
	extra := w.issue(t, "too deep")
	w.e.Must(422, "POST", fmt.Sprintf("/repos/mona/hello/issues/%d/sub_issues", num(chain[7])), w.tinaT, map[string]any{"sub_issue_id": extra.GetID()})
	// Sub-issues belong to the parent's owner.
	eveRepo, _, err := w.eg.Repositories.Create(ctx, "", &github.Repository{Name: github.Ptr("elsewhere")})
	if err != nil {
		t.Fatal(err)
	}
	other, _, err := w.eg.Issues.Create(ctx, "eve", eveRepo.GetName(), github.CreateIssueRequest{Title: "foreign"})
	if err != nil {
		t.Fatal(err)
	}
	w.e.Must(422, "POST", "/repos/mona/hello/issues/1/sub_issues", w.monaT, map[string]any{"sub_issue_id": other.GetID()})
}

func TestDependencies(t *testing.T) {
	w := newWorld(t)
	a := w.issue(t, "a")
	b := w.issue(t, "b")
	c := w.issue(t, "c")
	is, resp, err := w.tg.Issues.AddBlockedBy(ctx, "mona", "hello", 1, github.IssueDependencyRequest{IssueID: b.GetID()})
	if err != nil || resp.StatusCode != 201 || is.GetNumber() != 1 {
		t.Fatalf("add %v %v", is, err)
	}
	if _, _, err := w.tg.Issues.AddBlockedBy(ctx, "mona", "hello", 1, github.IssueDependencyRequest{IssueID: c.GetID()}); err != nil {
		t.Fatal(err)
	}
	if _, _, err := w.mg.Issues.Update(ctx, "mona", "hello", 3, github.UpdateIssueRequest{State: github.Ptr("closed")}); err != nil {
		t.Fatal(err)
	}
	m := w.e.Must(200, "GET", "/repos/mona/hello/issues/1", w.ritaT, nil).Map(t)
	if s := m["issue_dependencies_summary"].(map[string]any); s["blocked_by"] != float64(1) || s["total_blocked_by"] != float64(2) || s["blocking"] != float64(0) {
		t.Fatalf("summary %v", s)
	}
	m = w.e.Must(200, "GET", "/repos/mona/hello/issues/2", w.ritaT, nil).Map(t)
	if s := m["issue_dependencies_summary"].(map[string]any); s["blocking"] != float64(1) || s["total_blocking"] != float64(1) {
		t.Fatalf("blocking summary %v", s)
	}
	list, _, err := w.rg.Issues.ListBlockedBy(ctx, "mona", "hello", 1, nil)
	if err != nil || !reflect.DeepEqual(numbers(list), []int{2, 3}) {
		t.Fatalf("blocked by %v %v", numbers(list), err)
	}
	list, _, err = w.rg.Issues.ListBlocking(ctx, "mona", "hello", 2, nil)
	if err != nil || !reflect.DeepEqual(numbers(list), []int{1}) {
		t.Fatalf("blocking %v %v", numbers(list), err)
	}
	for _, tc := range []struct {
		name   string
		body   any
		status int
	}{
		{"itself", map[string]any{"issue_id": a.GetID()}, 422},
		{"circular", nil, 422},
		{"unknown", map[string]any{"issue_id": 999999}, 422},
		{"missing", map[string]any{}, 422},
	} {
		path, body := "/repos/mona/hello/issues/1/dependencies/blocked_by", tc.body
		if tc.name == "circular" {
			path, body = "/repos/mona/hello/issues/2/dependencies/blocked_by", map[string]any{"issue_id": a.GetID()}
		}
		if r := w.e.Do("POST", path, w.tinaT, body); r.StatusCode != tc.status {
			t.Errorf("%s: %d %s", tc.name, r.StatusCode, r.Body)
		}
	}
	// An issue in a repository the caller cannot see is unknown to them.
	secret, _, _ := w.mg.Issues.Create(ctx, "mona", "secret", github.CreateIssueRequest{Title: "hidden"})
	w.e.Must(422, "POST", "/repos/mona/hello/issues/1/dependencies/blocked_by", w.tinaT, map[string]any{"issue_id": secret.GetID()})
	// A blocker in another repository is listed for those who see it only.
	w.e.Must(201, "POST", "/repos/mona/hello/issues/1/dependencies/blocked_by", w.monaT, map[string]any{"issue_id": secret.GetID()})
	list, _, _ = w.rg.Issues.ListBlockedBy(ctx, "mona", "hello", 1, nil)
	if !reflect.DeepEqual(numbers(list), []int{2, 3}) {
		t.Fatalf("rita sees %v", numbers(list))
	}
	list, _, _ = w.mg.Issues.ListBlockedBy(ctx, "mona", "hello", 1, nil)
	if len(list) != 3 || list[2].GetRepositoryURL() != w.e.API+"/repos/mona/secret" {
		t.Fatalf("mona sees %v", numbers(list))
	}
	if _, _, err := w.rg.Issues.AddBlockedBy(ctx, "mona", "hello", 1, github.IssueDependencyRequest{IssueID: c.GetID()}); apitest.Status(err) != 403 {
		t.Fatalf("reader adds: %v", err)
	}
	is, _, err = w.tg.Issues.RemoveBlockedBy(ctx, "mona", "hello", 1, b.GetID())
	if err != nil || is.GetNumber() != 1 {
		t.Fatalf("remove %v %v", is, err)
	}
	if _, _, err := w.tg.Issues.RemoveBlockedBy(ctx, "mona", "hello", 1, b.GetID()); apitest.Status(err) != 404 {
		t.Fatalf("remove twice: %v", err)
	}
	evs, _, _ := w.rg.Issues.ListIssueEvents(ctx, "mona", "hello", 2, nil)
	if len(evs) != 2 || evs[0].GetEvent() != "blocking_added" || evs[1].GetEvent() != "blocking_removed" {
		t.Fatalf("events of #2: %d", len(evs))
	}
}

func TestIssueFieldValues(t *testing.T) {
	w := newWorld(t)
	e := w.e
	org := &model.Account{Login: "acme", DefaultRepoPermission: "read", MembersCanCreateRepos: true, MembersCanCreatePublicRepos: true}
	text := &model.IssueField{Name: "Notes", DataType: "text", Visibility: "all"}
	number := &model.IssueField{Name: "Estimate", DataType: "number", Visibility: "all"}
	date := &model.IssueField{Name: "Due", DataType: "date"}
	sel := &model.IssueField{Name: "Priority", DataType: "single_select", Visibility: "all",
		Options: []*model.IssueFieldOption{{Name: "High", Color: "red", Priority: 1}, {Name: "Low", Color: "gray", Priority: 2}}}
	if err := e.Store.Tx(ctx, func(tx store.Q) error {
		if err := tx.CreateOrg(ctx, org, w.hubot.ID); err != nil {
			return err
		}
		for _, f := range []*model.IssueField{text, number, date, sel} {
			f.OrgID = org.ID
			if err := tx.CreateIssueField(ctx, f); err != nil {
				return err
			}
		}
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	if _, _, err := w.hg.Repositories.Create(ctx, "acme", &github.Repository{Name: github.Ptr("app")}); err != nil {
		t.Fatal(err)
	}
	// Values can be set when the issue is created.
	is, _, err := w.hg.Issues.Create(ctx, "acme", "app", github.CreateIssueRequest{Title: "with fields",
		IssueFieldValues: []*github.IssueRequestFieldValue{{FieldID: sel.ID, Value: "high"}}})
	if err != nil || is.GetNumber() != 1 {
		t.Fatalf("create with fields: %+v %v", is, err)
	}
	var vals []map[string]any
	e.Must(200, "GET", "/repos/acme/app/issues/1/issue-field-values", w.hubotT, nil).JSON(t, &vals)
	if len(vals) != 1 || vals[0]["value"] != float64(sel.Options[0].ID) || vals[0]["single_select_option"].(map[string]any)["color"] != "red" {
		t.Fatalf("after create %v", vals)
	}
	e.Must(200, "POST", "/repos/acme/app/issues/1/issue-field-values", w.hubotT, map[string]any{"issue_field_values": []map[string]any{
		{"field_id": text.ID, "value": "some notes"}, {"field_id": number.ID, "value": 3.5}, {"field_id": date.ID, "value": "2025-03-01"},
	}}).JSON(t, &vals)
	if len(vals) != 4 || vals[1]["value"] != 3.5 || vals[2]["value"] != "2025-03-01" || vals[0]["data_type"] != "text" {
		t.Fatalf("after add %v", vals)
	}
	// Organization-only fields are hidden from outsiders.
	e.Must(200, "GET", "/repos/acme/app/issues/1/issue-field-values", w.eveT, nil).JSON(t, &vals)
	if len(vals) != 3 {
		t.Fatalf("outsider sees %d values", len(vals))
	}
	e.Must(200, "PUT", "/repos/acme/app/issues/1/issue-field-values", w.hubotT, map[string]any{"issue_field_values": []map[string]any{
		{"field_id": number.ID, "value": 8},
	}}).JSON(t, &vals)
	if len(vals) != 1 || vals[0]["value"] != float64(8) {
		t.Fatalf("after set %v", vals)
	}
	e.Must(204, "DELETE", fmt.Sprintf("/repos/acme/app/issues/1/issue-field-values/%d", number.ID), w.hubotT, nil)
	e.Must(404, "DELETE", fmt.Sprintf("/repos/acme/app/issues/1/issue-field-values/%d", number.ID), w.hubotT, nil)
	// Update through the issue too.
	if _, _, err := w.hg.Issues.Update(ctx, "acme", "app", 1, github.UpdateIssueRequest{
		IssueFieldValues: []*github.IssueRequestFieldValue{{FieldID: text.ID, Value: "patched"}}}); err != nil {
		t.Fatal(err)
	}
	e.Must(200, "GET", "/repos/acme/app/issues/1/issue-field-values", w.hubotT, nil).JSON(t, &vals)
	if len(vals) != 1 || vals[0]["value"] != "patched" {
		t.Fatalf("after patch %v", vals)
	}
	// Adding an empty list clears them all.
	e.Must(200, "POST", "/repos/acme/app/issues/1/issue-field-values", w.hubotT, map[string]any{"issue_field_values": []any{}}).JSON(t, &vals)
	if len(vals) != 0 {
		t.Fatalf("after clear %v", vals)
	}
	for _, tc := range []struct {
		name   string
		body   any
		status int
	}{
		{"unknown field", []map[string]any{{"field_id": 999, "value": "x"}}, 422},
		{"number as text", []map[string]any{{"field_id": number.ID, "value": "many"}}, 422},
		{"bad date", []map[string]any{{"field_id": date.ID, "value": "soon"}}, 422},
		{"unknown option", []map[string]any{{"field_id": sel.ID, "value": "Medium"}}, 422},
		{"text as number", []map[string]any{{"field_id": text.ID, "value": 5}}, 422},
		{"missing value", []map[string]any{{"field_id": text.ID}}, 422},
	} {
		if r := e.Do("POST", "/repos/acme/app/issues/1/issue-field-values", w.hubotT, map[string]any{"issue_field_values": tc.body}); r.StatusCode != tc.status {
			t.Errorf("%s: %d %s", tc.name, r.StatusCode, r.Body)
		}
	}
	// Write access is needed; user repositories have no fields.
	w.e.Must(403, "POST", "/repos/acme/app/issues/1/issue-field-values", w.eveT, map[string]any{"issue_field_values": []any{}})
	w.issue(t, "user repo")
	w.e.Must(422, "POST", "/repos/mona/hello/issues/1/issue-field-values", w.monaT, map[string]any{"issue_field_values": []any{}})
	var none []any
	w.e.Must(200, "GET", "/repos/mona/hello/issues/1/issue-field-values", w.monaT, nil).JSON(t, &none)
	if len(none) != 0 {
		t.Fatalf("user repo values %v", none)
	}
}

func ptrStr(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}
