package commitcomments_test

import (
	"fmt"
	"net/http/httptest"
	"testing"

	"github.com/google/go-github/v92/github"

	"github.com/hubd/hubd/internal/apitest"
	"github.com/hubd/hubd/internal/model"
	"github.com/hubd/hubd/internal/store"
)

// BenchmarkListCommitComments lists 100 comments by 10 authors, some with
// reactions, through the whole server (middleware included), without the
// network: page 1 and a deep page of 5,000 comments on one commit.
func BenchmarkListCommitComments(b *testing.B) {
	e := apitest.New(b, apitest.Options{NoVerify: true})
	_, tok := e.NewUser("mona", false)
	if _, _, err := e.GitHub(tok).Repositories.Create(ctx, "", &github.Repository{Name: github.Ptr("big"), AutoInit: github.Ptr(true)}); err != nil {
		b.Fatal(err)
	}
	v, _ := e.Store.R().RepoByName(ctx, "mona", "big", 0)
	var sha struct{ SHA string }
	e.Must(200, "GET", "/repos/mona/big/commits/main", tok, nil).JSON(b, &sha)
	var users []*model.Account
	for i := range 10 {
		u, _ := e.NewUser(fmt.Sprint("dev", i), false)
		users = append(users, u)
	}
	const n = 5000
	err := e.Store.Tx(ctx, func(tx store.Q) error {
		for i := range n {
			c := &model.CommitComment{RepoID: v.Repo.ID, CommitID: sha.SHA, UserID: users[i%10].ID,
				Body: fmt.Sprintf("Comment %d with **markdown**", i)}
			if err := tx.CreateCommitComment(ctx, c); err != nil {
				return err
			}
			if i%3 == 0 {
				if _, _, err := tx.AddReaction(ctx, v.Repo.ID, store.ReactCommitComment, c.ID, users[(i+1)%10].ID, "heart"); err != nil {
					return err
				}
			}
		}
		return nil
	})
	if err != nil {
		b.Fatal(err)
	}
	for _, page := range []int{1, n / 100} {
		b.Run(fmt.Sprint("page", page), func(b *testing.B) {
			url := fmt.Sprintf("/api/v3/repos/mona/big/commits/%s/comments?per_page=100&page=%d", sha.SHA, page)
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
