// Package benchtest holds in-process benchmarks of hot API paths (the wrk
// comparison against a bare handler lives in bench/run.sh).
package benchtest

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"testing"
	"time"

	"github.com/hubd/hubd/internal/apitest"
	"github.com/hubd/hubd/internal/model"
	"github.com/hubd/hubd/internal/store"
)

func seed(b *testing.B) (*apitest.Env, string) {
	// Authentications are cached as hubd serve caches them, so that what is
	// measured (and profiled) is the served path.
	e := apitest.New(b, apitest.Options{NoVerify: true, TokenTTL: 5 * time.Second})
	ctx := context.Background()
	err := e.Store.Tx(ctx, func(tx store.Q) error {
		org := store.NewOrg("acme")
		if err := tx.CreateOrg(ctx, org, e.Admin.ID); err != nil {
			return err
		}
		for i := 1; i <= 100; i++ {
			r := &model.Repo{OwnerID: org.ID, Name: fmt.Sprintf("repo-%d", i), Visibility: model.Public, DefaultBranch: "main",
				HasIssues: true, HasProjects: true, HasWiki: true, HasDownloads: true, AllowSquashMerge: true, AllowMergeCommit: true, AllowRebaseMerge: true, AllowForking: true}
			if err := tx.CreateRepo(ctx, r); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		b.Fatal(err)
	}
	return e, e.AdminToken
}

func run(b *testing.B, e *apitest.Env, tok, path string) {
	req, _ := http.NewRequest("GET", e.API+path, nil)
	req.Header.Set("Authorization", "token "+tok)
	b.ReportAllocs()
	b.ResetTimer()
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			resp, err := http.DefaultClient.Do(req.Clone(context.Background()))
			if err != nil {
				b.Fatal(err)
			}
			io.Copy(io.Discard, resp.Body)
			resp.Body.Close()
			if resp.StatusCode != 200 {
				b.Fatalf("status %d", resp.StatusCode)
			}
		}
	})
}

func BenchmarkGetRepo(b *testing.B) {
	e, tok := seed(b)
	run(b, e, tok, "/repos/acme/repo-50")
}

func BenchmarkListUserRepos(b *testing.B) {
	e, tok := seed(b)
	run(b, e, tok, "/user/repos?per_page=30")
}
