// Package pullstacks is the pull request stack service: a stack is an
// ordered list of open pull requests of one repository, bottom to top,
// where each pull request is based on the head branch of the one below it.
// It holds the rules — who may change stacks, what makes a valid stack, one
// stack per pull request, no lost update between concurrent changes — for
// every transport.
//
// Merging a stacked pull request does not merge the stack below it here
// (GitHub's merge-async does); stacks only record membership.
package pullstacks

import (
	"context"
	"errors"
	"strconv"

	"github.com/hubd/hubd/internal/authz"
	"github.com/hubd/hubd/internal/model"
	"github.com/hubd/hubd/internal/store"
)

// Limits of a request, as GitHub's description sets them.
const (
	MinCreate = 2
	MaxPerReq = 100
)

// EventType is the domain event every change of a stack appends.
const EventType = "pull_request_stack"

// Service is the stack service.
type Service struct {
	Store *store.Store
	// beforeWrite runs between reading a stack and the write transaction
	// (tests use it to change the stack underneath a request).
	beforeWrite func()
}

// New makes the service.
func New(s *store.Store) *Service { return &Service{Store: s} }

// Messages GitHub answers with.
const (
	msgChain   = "Pull requests must form a stack, where each PR's base ref is the previous PR's head ref"
	msgBusy    = "Stack is currently being modified"
	msgLocked  = "Pull requests in this stack cannot be removed"
	msgStacked = "is already part of a stack"
)

func pr(n int64) string { return "Pull request #" + strconv.FormatInt(n, 10) }

func needWrite(perm authz.Permission) error {
	if perm < authz.Write {
		return model.Forbidden("Must have " + authz.Write.String() + " access to Repository.")
	}
	return nil
}

func orgID(r *model.Repo) int64 {
	if r.Owner != nil && r.Owner.IsOrg() {
		return r.Owner.ID
	}
	return 0
}

// List is a page of repo's stacks, newest first, and how many there are;
// pullNumber (when not 0) keeps only the stack holding that pull request.
func (s *Service) List(ctx context.Context, repo *model.Repo, pullNumber int64, limit, offset int) ([]*model.PullStack, int, error) {
	return s.Store.R().PullStacks(ctx, repo.ID, pullNumber, limit, offset)
}

// Get is stack number n of repo with its pull requests loaded.
func (s *Service) Get(ctx context.Context, repo *model.Repo, n int64) (*model.PullStack, error) {
	st, err := s.Store.R().PullStackByNumber(ctx, repo.ID, n)
	if err != nil {
		return nil, err
	}
	return st, s.load(ctx, st)
}

// load fills each member's whole pull request and its author, in two
// queries.
func (s *Service) load(ctx context.Context, st *model.PullStack) error {
	q := s.Store.R()
	ids := make([]int64, len(st.Members))
	for i, m := range st.Members {
		ids[i] = m.IssueID
	}
	pulls, err := q.PullsByIssueID(ctx, ids)
	if err != nil {
		return err
	}
	var users []int64
	for _, p := range pulls {
		if p.Issue.UserID != 0 {
			users = append(users, p.Issue.UserID)
		}
	}
	accounts, err := q.SlimAccounts(ctx, users)
	if err != nil {
		return err
	}
	for _, m := range st.Members {
		if p := pulls[m.IssueID]; p != nil {
			p.Issue.User = accounts[p.Issue.UserID]
			m.Pull = p
		}
	}
	return nil
}

