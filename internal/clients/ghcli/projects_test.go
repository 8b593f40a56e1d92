package ghcli_test

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/hubd/hubd/internal/apitest"
	"github.com/hubd/hubd/internal/clients/ghcli"
)

// ghJSON runs gh with args and decodes its JSON output.
func ghJSON(t *testing.T, g *ghcli.GH, args ...string) map[string]any {
	t.Helper()
	out := g.Must(args...)
	var m map[string]any
	if err := json.Unmarshal([]byte(out), &m); err != nil {
		t.Fatalf("gh %s: not JSON: %v\n%s", strings.Join(args, " "), err, out)
	}
	return m
}

// gh project create, list, view, edit, field-create, field-list,
// item-create, item-add, item-edit, item-list, link and delete against
// hubd, with the state read back over REST.
func TestGhProjects(t *testing.T) {
	e := apitest.New(t)
	mona, _ := e.NewUser("mona", false)
	// gh project needs a token with the project scope, as on GitHub.
	tok := e.Token(mona, apitest.AllScopes+",project")
	e.Must(201, "POST", "/user/repos", tok, map[string]any{"name": "hello"})
	issue := e.Must(201, "POST", "/repos/mona/hello/issues", tok, map[string]any{"title": "Crash on start", "labels": []string{"bug"}}).Map(t)
	g := ghcli.Start(t, e)
	g.LoginAs("mona", tok)

	created := ghJSON(t, g, "project", "create", "--owner", "mona", "--title", "Roadmap", "--format", "json")
	if created["number"] != float64(1) || created["title"] != "Roadmap" {
		t.Fatalf("gh project create: %v", created)
	}
	projectID, _ := created["id"].(string)
	var rest map[string]any
	e.Must(200, "GET", "/users/mona/projectsV2/1", tok, nil).JSON(t, &rest)
	if rest["title"] != "Roadmap" || rest["node_id"] != projectID {
		t.Fatalf("the project over REST: %v (gh said %v)", rest, created)
	}

	list := ghJSON(t, g, "project", "list", "--owner", "mona", "--format", "json")
	if ps, _ := list["projects"].([]any); len(ps) != 1 || dig(ps[0], "title") != "Roadmap" {
		t.Fatalf("gh project list: %v", list)
	}
	g.Must("project", "edit", "1", "--owner", "mona", "--description", "What we ship", "--readme", "Plans")
	view := ghJSON(t, g, "project", "view", "1", "--owner", "mona", "--format", "json")
	if view["title"] != "Roadmap" || view["shortDescription"] != "What we ship" || view["readme"] != "Plans" {
		t.Fatalf("gh project view: %v", view)
	}

	g.Must("project", "field-create", "1", "--owner", "mona", "--name", "Points", "--data-type", "NUMBER")
	g.Must("project", "field-create", "1", "--owner", "mona", "--name", "Priority", "--data-type", "SINGLE_SELECT", "--single-select-options", "High,Low")
	g.Must("project", "field-create", "1", "--owner", "mona", "--name", "Notes", "--data-type", "TEXT")
	fields := ghJSON(t, g, "project", "field-list", "1", "--owner", "mona", "--format", "json")
	byName := map[string]map[string]any{}
	for _, f := range fields["fields"].([]any) {
		m := f.(map[string]any)
		byName[m["name"].(string)] = m
	}
	if byName["Points"]["type"] != "ProjectV2Field" || byName["Priority"]["type"] != "ProjectV2SingleSelectField" || byName["Title"] == nil || byName["Status"] == nil {
		t.Fatalf("gh project field-list: %v", fields)
	}
	if opts, _ := byName["Priority"]["options"].([]any); len(opts) != 2 || dig(opts[0], "name") != "High" {
		t.Fatalf("gh project field-list options: %v", byName["Priority"])
	}
	var restFields []map[string]any
	e.Must(200, "GET", "/users/mona/projectsV2/1/fields", tok, nil).JSON(t, &restFields)
	names := map[string]string{}
	var pointsID string
	for _, f := range restFields {
		names[f["name"].(string)], _ = f["data_type"].(string)
		if f["name"] == "Points" {
			pointsID = itoa(f["id"])
		}
	}
	if names["Points"] != "number" || names["Priority"] != "single_select" || names["Notes"] != "text" {
		t.Fatalf("fields over REST after gh project field-create: %v", names)
	}

	draft := ghJSON(t, g, "project", "item-create", "1", "--owner", "mona", "--title", "Write docs", "--body", "All of them", "--format", "json")
	if draft["title"] != "Write docs" {
		t.Fatalf("gh project item-create: %v", draft)
	}
	added := ghJSON(t, g, "project", "item-add", "1", "--owner", "mona", "--url", issue["html_url"].(string), "--format", "json")
	if added["title"] != "Crash on start" {
		t.Fatalf("gh project item-add: %v", added)
	}
	itemID, _ := added["id"].(string)
	priorityHigh := dig(byName["Priority"], "options", "0", "id").(string)
	g.Must("project", "item-edit", "--id", itemID, "--project-id", projectID, "--field-id", byName["Points"]["id"].(string), "--number", "5")
	g.Must("project", "item-edit", "--id", itemID, "--project-id", projectID, "--field-id", byName["Priority"]["id"].(string), "--single-select-option-id", priorityHigh)
	g.Must("project", "item-edit", "--id", itemID, "--project-id", projectID, "--field-id", byName["Notes"]["id"].(string), "--text", "seen twice")
	draftContent, _ := dig(draft, "content", "id").(string)
	if draftContent == "" {
		draftContent, _ = dig(draft, "id").(string)
	}

	// An iteration field (gh's field-create makes no iteration fields: it
	// is made over REST) and an item in its first iteration.
	sprint := e.Must(201, "POST", "/users/mona/projectsV2/1/fields", tok, map[string]any{"name": "Sprint", "data_type": "iteration",
		"iteration_configuration": map[string]any{"start_date": "2030-01-07", "duration": 14,
			"iterations": []any{map[string]any{"title": "Sprint 1", "start_date": "2030-01-07", "duration": 14}}}}).Map(t)
	iterationID := dig(sprint, "configuration", "iterations", "0", "id").(string)
	fields = ghJSON(t, g, "project", "field-list", "1", "--owner", "mona", "--format", "json")
	var sprintField map[string]any
	for _, f := range fields["fields"].([]any) {
		if dig(f, "name") == "Sprint" {
			sprintField = f.(map[string]any)
		}
	}
	if sprintField["type"] != "ProjectV2IterationField" {
		t.Fatalf("gh project field-list, the iteration field: %v", fields)
	}
	g.Must("project", "item-edit", "--id", itemID, "--project-id", projectID, "--field-id", sprintField["id"].(string), "--iteration-id", iterationID)

	// The draft's title, edited through its content id (DI_...).
	var drafts []map[string]any
	e.Must(200, "GET", "/users/mona/projectsV2/1/items", tok, nil).JSON(t, &drafts)
	var draftNodeID string
	for _, it := range drafts {
		if it["content_type"] == "DraftIssue" {
			draftNodeID, _ = dig(it, "content", "node_id").(string)
		}
	}
	g.Must("project", "item-edit", "--id", draftNodeID, "--title", "Write more docs")

	items := ghJSON(t, g, "project", "item-list", "1", "--owner", "mona", "--format", "json")
	if items["totalCount"] != float64(2) {
		t.Fatalf("gh project item-list: %v", items)
	}
	var got map[string]any
	for _, it := range items["items"].([]any) {
		if dig(it, "id") == itemID {
			got = it.(map[string]any)
		}
	}
	if got == nil || got["points"] != float64(5) || got["priority"] != "High" || got["notes"] != "seen twice" ||
		dig(got, "content", "number") != float64(1) || !strings.HasSuffix(dig(got, "repository").(string), "/mona/hello") {
		t.Fatalf("gh project item-list, the issue: %v", got)
	}
	if labels, _ := got["labels"].([]any); len(labels) != 1 || labels[0] != "bug" {
		t.Fatalf("gh project item-list, the issue's labels: %v", got)
	}
	if dig(got, "sprint", "title") != "Sprint 1" || dig(got, "sprint", "startDate") != "2030-01-07" || dig(got, "sprint", "duration") != float64(14) {
		t.Fatalf("gh project item-list, the issue's iteration: %v", got)
	}
	var draftTitle any
	for _, it := range items["items"].([]any) {
		if dig(it, "content", "type") == "DraftIssue" {
			draftTitle = dig(it, "content", "title")
		}
	}
	if draftTitle != "Write more docs" {
		t.Fatalf("gh project item-list after gh project item-edit --title: %v", items)
	}

	// The values over REST.
	var restItems []map[string]any
	e.Must(200, "GET", "/users/mona/projectsV2/1/items?fields="+pointsID, tok, nil).JSON(t, &restItems)
	points := map[string]any{}
	for _, it := range restItems {
		for _, f := range it["fields"].([]any) {
			if dig(f, "name") == "Points" && dig(f, "value") != nil {
				points[itoa(it["id"])] = dig(f, "value")
			}
		}
	}
	if len(restItems) != 2 || len(points) != 1 || !hasValue(points, 5) {
		t.Fatalf("items over REST: %v", restItems)
	}

	// gh issue create --project finds the project among the viewer's
	// (and, once linked, the repository's) projects by title.
	g.Must("project", "link", "1", "--owner", "mona", "--repo", "mona/hello")
	g.Must("issue", "create", "-R", "mona/hello", "--title", "Slow start", "--body", "It takes a minute", "--project", "Roadmap")
	e.Must(200, "GET", "/users/mona/projectsV2/1/items", tok, nil).JSON(t, &restItems)
	found := false
	for _, it := range restItems {
		if dig(it, "content", "title") == "Slow start" && it["content_type"] == "Issue" {
			found = true
		}
	}
	if len(restItems) != 3 || !found {
		t.Fatalf("items after gh issue create --project: %v", restItems)
	}
	g.Must("project", "unlink", "1", "--owner", "mona", "--repo", "mona/hello")

	// field-delete, item-archive (and --undo), item-delete.
	g.Must("project", "field-delete", "--id", byName["Notes"]["id"].(string))
	e.Must(200, "GET", "/users/mona/projectsV2/1/fields", tok, nil).JSON(t, &restFields)
	for _, f := range restFields {
		if f["name"] == "Notes" {
			t.Fatalf("fields after gh project field-delete: %v", restFields)
		}
	}
	archived := func() int {
		var list []map[string]any
		e.Must(200, "GET", "/users/mona/projectsV2/1/items?q=is:archived", tok, nil).JSON(t, &list)
		return len(list)
	}
	g.Must("project", "item-archive", "1", "--owner", "mona", "--id", itemID)
	if n := archived(); n != 1 {
		t.Fatalf("%d archived items after gh project item-archive", n)
	}
	g.Must("project", "item-archive", "1", "--owner", "mona", "--id", itemID, "--undo")
	if n := archived(); n != 0 {
		t.Fatalf("%d archived items after gh project item-archive --undo", n)
	}
	g.Must("project", "item-delete", "1", "--owner", "mona", "--id", itemID)
	e.Must(200, "GET", "/users/mona/projectsV2/1/items", tok, nil).JSON(t, &restItems)
	if len(restItems) != 2 {
		t.Fatalf("items after gh project item-delete: %v", restItems)
	}

	// gh project copy: fields and drafts come along, issues do not.
	copied := ghJSON(t, g, "project", "copy", "1", "--source-owner", "mona", "--target-owner", "mona", "--title", "Roadmap 2", "--drafts", "--format", "json")
	if copied["number"] != float64(2) || copied["title"] != "Roadmap 2" {
		t.Fatalf("gh project copy: %v", copied)
	}
	e.Must(200, "GET", "/users/mona/projectsV2/2/fields", tok, nil).JSON(t, &restFields)
	e.Must(200, "GET", "/users/mona/projectsV2/2/items", tok, nil).JSON(t, &restItems)
	copiedFields := map[string]bool{}
	for _, f := range restFields {
		copiedFields[f["name"].(string)] = true
	}
	if !copiedFields["Points"] || !copiedFields["Priority"] || !copiedFields["Sprint"] || len(restItems) != 1 || dig(restItems[0], "content", "title") != "Write more docs" {
		t.Fatalf("the copy over REST: fields %v, items %v", copiedFields, restItems)
	}

	g.Must("project", "delete", "1", "--owner", "mona")
	e.Must(404, "GET", "/users/mona/projectsV2/1", tok, nil)
}

