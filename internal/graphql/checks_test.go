package graphql_test

import (
	"encoding/json"
	"fmt"
	"testing"

	"github.com/google/go-github/v92/github"
)

// TestCheckRunAnnotations: CheckRun.annotations pages each run's
// annotations, oldest first, with their span, level and blob URL; a batch
// of runs costs the same queries whatever their number.
func TestCheckRunAnnotations(t *testing.T) {
	w := newWorld(t)
	pr := openPull(t, w, "annotated", "Annotated change")
	gh := w.e.GitHub(w.monaTok)
	sha := pr.GetHead().GetSHA()
	run := func(name string, n int) {
		t.Helper()
		var list []*github.CheckRunAnnotation
		for i := 1; i <= n; i++ {
			a := &github.CheckRunAnnotation{Path: github.Ptr("src/a.go"), StartLine: github.Ptr(i), EndLine: github.Ptr(i),
				AnnotationLevel: github.Ptr("warning"), Message: github.Ptr(fmt.Sprintf("%s note %d", name, i))}
			if i == 1 {
				a.StartColumn, a.EndColumn, a.Title, a.RawDetails = github.Ptr(3), github.Ptr(7), github.Ptr("First"), github.Ptr("raw")
				a.AnnotationLevel = github.Ptr("failure")
			}
			list = append(list, a)
		}
		opts := github.CreateCheckRunOptions{Name: name, HeadSHA: sha, Status: github.Ptr("completed"), Conclusion: github.Ptr("neutral")}
		if n > 0 {
			opts.Output = &github.CheckRunOutput{Title: github.Ptr(name), Summary: github.Ptr("found some"), Annotations: list}
		}
		if _, _, err := gh.Checks.CreateCheckRun(ctx, "mona", "app", opts); err != nil {
			t.Fatal(err)
		}
	}
	run("lint", 3)
	run("vet", 1)
	run("build", 0)
	q := `query($n: Int!, $after: String) { repository(owner: "mona", name: "app") { pullRequest(number: $n) {
		commits(last: 1) { nodes { commit { statusCheckRollup { contexts(first: 20) { nodes { ... on CheckRun { name
		annotations(first: 2, after: $after) { totalCount pageInfo { hasNextPage endCursor }
		edges { cursor node { databaseId path annotationLevel message title rawDetails blobUrl
		location { start { line column } end { line column } } } } } } } } } } } } } } }`
	contexts := func(after any) map[string]any {
		t.Helper()
		r := post(t, w.e, w.melTok, q, map[string]any{"n": pr.GetNumber(), "after": after})
		c := dig(mustData(t, r), "repository", "pullRequest", "commits", "nodes").([]any)[0]
		out := map[string]any{}
		for _, n := range dig(c, "commit", "statusCheckRollup", "contexts", "nodes").([]any) {
			out[dig(n, "name").(string)] = dig(n, "annotations")
		}
		return out
	}
	got := contexts(nil)
	lint, vet, build := got["lint"], got["vet"], got["build"]
	edges := dig(lint, "edges").([]any)
	if dig(lint, "totalCount") != json.Number("3") || dig(lint, "pageInfo", "hasNextPage") != true || len(edges) != 2 {
		t.Fatalf("lint's annotations: %v", lint)
	}
	first := dig(edges[0], "node").(map[string]any)
	want := map[string]any{"path": "src/a.go", "annotationLevel": "FAILURE", "message": "lint note 1", "title": "First", "rawDetails": "raw",
		"blobUrl": w.e.URL + "/mona/app/blob/" + sha + "/src/a.go"}
	for k, v := range want {
		if first[k] != v {
			t.Errorf("annotation %s = %v, want %v", k, first[k], v)
		}
	}
	if dig(first, "location", "start", "line") != json.Number("1") || dig(first, "location", "start", "column") != json.Number("3") ||
		dig(first, "location", "end", "column") != json.Number("7") || dig(first, "databaseId") == nil {
		t.Errorf("first annotation: %v", first)
	}
	second := dig(edges[1], "node").(map[string]any)
	if second["annotationLevel"] != "WARNING" || second["title"] != nil || second["rawDetails"] != nil ||
		dig(second, "location", "start", "column") != nil || dig(second, "location", "start", "line") != json.Number("2") {
		t.Errorf("second annotation: %v", second)
	}
	if dig(vet, "totalCount") != json.Number("1") || len(dig(vet, "edges").([]any)) != 1 || dig(vet, "pageInfo", "hasNextPage") != false ||
		dig(build, "totalCount") != json.Number("0") || len(dig(build, "edges").([]any)) != 0 {
		t.Fatalf("vet's and build's annotations: %v %v", vet, build)
	}
	// The next page of each run after the cursor.
	got = contexts(dig(lint, "pageInfo", "endCursor"))
	edges = dig(got["lint"], "edges").([]any)
	if len(edges) != 1 || dig(edges[0], "node", "message") != "lint note 3" || dig(got["lint"], "pageInfo", "hasNextPage") != false ||
		len(dig(got["vet"], "edges").([]any)) != 0 {
		t.Fatalf("the second page: %v", got)
	}
	// Queries: the same for 3 runs as for 8.
	w.e.RunJobs()
	w.e.Deps.Jobs.Stop()
	reads := func() int64 { return w.e.LeastReads(func() { contexts(nil) }) }
	three := reads()
	for i := 0; i < 5; i++ {
		run(fmt.Sprintf("more%d", i), 2)
	}
	w.e.RunJobs()
	if eight := reads(); eight != three {
		t.Fatalf("queries for 3 check runs %d, for 8 %d", three, eight)
	}
}
