package projects_test

import (
	"fmt"
	"net/http"
	"strconv"
	"testing"

	"github.com/hubd/hubd/internal/apitest"
	"github.com/hubd/hubd/internal/authz"
	"github.com/hubd/hubd/internal/model"
	"github.com/hubd/hubd/internal/projects"
)

// TestItemsQueryCount: a page of items with every field's value costs the
// same number of queries whatever its size (issues and drafts, ten
// custom fields with values on every item). Both pages have a next link
// (the server's Link rewrite costs a lookup of its own).
func TestItemsQueryCount(t *testing.T) {
	w := newWorld(t)
	s := projects.New(w.e.Store)
	mc := &authz.Caller{Kind: authz.ClassicPAT, User: w.monaU, Scopes: authz.ParseScopes("project,repo")}
	p := w.project
	var fieldIDs []string
	var fields []*model.ProjectField
	for i := range 10 {
		typ := []string{"text", "number", "date", "single_select"}[i%4]
		in := projects.FieldInput{Name: fmt.Sprintf("F%d", i), DataType: typ}
		if typ == "single_select" {
			in.Options = []model.ProjectOption{{Name: "a"}, {Name: "b"}}
		}
		f, err := s.CreateField(ctx, mc, p, in)
		if err != nil {
			t.Fatal(err)
		}
		fields = append(fields, f)
	}
	all, err := w.e.Store.R().ProjectFields(ctx, p.ID)
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range all {
		fieldIDs = append(fieldIDs, strconv.FormatInt(f.ID, 10))
	}
	for i := range 24 {
		var it *model.ProjectItem
		if i < 2 {
			is, _, err := s.FindIssue(ctx, mc, 0, "acme", "app", int64(i+1), false)
			if err != nil {
				t.Fatal(err)
			}
			it, err = s.AddIssue(ctx, mc, p, is)
			if err != nil {
				t.Fatal(err)
			}
		} else if it, err = s.AddDraft(ctx, mc, p, fmt.Sprintf("draft %d", i), ""); err != nil {
			t.Fatal(err)
		}
		var vals []projects.Value
		for j, f := range fields {
			var v any
			switch f.DataType {
			case "text":
				v = fmt.Sprintf("t%d", i)
			case "number":
				v = float64(i * j)
			case "date":
				v = "2026-03-01"
			case "single_select":
				v = f.Options[i%2].ID
			}
			vals = append(vals, projects.Value{FieldID: f.ID, Value: v})
		}
		if err := s.SetValues(ctx, mc, p, it, vals); err != nil {
			t.Fatal(err)
		}
	}
	cost := func(perPage int) int64 {
		for range 2 { // the items' events consumed, and the jobs they queued run (nothing reads beside the request)
			if err := w.e.Deps.Outbox.Sync(ctx); err != nil {
				t.Fatal(err)
			}
			w.e.RunJobs()
		}
		return w.e.LeastReads(func() {
			var items []map[string]any
			w.e.Must(http.StatusOK, "GET", apitest.Query("/orgs/acme/projectsV2/1/items", "per_page", strconv.Itoa(perPage), "fields", joinIDs(fieldIDs)), w.mona, nil).JSON(t, &items)
			if len(items) != perPage || len(items[perPage-1]["fields"].([]any)) != len(fieldIDs) {
				t.Fatalf("page of %d: %d items", perPage, len(items))
			}
		})
	}
	if one, many := cost(1), cost(23); one != many {
		t.Errorf("a page of 1 item costs %d queries, a page of 23 costs %d", one, many)
	}
}

func joinIDs(s []string) string {
	out := ""
	for i, x := range s {
		if i > 0 {
			out += ","
		}
		out += x
	}
	return out
}
