package metrics_test

import (
	"fmt"
	"net/http"
	"testing"
	"time"

	"github.com/google/go-github/v92/github"

	"github.com/hubd/hubd/internal/apitest"
)

// TestBigRepository: from 10,000 commits GitHub counts no lines:
// contributors report 0 additions and deletions, code_frequency a 422.
func TestBigRepository(t *testing.T) {
	if testing.Short() {
		t.Skip("generates 10,000 commits")
	}
	e := apitest.New(t)
	_, tok := e.NewUser("mona", false)
	createRepo(t, e, tok, "big", "", false)
	generate(t, e, "mona", "big", 10000, 3)
	gh := e.GitHub(tok)
	contributors := eventually(t, func() ([]*github.ContributorStats, *github.Response, error) {
		return gh.Repositories.ListContributorsStats(ctx, "mona", "big")
	})
	total := 0
	for _, c := range contributors {
		total += c.GetTotal()
		for _, w := range c.Weeks {
			if w.GetAdditions() != 0 || w.GetDeletions() != 0 {
				t.Fatalf("lines counted: %v", github.Stringify(w))
			}
		}
		if c.Author != nil {
			t.Fatalf("no user has the generated addresses: %v", c.Author)
		}
	}
	if len(contributors) != 3 || total != 10000 {
		t.Fatalf("contributors: %d, %d commits", len(contributors), total)
	}
	r := e.Must(http.StatusUnprocessableEntity, "GET", "/repos/mona/big/stats/code_frequency", tok, nil)
	if m := r.Map(t); m["message"] != "Repository contains more than 10,000 commits" {
		t.Fatalf("code frequency: %s", r.Body)
	}
}

// BenchmarkStatistics measures what a client waits for the statistics of a
// big repository: from the first request (202, the background computation
// starts) to the first 200. 50,000 commits is the target (under 10 s);
// 9,999 commits is the most history whose lines are counted (--numstat).
func BenchmarkStatistics(b *testing.B) {
	for _, n := range []int{9999, 50000} {
		b.Run(fmt.Sprintf("commits=%d", n), func(b *testing.B) {
			e := apitest.New(b)
			_, tok := e.NewUser("mona", false)
			r, _, err := e.GitHub(tok).Repositories.Create(ctx, "", &github.Repository{Name: github.Ptr("huge")})
			if err != nil {
				b.Fatal(err)
			}
			generate(b, e, "mona", "huge", n, 150)
			gh := e.GitHub(tok)
			b.ResetTimer()
			for range b.N {
				hub(b, e).Pushed(r.GetID()) // as a push would
				start := time.Now()
				for {
					list, resp, err := gh.Repositories.ListContributorsStats(ctx, "mona", "huge")
					if err == nil && resp.StatusCode == 200 {
						if len(list) != 100 {
							b.Fatalf("contributors: %d", len(list))
						}
						break
					}
					if _, ok := err.(*github.AcceptedError); !ok {
						b.Fatal(err)
					}
					time.Sleep(10 * time.Millisecond)
				}
				b.ReportMetric(float64(time.Since(start).Milliseconds()), "ms-to-ready")
			}
		})
	}
}