// candidates loads the pull requests numbers of repo, in order, and checks
// each may join a stack: it exists, is open, has its head in repo, is in no
// stack, and numbers chain (each based on the previous one's head; the
// first on below's head when below is not nil).
func (s *Service) candidates(ctx context.Context, repo *model.Repo, numbers []int64, below *model.PullStackMember) ([]*model.Pull, error) {
	q := s.Store.R()
	byNumber, err := q.PullIssueIDsByNumber(ctx, repo.ID, numbers)
	if err != nil {
		return nil, err
	}
	var missing []int64
	ids := make([]int64, 0, len(numbers))
	seen := map[int64]bool{}
	for _, n := range numbers {
		id, ok := byNumber[n]
		if !ok {
			missing = append(missing, n)
			continue
		}
		if seen[n] {
			// Twice in one list cannot chain: a pull request is never
			// based on its own head.
			return nil, model.Unprocessable(msgChain)
		}
		seen[n] = true
		ids = append(ids, id)
	}
	if len(missing) > 0 {
		return nil, &model.ValidationError{Errors: []model.FieldError{{Resource: "Stack", Field: "pull_requests", Code: "missing", Value: missing}}}
	}
	pulls, err := q.PullsByIssueID(ctx, ids)
	if err != nil {
		return nil, err
	}
	stacked, err := q.StacksOfPulls(ctx, ids)
	if err != nil {
		return nil, err
	}
	list := make([]*model.Pull, len(ids))
	for i, id := range ids {
		p := pulls[id]
		if p == nil {
			return nil, model.ErrNotFound // deleted meanwhile
		}
		list[i] = p
		switch {
		case p.Merged():
			return nil, model.Unprocessable(pr(p.Number) + " is already merged")
		case p.Issue.State != "open":
			return nil, model.Unprocessable(pr(p.Number) + " is closed")
		case p.HeadRepoID != repo.ID:
			return nil, model.Unprocessable(pr(p.Number) + " must have its head branch in this repository")
		case stacked[id] != nil:
			return nil, model.Unprocessable(pr(p.Number) + " " + msgStacked)
		}
	}
	if below != nil && list[0].BaseRef != below.HeadRef {
		return nil, model.Unprocessable(msgChain)
	}
	for i := 1; i < len(list); i++ {
		if list[i].BaseRef != list[i-1].HeadRef {
			return nil, model.Unprocessable(msgChain)
		}
	}
	return list, nil
}

func numbersOf(list []*model.Pull) []int64 {
	out := make([]int64, len(list))
	for i, p := range list {
		out[i] = p.Number
	}
	return out
}

func issueIDs(list []*model.Pull) []int64 {
	out := make([]int64, len(list))
	for i, p := range list {
		out[i] = p.IssueID
	}
	return out
}

func tooMany(n, min int) error {
	if n < min || n > MaxPerReq {
		return model.Invalid("Stack", "pull_requests", "invalid")
	}
	return nil
}

// payload is a stack event's payload: the pull requests the change
// concerns (added, or removed), so consumers can tell each of them (GitHub
// sends a pull_request webhook with action "stacked").
func payload(action string, st *model.PullStack, numbers, ids []int64) map[string]any {
	return map[string]any{"action": action, "id": st.ID, "number": st.Number, "pull_requests": numbers, "issue_ids": ids}
}

// Create makes a stack of the pull requests numbers (bottom first) for an
// actor with perm on repo.
func (s *Service) Create(ctx context.Context, repo *model.Repo, perm authz.Permission, actorID int64, numbers []int64) (*model.PullStack, error) {
	if err := needWrite(perm); err != nil {
		return nil, err
	}
	if err := tooMany(len(numbers), MinCreate); err != nil {
		return nil, err
	}
	list, err := s.candidates(ctx, repo, numbers, nil)
	if err != nil {
		return nil, err
	}
	st := &model.PullStack{RepoID: repo.ID}
	err = s.Store.Tx(ctx, func(tx store.Q) error {
		if err := tx.CreatePullStack(ctx, st, issueIDs(list)); errors.Is(err, store.ErrDuplicate) {
			// Another request stacked one of them since the check.
			return model.Unprocessable("A pull request " + msgStacked)
		} else if err != nil {
			return err
		}
		return tx.AppendEvent(ctx, EventType, actorID, repo.ID, orgID(repo), payload("created", st, numbersOf(list), issueIDs(list)))
	})
	if err != nil {
		return nil, err
	}
	return s.Get(ctx, repo, st.Number)
}

