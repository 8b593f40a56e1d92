package statuses_test

import (
	"context"
	"testing"

	"github.com/hubd/hubd/internal/model"
	"github.com/hubd/hubd/internal/store"
)

func statusRow(repoID int64, sha, context string) *model.CommitStatus {
	return &model.CommitStatus{RepoID: repoID, SHA: sha, State: model.StatusSuccess, Context: context}
}

// statusEvents counts the "status" domain events of a repository.
func statusEvents(t *testing.T, s *store.Store, repoID int64) int {
	t.Helper()
	list, err := s.R().EventsAfter(context.Background(), 0, 100000)
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, e := range list {
		if e.Type == "status" && e.RepoID == repoID {
			n++
		}
	}
	return n
}