// hasValue is whether a value of m is the number n.
func hasValue(m map[string]any, n float64) bool {
	for _, v := range m {
		if v == n {
			return true
		}
	}
	return false
}

// gh project in an organization: create, field-create, item-create,
// item-list and close, read back over REST.
func TestGhOrgProjects(t *testing.T) {
	e := apitest.New(t)
	mona, _ := e.NewUser("mona", false)
	tok := e.Token(mona, apitest.AllScopes+",project")
	e.Must(201, "POST", "/admin/organizations", e.AdminToken, map[string]any{"login": "acme", "admin": "mona"})
	g := ghcli.Start(t, e)
	g.LoginAs("mona", tok)

	created := ghJSON(t, g, "project", "create", "--owner", "acme", "--title", "Launch", "--format", "json")
	if created["number"] != float64(1) || dig(created, "owner", "login") != "acme" {
		t.Fatalf("gh project create --owner acme: %v", created)
	}
	g.Must("project", "field-create", "1", "--owner", "acme", "--name", "Due", "--data-type", "DATE")
	g.Must("project", "item-create", "1", "--owner", "acme", "--title", "Press release")
	items := ghJSON(t, g, "project", "item-list", "1", "--owner", "acme", "--format", "json")
	if items["totalCount"] != float64(1) || dig(firstItem(items), "content", "title") != "Press release" {
		t.Fatalf("gh project item-list --owner acme: %v", items)
	}
	g.Must("project", "close", "1", "--owner", "acme")
	var rest map[string]any
	e.Must(200, "GET", "/orgs/acme/projectsV2/1", tok, nil).JSON(t, &rest)
	if rest["title"] != "Launch" || rest["state"] != "closed" {
		t.Fatalf("the organization's project over REST after gh project close: %v", rest)
	}
	list := ghJSON(t, g, "project", "list", "--owner", "acme", "--closed", "--format", "json")
	if ps, _ := list["projects"].([]any); len(ps) != 1 || dig(ps[0], "closed") != true {
		t.Fatalf("gh project list --closed: %v", list)
	}
}

func firstItem(items map[string]any) any {
	if l, _ := items["items"].([]any); len(l) > 0 {
		return l[0]
	}
	return nil
}
