package issues_test

import (
	"strings"
	"testing"
)

// TestTextLimits: titles over 256 characters and bodies over 65,536 are
// refused with GitHub's 422, on create and update of issues and comments;
// the limits count characters, not bytes, and nothing is stored.
func TestTextLimits(t *testing.T) {
	w := newWorld(t)
	w.issue(t, "first")
	w.e.Must(201, "POST", "/repos/mona/hello/issues/1/comments", w.monaT, map[string]any{"body": "hi"})
	var commentID int64
	{
		var list []struct{ ID int64 }
		w.e.Must(200, "GET", "/repos/mona/hello/issues/1/comments", w.monaT, nil).JSON(t, &list)
		if len(list) != 1 {
			t.Fatalf("comments %v", list)
		}
		commentID = list[0].ID
	}
	commentPath := "/repos/mona/hello/issues/comments/" + itoa(commentID)
	long := strings.Repeat("a", 65537)
	title := strings.Repeat("t", 257)
	issueBody := "body is too long (maximum is 65536 characters)"
	commentMsg := "Body is too long (maximum is 65536 characters)"
	titleMsg := "title is too long (maximum is 256 characters)"
	for _, tc := range []struct {
		name, method, path string
		body               map[string]any
		resource, field    string
		code, message      string
	}{
		{"create: long body", "POST", "/repos/mona/hello/issues", map[string]any{"title": "t", "body": long}, "Issue", "body", "custom", issueBody},
		{"create: long title", "POST", "/repos/mona/hello/issues", map[string]any{"title": title}, "Issue", "title", "custom", titleMsg},
		{"create: long title in multibyte characters", "POST", "/repos/mona/hello/issues", map[string]any{"title": strings.Repeat("é", 257)}, "Issue", "title", "custom", titleMsg},
		{"update: long body", "PATCH", "/repos/mona/hello/issues/1", map[string]any{"body": long}, "Issue", "body", "custom", issueBody},
		{"update: long title", "PATCH", "/repos/mona/hello/issues/1", map[string]any{"title": title}, "Issue", "title", "custom", titleMsg},
		{"comment create: long body", "POST", "/repos/mona/hello/issues/1/comments", map[string]any{"body": long}, "IssueComment", "data", "unprocessable", commentMsg},
		{"comment update: long body", "PATCH", commentPath, map[string]any{"body": long}, "IssueComment", "data", "unprocessable", commentMsg},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := w.e.Do(tc.method, tc.path, w.monaT, tc.body)
			if r.StatusCode != 422 {
				t.Fatalf("status %d: %.300s", r.StatusCode, r.Body)
			}
			var body struct {
				Message string
				Errors  []struct{ Resource, Field, Code, Message string }
			}
			r.JSON(t, &body)
			if body.Message != "Validation Failed" || len(body.Errors) != 1 {
				t.Fatalf("body %s", r.Body)
			}
			if e := body.Errors[0]; e.Resource != tc.resource || e.Field != tc.field || e.Code != tc.code || e.Message != tc.message {
				t.Fatalf("error %+v", e)
			}
		})
	}
	// Nothing was stored: one issue with its first title, one short comment.
	var issues []struct{ Title string }
	w.e.Must(200, "GET", "/repos/mona/hello/issues", w.monaT, nil).JSON(t, &issues)
	if len(issues) != 1 || issues[0].Title != "first" {
		t.Fatalf("issues %v", issues)
	}
	c := w.e.Must(200, "GET", commentPath, w.monaT, nil).Map(t)
	if c["body"] != "hi" {
		t.Fatalf("comment %v", c["body"])
	}
	// Exactly at the limits is fine, counted in characters: 65,536 two-byte
	// characters are 131,072 bytes.
	atLimit := strings.Repeat("é", 65536)
	m := w.e.Must(201, "POST", "/repos/mona/hello/issues", w.monaT, map[string]any{"title": strings.Repeat("t", 256), "body": atLimit}).Map(t)
	if m["body"] != atLimit {
		t.Fatal("body at the limit was not kept")
	}
	w.e.Must(200, "PATCH", "/repos/mona/hello/issues/1", w.monaT, map[string]any{"title": strings.Repeat("ü", 256), "body": atLimit})
	w.e.Must(201, "POST", "/repos/mona/hello/issues/1/comments", w.monaT, map[string]any{"body": atLimit})
	w.e.Must(200, "PATCH", commentPath, w.monaT, map[string]any{"body": atLimit})
}
