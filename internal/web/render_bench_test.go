package web_test

import (
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/hubd/hubd/internal/apitest"
)

// BenchmarkRender measures the pages issue 31 names against a bare
// net/http handler serving the same bytes, in the same run and
// interleaved request by request (so both see the same load): the
// repository home, an issue with 200 timeline items (150 comments, 50
// label events), a pull request's conversation with 200 timeline items
// and its files page with a 5,000-line diff. Each sub-benchmark reports
// ms/page (hubd's full request over real HTTP, an upper bound of the
// server-side render) and bare-ratio (hubd's requests per second as a
// fraction of the bare handler's: the bare handler's time per request
// over hubd's, one connection). Targets: under 50 ms for the issue and
// pull request pages, a ratio of at least 0.25 for the repository home.
// bench/web.sh runs it and prints the load average beside it.
func BenchmarkRender(b *testing.B) {
	e := apitest.New(b)
	_, tok := e.NewUser("mona", false)
	e.Must(201, "POST", "/user/repos", tok, map[string]any{"name": "hello"})
	w := newWork(b)
	base := map[string]string{"README.md": "# Hello\n\n" + strings.Repeat("Some *text* with a [link](docs/x.md).\n\n", 50)}
	for i := range 10 {
		base[fmt.Sprintf("src/f%d.go", i)] = strings.Repeat("// an old line of code <with> & entities\n", 250)
	}
	w.commit("Base", base)
	w.push(e, tok, "mona", "hello", "main")
	w.git("checkout", "-q", "-b", "feature")
	changed := map[string]string{}
	for i := range 10 {
		changed[fmt.Sprintf("src/f%d.go", i)] = strings.Repeat("// a new line of code\n", 250)
	}
	w.commit("Change", changed) // 2,500 lines removed, 2,500 added
	w.push(e, tok, "mona", "hello", "feature")

	// Issue 1: 150 comments and 50 label events.
	e.Must(201, "POST", "/repos/mona/hello/issues", tok, map[string]any{"title": "Busy", "body": "A **busy** issue."})
	for i := range 150 {
		e.Must(201, "POST", "/repos/mona/hello/issues/1/comments", tok, map[string]any{"body": fmt.Sprintf("Comment %d with `code`, @mona and #1.", i)})
		if i%6 == 0 {
			e.Must(200, "POST", "/repos/mona/hello/issues/1/labels", tok, map[string]any{"labels": []string{"bug"}})
		} else if i%6 == 3 {
			e.Must(200, "DELETE", "/repos/mona/hello/issues/1/labels/bug", tok, nil)
		}
	}
	// Pull request 2: 150 comments and 50 reviews with an inline comment each.
	e.Must(201, "POST", "/repos/mona/hello/pulls", tok, map[string]any{"title": "Big", "head": "feature", "base": "main", "body": "Fixes **much**."})
	for range 150 {
		e.Must(201, "POST", "/repos/mona/hello/issues/2/comments", tok, map[string]any{"body": "A comment with `code`, @mona and #1."})
	}
	for i := range 50 {
		e.Must(200, "POST", "/repos/mona/hello/pulls/2/reviews", tok, map[string]any{"event": "COMMENT", "body": "Looked.",
			"comments": []map[string]any{{"path": fmt.Sprintf("src/f%d.go", i%10), "line": 1 + i, "side": "RIGHT", "body": "Why *this*?"}}})
	}
	e.RunJobs()

	for _, p := range []struct{ name, path, want string }{
		{"repo_home", "/mona/hello", "Some <em>text</em>"},
		{"issue_200_items", "/mona/hello/issues/1", "Comment 149"},
		{"pull_200_items", "/mona/hello/pull/2", "Why <em>this</em>?"},
		{"pull_files_5000_lines", "/mona/hello/pull/2/files", "a new line of code"},
	} {
		b.Run(p.name, func(b *testing.B) {
			req, _ := http.NewRequest("GET", e.URL+p.path, nil)
			req.Header.Set("Accept", "text/html")
			req.SetBasicAuth("mona", tok)
			body, hdr := get(b, req)
			if !strings.Contains(string(body), p.want) {
				b.Fatalf("%s lacks %q", p.path, p.want)
			}
			bare := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				w.Header().Set("Content-Type", hdr.Get("Content-Type"))
				w.Header().Set("Content-Length", fmt.Sprint(len(body)))
				w.Write(body)
			}))
			defer bare.Close()
			breq, _ := http.NewRequest("GET", bare.URL+p.path, nil)
			breq.Header = req.Header.Clone()
			var hubd, plain time.Duration
			n := 0
			for b.Loop() {
				t0 := time.Now()
				get(b, req)
				t1 := time.Now()
				get(b, breq)
				hubd, plain, n = hubd+t1.Sub(t0), plain+time.Since(t1), n+1
			}
			b.SetBytes(int64(len(body)))
			b.ReportMetric(float64(hubd.Microseconds())/1000/float64(n), "ms/page")
			b.ReportMetric(float64(plain)/float64(hubd), "bare-ratio")
		})
	}
}

// get fetches a page (200 or the benchmark fails).
func get(b *testing.B, req *http.Request) ([]byte, http.Header) {
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		b.Fatal(err)
	}
	body, err := io.ReadAll(resp.Body)
	resp.Body.Close()
	if err != nil || resp.StatusCode != 200 {
		b.Fatalf("%s: %d %v", req.URL.Path, resp.StatusCode, err)
	}
	return body, resp.Header
}
