package repos_test

import (
	"fmt"
	"io"
	"net/http"
	"testing"

	"github.com/hubd/hubd/internal/apitest"
)

// BenchmarkListForAuthenticatedUser is GET /user/repos?per_page=30 over
// HTTP against 100 organization repositories, as bench/run.sh measures it.
func BenchmarkListForAuthenticatedUser(b *testing.B) {
	e := apitest.New(b, apitest.Options{NoVerify: true})
	mona, tok := e.NewUser("mona", false)
	newOrg(b, e, "acme", mona)
	for i := range 100 {
		e.Must(201, "POST", "/orgs/acme/repos", tok, map[string]any{"name": fmt.Sprintf("repo-%d", i), "description": "benchmark"})
	}
	req, err := http.NewRequest("GET", e.API+"/user/repos?per_page=30", nil)
	if err != nil {
		b.Fatal(err)
	}
	req.Header.Set("Authorization", "token "+tok)
	b.ResetTimer()
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			resp, err := http.DefaultClient.Do(req.Clone(req.Context()))
			if err != nil {
				b.Error(err)
				return
			}
			io.Copy(io.Discard, resp.Body)
			resp.Body.Close()
			if resp.StatusCode != 200 {
				b.Errorf("status %d", resp.StatusCode)
				return
			}
		}
	})
}
