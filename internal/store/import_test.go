package store_test

import (
	"context"
	"testing"
	"time"

	"github.com/hubd/hubd/internal/model"
	"github.com/hubd/hubd/internal/store"
	"github.com/hubd/hubd/internal/store/storetest"
)

// What a migration import relies on: At writes rows with the archive's
// times, ReserveIssueNumbers keeps numbers across deleted issues (and never
// goes back), and ListRepoPullReviews pages a repository's submitted
// reviews across its pull requests.
func TestImportWrites(t *testing.T) {
	ctx := context.Background()
	s := storetest.Open(t)
	then := time.Date(2019, 5, 6, 7, 8, 9, 500, time.UTC)
	var repoID int64
	var numbers []int64
	err := s.Tx(ctx, func(tx store.Q) error {
		u := &model.Account{Login: "mona", Type: model.TypeUser}
		if err := tx.CreateAccount(ctx, u); err != nil {
			return err
		}
		r := &model.Repo{OwnerID: u.ID, Name: "app", Visibility: model.Public, DefaultBranch: "main"}
		if err := tx.At(then).CreateRepo(ctx, r); err != nil {
			return err
		}
		repoID = r.ID
		for _, want := range []int64{2, 5, 3} {
			if err := tx.ReserveIssueNumbers(ctx, repoID, want); err != nil {
				return err
			}
			is := &model.Issue{RepoID: repoID, IsPull: true, Title: "x", UserID: u.ID}
			if err := tx.At(then).CreateIssue(ctx, is); err != nil {
				return err
			}
			numbers = append(numbers, is.Number)
			if err := tx.CreatePull(ctx, &model.Pull{Issue: is, BaseRef: "main", HeadRef: "f"}); err != nil {
				return err
			}
			for _, state := range []string{model.ReviewCommented, model.ReviewPending} {
				if err := tx.At(then).CreatePullReview(ctx, &model.PullReview{RepoID: repoID, PullID: is.ID, UserID: u.ID, State: state}); err != nil {
					return err
				}
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if numbers[0] != 2 || numbers[1] != 5 || numbers[2] != 6 {
		t.Fatalf("numbers %v, want [2 5 6]", numbers)
	}
	v, err := s.R().RepoByID(ctx, repoID, 0)
	if err != nil || !v.Repo.CreatedAt.Equal(then.Truncate(time.Second)) {
		t.Fatalf("repository created %v (%v), want %v", v.Repo.CreatedAt, err, then)
	}
	list, total, err := s.R().ListRepoPullReviews(ctx, repoID, 2, 2)
	if err != nil || total != 3 || len(list) != 1 || list[0].PullNumber != 6 || list[0].SubmittedAt == nil ||
		!list[0].SubmittedAt.Equal(then.Truncate(time.Second)) {
		t.Fatalf("reviews page: %v total %d %v", list, total, err)
	}
}
