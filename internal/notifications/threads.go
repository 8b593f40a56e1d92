package notifications

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/hubd/hubd/internal/authz"
	"github.com/hubd/hubd/internal/jobs"
	"github.com/hubd/hubd/internal/model"
	"github.com/hubd/hubd/internal/store"
)

// ErrRequiresAuth is GitHub's 401.
var ErrRequiresAuth = &model.HTTPError{Status: 401, Message: "Requires authentication"}

// reader checks c may use the notifications API: a user's classic token
// (or OAuth app token) with the notifications or repo scope, or a GitHub
// App's user access token; installation and fine-grained tokens cannot
// (GitHub's token badges of these operations).
func reader(c *authz.Caller) error {
	if !c.Authenticated() {
		return ErrRequiresAuth
	}
	switch c.Kind {
	case authz.Installation:
		return model.Forbidden("Resource not accessible by integration")
	case authz.FineGrained:
		return model.Forbidden("Resource not accessible by personal access token")
	}
	if c.User == nil {
		return model.Forbidden("Resource not accessible by integration")
	}
	if !c.HasScope("notifications") && !c.HasScope("repo") {
		return model.ErrNotFound
	}
	return nil
}

// ListQuery selects a page of the caller's threads.
type ListQuery struct {
	Viewer        store.Viewer // the caller's repository visibility
	RepoID        int64
	All           bool
	Participating bool
	Since, Before *time.Time
	Limit, Offset int
}

// List is one page of the caller's threads (of repositories they still
// see), latest first, their total and the latest update among them.
func (s *Service) List(ctx context.Context, c *authz.Caller, f ListQuery) ([]*store.Thread, int, time.Time, error) {
	if err := reader(c); err != nil {
		return nil, 0, time.Time{}, err
	}
	return s.Store.R().Threads(ctx, store.ThreadQuery{UserID: c.User.ID, Viewer: f.Viewer, RepoID: f.RepoID, All: f.All,
		Participating: f.Participating, Since: f.Since, Before: f.Before, Limit: f.Limit, Offset: f.Offset})
}

// Thread is the caller's thread id (404 for another user's thread or one
// of a repository they no longer see).
func (s *Service) Thread(ctx context.Context, c *authz.Caller, viewer store.Viewer, id int64) (*store.Thread, error) {
	if err := reader(c); err != nil {
		return nil, err
	}
	return s.Store.R().ThreadOf(ctx, c.User.ID, viewer, id)
}

// MarkLimit is how many threads one transaction marks read: a request
// marking more marks the rest in a job (GitHub's 202).
var MarkLimit = 1000

const jobMarkRead = "notifications.mark_read"

type markJob struct {
	UserID int64 `json:"user_id"`
	RepoID int64 `json:"repo_id"`
	At     int64 `json:"at"`
}

// MarkRead marks the caller's threads (of repoID, when not 0) updated at
// or before at read (read false: nothing changes). queued: there were
// more than MarkLimit, and a job marks the rest.
func (s *Service) MarkRead(ctx context.Context, c *authz.Caller, repoID int64, at time.Time, read bool) (queued bool, err error) {
	if err := reader(c); err != nil || !read {
		return false, err
	}
	err = s.Store.Tx(ctx, func(tx store.Q) error {
		n, err := tx.MarkThreadsRead(ctx, c.User.ID, repoID, at, MarkLimit)
		if err != nil || n < int64(MarkLimit) {
			return err
		}
		queued = true
		return jobs.Enqueue(ctx, tx, jobs.Job{Kind: jobMarkRead, Key: fmt.Sprintf("%d:%d", c.User.ID, repoID),
			Payload: markJob{UserID: c.User.ID, RepoID: repoID, At: at.Unix()}})
	})
	if queued && s.Jobs != nil {
		s.Jobs.Notify()
	}
	return queued, err
}

// runMarkRead marks the rest of a request's threads read, MarkLimit a
// transaction.
func (s *Service) runMarkRead(ctx context.Context, payload []byte) error {
	var j markJob
	if err := json.Unmarshal(payload, &j); err != nil {
		return jobs.Permanent(err)
	}
	for {
		var n int64
		err := s.Store.Tx(ctx, func(tx store.Q) error {
			var err error
			n, err = tx.MarkThreadsRead(ctx, j.UserID, j.RepoID, time.Unix(j.At, 0), MarkLimit)
			return err
		})
		if err != nil || n < int64(MarkLimit) {
			return err
		}
	}
}

// inThread runs fn on the caller's thread id in a transaction.
func (s *Service) inThread(ctx context.Context, c *authz.Caller, viewer store.Viewer, id int64, fn func(tx store.Q, t *store.Thread) error) error {
	if err := reader(c); err != nil {
		return err
	}
	return s.Store.Tx(ctx, func(tx store.Q) error {
		t, err := tx.ThreadOf(ctx, c.User.ID, viewer, id)
		if err != nil {
			return err
		}
		return fn(tx, t)
	})
}

// MarkThread marks the caller's thread id read, or done (out of the inbox
// until the subject has new activity).
func (s *Service) MarkThread(ctx context.Context, c *authz.Caller, viewer store.Viewer, id int64, done bool) error {
	return s.inThread(ctx, c, viewer, id, func(tx store.Q, t *store.Thread) error {
		return tx.MarkThreadRead(ctx, t.ID, done, tx.Now())
	})
}

// Subscription is the caller's subscription to thread id (404 when they
// have none).
func (s *Service) Subscription(ctx context.Context, c *authz.Caller, viewer store.Viewer, id int64) (*store.Thread, error) {
	t, err := s.Thread(ctx, c, viewer, id)
	if err != nil {
		return nil, err
	}
	if t.Sub == "" {
		return nil, model.ErrNotFound
	}
	return t, nil
}

// SetSubscription subscribes the caller to thread id, or ignores it (no
// more notifications of it).
func (s *Service) SetSubscription(ctx context.Context, c *authz.Caller, viewer store.Viewer, id int64, ignored bool) (*store.Thread, error) {
	var out *store.Thread
	err := s.inThread(ctx, c, viewer, id, func(tx store.Q, t *store.Thread) error {
		t.Sub = "subscribed"
		if ignored {
			t.Sub = "ignored"
		}
		now := tx.Now()
		t.SubAt, out = &now, t
		return tx.SetThreadSub(ctx, t.ID, t.Sub, t.SubAt)
	})
	return out, err
}

// DeleteSubscription mutes thread id until the caller comments on it or
// is mentioned (notifications of the repository's watch still come).
func (s *Service) DeleteSubscription(ctx context.Context, c *authz.Caller, viewer store.Viewer, id int64) error {
	return s.inThread(ctx, c, viewer, id, func(tx store.Q, t *store.Thread) error {
		return tx.SetThreadSub(ctx, t.ID, "", nil)
	})
}
