package issues_test

import (
	"fmt"
	"net/http/httptest"
	"os"
	"testing"
	"time"

	"github.com/hubd/hubd/internal/apitest"
	"github.com/hubd/hubd/internal/authz"
	"github.com/hubd/hubd/internal/model"
	"github.com/hubd/hubd/internal/store"

	"github.com/google/go-github/v92/github"
)

// BenchmarkListIssues lists page 1 and a deep page of a repository with
// many labelled, assigned and milestoned issues through the whole server
// (middleware included), without the network.
func BenchmarkListIssues(b *testing.B) {
	e := apitest.New(b, apitest.Options{NoVerify: true})
	mona, tok := e.NewUser("mona", false)
	if _, _, err := e.GitHub(tok).Repositories.Create(ctx, "", &github.Repository{Name: github.Ptr("big")}); err != nil {
		b.Fatal(err)
	}
	v, _ := e.Store.R().RepoByName(ctx, "mona", "big", 0)
	n := 20000
	if s := os.Getenv("ISSUES"); s != "" {
		fmt.Sscan(s, &n)
	}
	var users []*model.Account
	for i := 0; i < 10; i++ {
		u, _ := e.NewUser(fmt.Sprint("dev", i), false)
		users = append(users, u)
		e.Store.Tx(ctx, func(tx store.Q) error { return tx.SetCollaborator(ctx, v.Repo.ID, u.ID, authz.Write) })
	}
	labels, _, _ := e.Store.R().ListLabels(ctx, v.Repo.ID, 100, 0)
	var ms []int64
	e.Store.Tx(ctx, func(tx store.Q) error {
		for i := 0; i < 10; i++ {
			m := &model.Milestone{RepoID: v.Repo.ID, Title: fmt.Sprint("v", i), State: "open", CreatorID: mona.ID}
			tx.CreateMilestone(ctx, m)
			ms = append(ms, m.ID)
		}
		return nil
	})
	var list []*store.SeedIssue
	base := time.Now().Add(-time.Duration(n) * time.Minute)
	for i := 0; i < n; i++ {
		body := fmt.Sprintf("Steps to reproduce issue %d:\n\n1. open\n2. click **save**", i)
		s := &store.SeedIssue{Issue: model.Issue{Title: fmt.Sprint("Issue ", i), Body: &body, UserID: users[i%10].ID}}
		s.CreatedAt = base.Add(time.Duration(i) * time.Minute)
		s.LabelIDs = []int64{labels[i%len(labels)].ID, labels[(i/3+5)%len(labels)].ID}
		s.AssigneeIDs = []int64{users[(i+1)%10].ID}
		if i%2 == 0 {
			s.MilestoneID = ms[i%10]
		}
		list = append(list, s)
	}
	if err := e.Store.Tx(ctx, func(tx store.Q) error { return tx.SeedIssues(ctx, v.Repo.ID, list) }); err != nil {
		b.Fatal(err)
	}
	for _, page := range []int{1, n/30 - 1} {
		b.Run(fmt.Sprint("page", page), func(b *testing.B) {
			url := fmt.Sprintf("/api/v3/repos/mona/big/issues?per_page=30&page=%d", page)
			for b.Loop() {
				r := httptest.NewRequest("GET", url, nil)
				r.Header.Set("Authorization", "token "+tok)
				w := httptest.NewRecorder()
				e.Server.ServeHTTP(w, r)
				if w.Code != 200 {
					b.Fatal(w.Code, w.Body.String())
				}
			}
		})
	}
}
