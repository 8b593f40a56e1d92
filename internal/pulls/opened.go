package pulls

import (
	"context"
	"encoding/json"

	"github.com/hubd/hubd/internal/jobs"
	"github.com/hubd/hubd/internal/store"
)

// jobOpened runs the Opened hooks of a pull request that opened or became
// ready for review (code owners are asked for their review).
const jobOpened = "pulls.opened"

func openedJob(issueID int64) jobs.Job {
	return jobs.Job{Kind: jobOpened, Key: "pull-opened:" + itoa(issueID), Payload: map[string]int64{"issue_id": issueID}}
}

// enqueueOpened queues the Opened hooks in the transaction of the change,
// when there are any.
func (s *Service) enqueueOpened(ctx context.Context, tx store.Q, issueID int64) error {
	if len(s.Opened) == 0 {
		return nil
	}
	return jobs.Enqueue(ctx, tx, openedJob(issueID))
}

func (s *Service) runOpened(ctx context.Context, payload []byte) error {
	var in struct {
		IssueID int64 `json:"issue_id"`
	}
	if err := json.Unmarshal(payload, &in); err != nil {
		return jobs.Permanent(err)
	}
	p, err := s.Store.R().PullByIssueID(ctx, in.IssueID)
	if err != nil {
		return ignoreGone(err)
	}
	repo, err := s.repo(ctx, p.RepoID)
	if err != nil {
		return ignoreGone(err)
	}
	for _, h := range s.Opened {
		if err := h(ctx, repo, p); err != nil {
			return err
		}
	}
	return nil
}
