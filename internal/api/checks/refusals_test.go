package checks_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-github/v92/github"

	"github.com/hubd/hubd/internal/authz"
)

func TestRefusals(t *testing.T) {
	f := newFixture(t)
	reader := f.user(t, "reader", authz.Read)
	writer := f.user(t, "writer", authz.Write)
	stranger := f.user(t, "stranger", authz.None)
	run := f.run(t, github.CreateCheckRunOptions{Name: "ci", HeadSHA: f.main})
	suite := run.GetCheckSuite().GetID()
	// A run of the private repository, and a public-only token.
	secretRun := f.e.Must(201, "POST", "/repos/mona/secret/check-runs", f.token, map[string]any{"name": "ci", "head_sha": "main"}).Map(t)
	u, _ := f.e.NewUser("pat", false)
	publicOnly := f.e.Token(u, "public_repo")
	missing := strings.Repeat("ab", 20)
	good := map[string]any{"name": "ci", "head_sha": f.main}
	runPath := fmt.Sprintf("/repos/mona/app/check-runs/%d", run.GetID())
	annotation := map[string]any{"path": "README.md", "start_line": 1, "end_line": 1, "annotation_level": "notice", "message": "x"}
	many := make([]any, 51)
	for i := range many {
		many[i] = annotation
	}
	action := map[string]any{"label": "a", "description": "b", "identifier": "c"}

	for _, tc := range []struct {
		name, method, path, token string
		body                      any
		want                      int
		message                   string
	}{
		{"anonymous create", "POST", "/repos/mona/app/check-runs", "", good, 401, "Requires authentication"},
		{"reader create", "POST", "/repos/mona/app/check-runs", reader, good, 403, "Must have write access"},
		{"stranger on public", "POST", "/repos/mona/app/check-runs", stranger, good, 403, "Must have write access"},
		{"stranger on private", "POST", "/repos/mona/secret/check-runs", stranger, good, 404, "Not Found"},
		{"stranger reads private run", "GET", fmt.Sprintf("/repos/mona/secret/check-runs/%v", secretRun["id"]), stranger, nil, 404, "Not Found"},
		{"public_repo token on private", "GET", fmt.Sprintf("/repos/mona/secret/check-runs/%v", secretRun["id"]), publicOnly, nil, 404, "Not Found"},
		{"run of another repository", "GET", fmt.Sprintf("/repos/mona/app/check-runs/%v", secretRun["id"]), f.token, nil, 404, "Not Found"},
		{"reader update", "PATCH", runPath, reader, map[string]any{"status": "in_progress"}, 403, "Must have write access"},
		{"reader rerequest", "POST", runPath + "/rerequest", reader, nil, 403, "Must have write access"},
		{"reader suite", "POST", "/repos/mona/app/check-suites", reader, map[string]any{"head_sha": f.main}, 403, "Must have write access"},
		{"writer preferences", "PATCH", "/repos/mona/app/check-suites/preferences", writer,
			map[string]any{"auto_trigger_checks": []any{map[string]any{"app_id": 0, "setting": false}}}, 403, "Must have admin rights"},
		{"reader rerequest suite", "POST", fmt.Sprintf("/repos/mona/app/check-suites/%d/rerequest", suite), reader, nil, 403, "Must have write access"},
		{"unknown sha", "POST", "/repos/mona/app/check-runs", writer, map[string]any{"name": "ci", "head_sha": missing}, 422, "No commit found for SHA: " + missing},
		{"unknown suite sha", "POST", "/repos/mona/app/check-suites", writer, map[string]any{"head_sha": missing}, 422, "No commit found for SHA: " + missing},
		{"no name", "POST", "/repos/mona/app/check-runs", writer, map[string]any{"head_sha": f.main}, 422, ""},
		{"empty name", "POST", "/repos/mona/app/check-runs", writer, map[string]any{"name": "", "head_sha": f.main}, 422, ""},
		{"completed without conclusion", "POST", "/repos/mona/app/check-runs", writer,
			map[string]any{"name": "ci", "head_sha": f.main, "status": "completed"}, 422, "conclusion"},
		{"completed_at without conclusion", "POST", "/repos/mona/app/check-runs", writer,
			map[string]any{"name": "ci", "head_sha": f.main, "completed_at": "2026-01-01T00:00:00Z"}, 422, "conclusion"},
		{"update to completed without conclusion", "PATCH", runPath, writer, map[string]any{"status": "completed"}, 422, "conclusion"},
		{"stale", "POST", "/repos/mona/app/check-runs", writer, map[string]any{"name": "ci", "head_sha": f.main, "conclusion": "stale"}, 422, ""},
		{"bad status", "POST", "/repos/mona/app/check-runs", writer, map[string]any{"name": "ci", "head_sha": f.main, "status": "done"}, 422, ""},
		{"bad time", "POST", "/repos/mona/app/check-runs", writer, map[string]any{"name": "ci", "head_sha": f.main, "started_at": "yesterday"}, 422, ""},
		{"51 annotations", "POST", "/repos/mona/app/check-runs", writer, map[string]any{"name": "ci", "head_sha": f.main,
			"output": map[string]any{"title": "t", "summary": "s", "annotations": many}}, 422, ""},
		{"4 actions", "POST", "/repos/mona/app/check-runs", writer, map[string]any{"name": "ci", "head_sha": f.main,
			"actions": []any{action, action, action, action}}, 422, ""},
		{"bad annotation level", "POST", "/repos/mona/app/check-runs", writer, map[string]any{"name": "ci", "head_sha": f.main,
			"output": map[string]any{"title": "t", "summary": "s", "annotations": []any{map[string]any{"path": "a", "start_line": 1,
				"end_line": 1, "annotation_level": "fatal", "message": "x"}}}}, 422, ""},
		{"columns across lines", "POST", "/repos/mona/app/check-runs", writer, map[string]any{"name": "ci", "head_sha": f.main,
			"output": map[string]any{"title": "t", "summary": "s", "annotations": []any{map[string]any{"path": "a", "start_line": 1,
				"end_line": 2, "start_column": 1, "annotation_level": "notice", "message": "x"}}}}, 422, "start_column"},
		{"unknown run", "PATCH", "/repos/mona/app/check-runs/999999", writer, map[string]any{"status": "in_progress"}, 404, "Not Found"},
		{"non-numeric run", "GET", "/repos/mona/app/check-runs/abc", writer, nil, 404, ""},
		{"bad filter", "GET", "/repos/mona/app/commits/main/check-runs?filter=some", writer, nil, 422, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := f.e.Do(tc.method, tc.path, tc.token, tc.body)
			if r.StatusCode != tc.want || !strings.Contains(string(r.Body), tc.message) {
				t.Errorf("status %d, want %d with %q: %s", r.StatusCode, tc.want, tc.message, r.Body)
			}
		})
	}
	// Nothing refused was written: the two runs made above are all there is.
	for _, repo := range []string{"app", "secret"} {
		res, _, err := f.gh.Checks.ListCheckRunsForRef(ctx, "mona", repo, "main", &github.ListCheckRunsOptions{Filter: github.Ptr("all")})
		if err != nil || res.GetTotal() != 1 {
			t.Errorf("%s runs: %+v %v", repo, res, err)
		}
	}
	got, _, _ := f.gh.Checks.GetCheckRun(ctx, "mona", "app", run.GetID())
	if got.GetStatus() != "queued" || got.GetOutput().GetAnnotationsCount() != 0 {
		t.Errorf("run changed: %+v", got)
	}
	// A writer may create and update; a public_repo token writes to a public repository it may write to.
	if _, err := f.e.GitHub(writer).Checks.ReRequestCheckRun(ctx, "mona", "app", run.GetID()); err != nil {
		t.Errorf("writer rerequest: %v", err)
	}
	monaPublic := f.e.Token(mustAccount(t, f, "mona"), "public_repo")
	if r := f.e.Do("POST", "/repos/mona/app/check-runs", monaPublic, good); r.StatusCode != 201 {
		t.Errorf("public_repo on public: %d %s", r.StatusCode, r.Body)
	}
	if r := f.e.Do("POST", "/repos/mona/secret/check-runs", monaPublic, good); r.StatusCode != 404 {
		t.Errorf("public_repo on private: %d %s", r.StatusCode, r.Body)
	}
}
