package web_test

import (
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/hubd/hubd/internal/apitest"
)

// BenchmarkPages measures each page over real HTTP against a repository
// with a README, a 200-entry directory, a 2,000-line file, an issue with
// 50 comments and 60 issues.
func BenchmarkPages(b *testing.B) {
	e := apitest.New(b)
	_, tok := e.NewUser("mona", false)
	e.Must(201, "POST", "/user/repos", tok, map[string]any{"name": "hello"})
	w := newWork(b)
	files := map[string]string{"README.md": "# Hello\n\n" + strings.Repeat("Some *text* with a [link](docs/x.md).\n\n", 200)}
	for i := range 200 {
		files[fmt.Sprintf("dir/file%03d.txt", i)] = "x\n"
	}
	files["src/long.go"] = strings.Repeat("// a line of code <with> & entities\n", 2000)
	w.commit("Files", files)
	w.commit("Change", map[string]string{"src/long.go": strings.Repeat("// a changed line\n", 300)})
	w.push(e, tok, "mona", "hello", "main")
	for i := range 60 {
		e.Must(201, "POST", "/repos/mona/hello/issues", tok, map[string]any{"title": fmt.Sprintf("Issue %d", i), "body": "Body **bold** #1"})
	}
	for range 50 {
		e.Must(201, "POST", "/repos/mona/hello/issues/1/comments", tok, map[string]any{"body": "A comment with `code`, @mona and #2."})
	}
	for _, p := range []string{"/mona", "/mona/hello", "/mona/hello/tree/main/dir", "/mona/hello/blob/main/src/long.go",
		"/mona/hello/commit/main", "/mona/hello/commits", "/mona/hello/issues", "/mona/hello/issues/1"} {
		b.Run(strings.ReplaceAll(strings.TrimPrefix(p, "/"), "/", "_"), func(b *testing.B) {
			req, _ := http.NewRequest("GET", e.URL+p, nil)
			req.Header.Set("Accept", "text/html")
			for b.Loop() {
				resp, err := http.DefaultClient.Do(req)
				if err != nil {
					b.Fatal(err)
				}
				n, _ := io.Copy(io.Discard, resp.Body)
				resp.Body.Close()
				if resp.StatusCode != 200 {
					b.Fatalf("%s: %d", p, resp.StatusCode)
				}
				b.SetBytes(n)
			}
		})
	}
}