// Add puts the pull requests numbers on top of stack n, in order.
func (s *Service) Add(ctx context.Context, repo *model.Repo, perm authz.Permission, actorID, n int64, numbers []int64) (*model.PullStack, error) {
	if err := needWrite(perm); err != nil {
		return nil, err
	}
	st, err := s.Store.R().PullStackByNumber(ctx, repo.ID, n)
	if err != nil {
		return nil, err
	}
	if err := tooMany(len(numbers), 1); err != nil {
		return nil, err
	}
	var top *model.PullStackMember
	next := 1
	if k := len(st.Members); k > 0 {
		top = st.Members[k-1]
		next = top.Position + 1
	}
	list, err := s.candidates(ctx, repo, numbers, top)
	if err != nil {
		return nil, err
	}
	if s.beforeWrite != nil {
		s.beforeWrite()
	}
	err = s.Store.Tx(ctx, func(tx store.Q) error {
		if err := claim(ctx, tx, st); err != nil {
			return err
		}
		if err := tx.AddPullStackMembers(ctx, st.ID, next, issueIDs(list)); errors.Is(err, store.ErrDuplicate) {
			return model.Unprocessable("A pull request " + msgStacked)
		} else if err != nil {
			return err
		}
		return tx.AppendEvent(ctx, EventType, actorID, repo.ID, orgID(repo), payload("added", st, numbersOf(list), issueIDs(list)))
	})
	if err != nil {
		return nil, err
	}
	return s.Get(ctx, repo, n)
}

// claim takes the stack as read for this change, or answers 409 when
// another request changed (or dissolved) it meanwhile.
func claim(ctx context.Context, tx store.Q, st *model.PullStack) error {
	ok, err := tx.ClaimPullStack(ctx, st.ID, st.Version)
	if err != nil {
		return err
	}
	if !ok {
		return model.Conflict(msgBusy)
	}
	return nil
}

// Unstack removes the pull requests of stack n that can leave it: every
// one not merged and not queued for merge. It returns what remains, or nil
// when nothing does and the stack was dissolved.
func (s *Service) Unstack(ctx context.Context, repo *model.Repo, perm authz.Permission, actorID, n int64) (*model.PullStack, error) {
	if err := needWrite(perm); err != nil {
		return nil, err
	}
	st, err := s.Store.R().PullStackByNumber(ctx, repo.ID, n)
	if err != nil {
		return nil, err
	}
	ids := make([]int64, len(st.Members))
	for i, m := range st.Members {
		ids[i] = m.IssueID
	}
	queued, err := s.Store.R().PullsQueuedForMerge(ctx, ids)
	if err != nil {
		return nil, err
	}
	var keep, removed, removedIDs []int64
	for _, m := range st.Members {
		if m.MergedAt != nil || queued[m.IssueID] {
			keep = append(keep, m.IssueID)
		} else {
			removed, removedIDs = append(removed, m.Number), append(removedIDs, m.IssueID)
		}
	}
	if len(removed) == 0 && len(st.Members) > 0 {
		return nil, model.Unprocessable(msgLocked)
	}
	if s.beforeWrite != nil {
		s.beforeWrite()
	}
	err = s.Store.Tx(ctx, func(tx store.Q) error {
		if err := claim(ctx, tx, st); err != nil {
			return err
		}
		action := "unstacked"
		if len(keep) == 0 {
			action = "dissolved"
			if err := tx.DeletePullStack(ctx, st.ID); err != nil {
				return err
			}
		} else if err := tx.SetPullStackMembers(ctx, st.ID, keep); err != nil {
			return err
		}
		return tx.AppendEvent(ctx, EventType, actorID, repo.ID, orgID(repo), payload(action, st, removed, removedIDs))
	})
	if err != nil {
		return nil, err
	}
	if len(keep) == 0 {
		return nil, nil
	}
	return s.Get(ctx, repo, n)
}
