package graphql_test

import (
	"sort"
	"strings"
	"testing"
)

// TestFeatureDetectionTypes: gh's feature detection (internal/
// featuredetection) asks __type(name:) for Issue, PullRequest,
// StatusCheckRollupContextConnection, WorkflowRun and Repository, two at
// most per query, and reads their fields' names. Each answers with every
// field hubd serves on the type (and so resolves), no other: gh turns on
// what it finds, so a listed field must answer.
func TestFeatureDetectionTypes(t *testing.T) {
	w := newWorld(t)
	for _, q := range []struct{ name, query string }{
		{"Issue_fields", `query Issue_fields { Issue: __type(name: "Issue") { fields(includeDeprecated: true) { name } } }`},
		{"PullRequest_fields", `query PullRequest_fields { PullRequest: __type(name: "PullRequest") { fields(includeDeprecated: true) { name } }
			StatusCheckRollupContextConnection: __type(name: "StatusCheckRollupContextConnection") { fields(includeDeprecated: true) { name } } }`},
		{"PullRequest_fields2", `query PullRequest_fields2 { WorkflowRun: __type(name: "WorkflowRun") { fields(includeDeprecated: true) { name } } }`},
		{"Repository_fields", `query Repository_fields { Repository: __type(name: "Repository") { fields(includeDeprecated: true) { name } } }`},
	} {
		d := mustData(t, post(t, w.e, w.monaTok, q.query, nil))
		for typ, v := range d {
			var got []string
			for _, f := range dig(v, "fields").([]any) {
				got = append(got, dig(f, "name").(string))
			}
			var want []string
			for _, f := range served.AST.Types[typ].Fields {
				if !strings.HasPrefix(f.Name, "__") {
					want = append(want, f.Name)
				}
			}
			sort.Strings(got)
			sort.Strings(want)
			if strings.Join(got, ",") != strings.Join(want, ",") {
				t.Errorf("%s: __type(name: %q) lists %v, the served schema %v", q.name, typ, got, want)
			}
		}
	}
	// What gh's RepositoryFeatures looks for is there now that hubd
	// answers it.
	d := mustData(t, post(t, w.e, w.monaTok, `{ __type(name: "Repository") { fields(includeDeprecated: true) { name } } }`, nil))
	names := map[string]bool{}
	for _, f := range dig(d, "__type", "fields").([]any) {
		names[dig(f, "name").(string)] = true
	}
	for _, f := range []string{"pullRequestTemplates", "visibility", "autoMergeAllowed", "object", "refs", "licenseInfo"} {
		if !names[f] {
			t.Errorf("Repository lacks %s", f)
		}
	}
	// A type hubd does not serve is null, as GitHub answers an unknown name.
	d = mustData(t, post(t, w.e, w.monaTok, `{ __type(name: "TeamDiscussion") { name } }`, nil))
	if v, ok := d["__type"]; !ok || v != nil {
		t.Fatalf("unknown type: %v", d)
	}
}
