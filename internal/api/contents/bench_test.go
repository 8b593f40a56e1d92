package contents_test

import (
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"testing"
	"time"

	"github.com/google/go-github/v92/github"

	"github.com/hubd/hubd/internal/apitest"
	"github.com/hubd/hubd/internal/server"
)

// BenchmarkGetFile is GET contents/{file} — the request bench/git.sh
// measures under wrk — through a server built as `hubd serve` builds it
// (authentication cached), called in parallel without the network, so that
// a CPU profile (-cpuprofile) shows where a request goes.
func BenchmarkGetFile(b *testing.B) {
	e := apitest.New(b, apitest.Options{NoVerify: true})
	_, tok := e.NewUser("mona", false)
	gh := e.GitHub(tok)
	if _, _, err := gh.Repositories.Create(ctx, "", &github.Repository{Name: github.Ptr("big")}); err != nil {
		b.Fatal(err)
	}
	if _, _, err := gh.Repositories.CreateFile(ctx, "mona", "big", "README.md", &github.RepositoryContentFileOptions{Message: github.Ptr("readme"), Content: []byte("# big\nA benchmark repository.\n")}); err != nil {
		b.Fatal(err)
	}
	srv, deps, err := server.Build(server.Config{Store: e.Store, ExternalURL: e.URL, Limits: e.Deps.Limiter.Limits(), TokenTTL: 5 * time.Second, Version: "bench", GitRoot: filepath.Join(e.DataDir, "git")})
	if err != nil {
		b.Fatal(err)
	}
	defer deps.Git.Close()
	b.ResetTimer()
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			req := httptest.NewRequest("GET", "/api/v3/repos/mona/big/contents/README.md", nil)
			req.Header.Set("Authorization", "token "+tok)
			rec := httptest.NewRecorder()
			srv.ServeHTTP(rec, req)
			if rec.Code != http.StatusOK {
				b.Errorf("status %d: %s", rec.Code, rec.Body)
				return
			}
		}
	})
}
