// Package protection is the branch protection service: per exact branch
// name, the rules a pull request merge into that branch must meet —
// required status checks (optionally with the head up to date), required
// approving reviews (optionally dismissed when the head moves, optionally
// from code owners, with who may dismiss them and who may merge without
// them), who may push to the branch, and whether administrators are held
// to them. Settings hubd cannot enforce are refused with a 422 naming the
// field rather than stored as if they worked.
package protection

import (
	"context"
	"errors"
	"fmt"
	"slices"

	"github.com/hubd/hubd/internal/authz"
	"github.com/hubd/hubd/internal/gitrepo"
	"github.com/hubd/hubd/internal/jobs"
	"github.com/hubd/hubd/internal/model"
	"github.com/hubd/hubd/internal/store"
)

// Service is the branch protection service.
type Service struct {
	Store *store.Store
	Git   *gitrepo.Manager
	// Changed, when set, runs inside the transaction of every change to a
	// branch's protection (the server queues a new look at the
	// mergeable_state of the open pull requests into that branch); Jobs is
	// woken after the commit.
	Changed func(ctx context.Context, tx store.Q, repoID int64, branch string) error
	Jobs    *jobs.Queue
}

// changed runs the Changed hook inside a change's transaction.
func (s *Service) changed(ctx context.Context, tx store.Q, repoID int64, branch string) error {
	if s.Changed == nil {
		return nil
	}
	return s.Changed(ctx, tx, repoID, branch)
}

// notify wakes the job workers after a change committed.
func (s *Service) notify() {
	if s.Changed != nil && s.Jobs != nil {
		s.Jobs.Notify()
	}
}

// New makes the service.
func New(st *store.Store, git *gitrepo.Manager) *Service { return &Service{Store: st, Git: git} }

// Errors as GitHub words them.
var (
	errNotProtected   = &model.HTTPError{Status: 404, Message: "Branch not protected"}
	errNoBranch       = &model.HTTPError{Status: 404, Message: "Branch not found"}
	errNoStatusChecks = &model.HTTPError{Status: 404, Message: "Required status checks not enabled"}
	errNoReviews      = &model.HTTPError{Status: 404, Message: "Required pull request reviews not enabled"}
)

// MaxApprovals is the most approving reviews a branch may require.
const MaxApprovals = 6

// Check is a required check as a client names it; AppID nil or -1 means any
// app (the only choice hubd enforces: checks are matched by name).
type Check struct {
	Context string
	AppID   *int64
}

// StatusChecksInput is required_status_checks (PUT) or its PATCH; Checks
// wins over Contexts when both are given, as on GitHub.
type StatusChecksInput struct {
	Strict    *bool
	Contexts  []string
	HasChecks bool
	Checks    []Check
}

// Allowances are user logins, team slugs and app slugs (push
// restrictions, dismissal restrictions, bypass allowances); a nil list is
// absent.
type Allowances struct {
	Users, Teams, Apps []string
}

// given reports whether any list is present (an empty object turns
// dismissal restrictions off).
func (a *Allowances) given() bool {
	return a != nil && (a.Users != nil || a.Teams != nil || a.Apps != nil)
}

// ReviewsInput is required_pull_request_reviews (PUT) or its PATCH: nil
// fields are absent.
type ReviewsInput struct {
	DismissStaleReviews     *bool
	RequireCodeOwnerReviews *bool
	RequiredApprovals       *int
	RequireLastPushApproval *bool
	DismissalRestrictions   *Allowances
	Bypass                  *Allowances
}

// UpdateInput is PUT .../protection's body: nil StatusChecks and Reviews
// are null; the optional booleans are nil when absent.
type UpdateInput struct {
	StatusChecks           *StatusChecksInput
	EnforceAdmins          bool
	Reviews                *ReviewsInput
	Restrictions           *Allowances // nil: restrictions is null
	LinearHistory          *bool
	AllowForcePushes       *bool
	AllowDeletions         *bool
	BlockCreations         *bool
	ConversationResolution *bool
	LockBranch             *bool
	AllowForkSyncing       *bool
}

// unsupported is the 422 of settings hubd does not enforce.
type unsupported struct{ errs []model.FieldError }

func (u *unsupported) refuse(field string) {
	u.errs = append(u.errs, model.FieldError{Resource: "ProtectedBranch", Field: field, Code: "custom",
		Message: field + " is not supported: hubd does not enforce it"})
}

func (u *unsupported) on(field string, v *bool) {
	if v != nil && *v {
		u.refuse(field)
	}
}

func (u *unsupported) err() error {
	if len(u.errs) == 0 {
		return nil
	}
	return &model.ValidationError{Errors: u.errs}
}

// simple is err in PUT .../protection's shape: GitHub's "Validation
// Failed" with the reasons as plain strings.
func (u *unsupported) simple() error {
	if len(u.errs) == 0 {
		return nil
	}
	reasons := make([]string, len(u.errs))
	for i, e := range u.errs {
		reasons[i] = e.Message
	}
	return &model.HTTPError{Status: 422, Message: "Validation Failed", Reasons: reasons}
}

// simpleShape turns field errors into PUT .../protection's shape (the
// reasons as plain strings).
func simpleShape(err error) error {
	var ve *model.ValidationError
	if !errors.As(err, &ve) {
		return err
	}
	u := &unsupported{errs: ve.Errors}
	return u.simple()
}

func needAdmin(perm authz.Permission) error {
	if perm < authz.Admin {
		return model.Forbidden("Must have admin rights to Repository.")
	}
	return nil
}

// branchExists reports whether the repository has the branch.
func (s *Service) branchExists(ctx context.Context, repo *model.Repo, branch string) (bool, error) {
	g := s.Git.Open(repo.ID)
	if !g.Exists() {
		return false, nil
	}
	_, err := g.ResolveRef(ctx, "refs/heads/"+branch)
	if errors.Is(err, gitrepo.ErrNotFound) {
		return false, nil
	}
	return err == nil, err
}

// Get is a branch's protection: 404 "Branch not found" for a missing
// branch, "Branch not protected" for an unprotected one.
func (s *Service) Get(ctx context.Context, repo *model.Repo, perm authz.Permission, branch string) (*model.BranchProtection, error) {
	if err := needAdmin(perm); err != nil {
		return nil, err
	}
	return s.load(ctx, s.Store.R(), repo, branch)
}

func (s *Service) load(ctx context.Context, q store.Q, repo *model.Repo, branch string) (*model.BranchProtection, error) {
	p, err := q.BranchProtection(ctx, repo.ID, branch)
	if err != nil || p != nil {
		return p, err
	}
	// A protection outlives its branch (it can still be read and removed);
	// without one, say which of the two is missing.
	ok, err := s.branchExists(ctx, repo, branch)
	if err != nil {
		return nil, err
	}
	if !ok {
		return nil, errNoBranch
	}
	return nil, errNotProtected
}

func validCount(n int) error {
	switch {
	case n < 0:
		return model.Unprocessable(fmt.Sprintf("Invalid request.\n\n%d must be greater than or equal to 0.", n))
	case n > MaxApprovals:
		return model.Unprocessable(fmt.Sprintf("Invalid request.\n\n%d must be less than or equal to %d.", n, MaxApprovals))
	}
	return nil
}

// contextsOf are the required names of a status checks input, in order
// and without repeats.
func contextsOf(in *StatusChecksInput, u *unsupported) []string {
	names := in.Contexts
	if in.HasChecks {
		names = nil
		for _, c := range in.Checks {
			if c.AppID != nil && *c.AppID != -1 {
				u.refuse("required_status_checks.checks.app_id")
			}
			names = append(names, c.Context)
		}
	}
	out := []string{}
	for _, n := range names {
		if !slices.Contains(out, n) {
			out = append(out, n)
		}
	}
	return out
}

// reviewLists are the resolved lists of a reviews input (nil: absent).
type reviewLists struct {
	dismiss, bypass *model.Allowed
}

// lists resolves the dismissal restrictions and bypass allowances of a
// reviews input (before the transaction: they are reads).
func (s *Service) lists(ctx context.Context, repo *model.Repo, in *ReviewsInput) (reviewLists, error) {
	var out reviewLists
	if in.DismissalRestrictions != nil {
		a := model.Allowed{}
		if in.DismissalRestrictions.given() {
			if repo.Owner == nil || !repo.Owner.IsOrg() {
				return out, model.Unprocessable("Dismissal restrictions are supported only for repositories owned by an organization.")
			}
			var err error
			if a, err = s.resolve(ctx, repo, in.DismissalRestrictions, "dismissal_restrictions"); err != nil {
				return out, err
			}
		}
		out.dismiss = &a
	}
	if in.Bypass != nil {
		a, err := s.resolve(ctx, repo, in.Bypass, "bypass_pull_request_allowances")
		if err != nil {
			return out, err
		}
		out.bypass = &a
	}
	return out, nil
}

// applyReviews writes a reviews input over p (a PATCH when p.Reviews was
// already on, else new settings with GitHub's defaults).
func applyReviews(p *model.BranchProtection, in *ReviewsInput, lists reviewLists, u *unsupported) error {
	if !p.Reviews {
		p.Reviews, p.RequiredApprovals, p.DismissStaleReviews = true, 1, false
		p.RequireCodeOwnerReviews, p.DismissalRestricted = false, false
		p.Dismiss, p.Bypass = model.Allowed{}, model.Allowed{}
	}
	if in.RequiredApprovals != nil {
		if err := validCount(*in.RequiredApprovals); err != nil {
			return err
		}
		p.RequiredApprovals = *in.RequiredApprovals
	}
	if in.DismissStaleReviews != nil {
		p.DismissStaleReviews = *in.DismissStaleReviews
	}
	if in.RequireCodeOwnerReviews != nil {
		p.RequireCodeOwnerReviews = *in.RequireCodeOwnerReviews
	}
	u.on("required_pull_request_reviews.require_last_push_approval", in.RequireLastPushApproval)
	if lists.dismiss != nil {
		p.Dismiss = *lists.dismiss
		p.DismissalRestricted = in.DismissalRestrictions.given()
	}
	if lists.bypass != nil {
		p.Bypass = *lists.bypass
	}
	return nil
}

// restrictions resolves a restrictions input (nil: null, no restriction).
func (s *Service) restrictions(ctx context.Context, repo *model.Repo, in *Allowances) (model.Allowed, error) {
	if in == nil {
		return model.Allowed{}, nil
	}
	if err := orgOnly(repo, "users and team restrictions"); err != nil {
		return model.Allowed{}, err
	}
	return s.resolve(ctx, repo, in, "restrictions")
}

// Update replaces a branch's protection (PUT .../protection).
func (s *Service) Update(ctx context.Context, repo *model.Repo, perm authz.Permission, actorID int64, branch string, in UpdateInput) (*model.BranchProtection, error) {
	if err := needAdmin(perm); err != nil {
		return nil, err
	}
	if ok, err := s.branchExists(ctx, repo, branch); err != nil {
		return nil, err
	} else if !ok {
		return nil, errNoBranch
	}
	u := &unsupported{}
	p := &model.BranchProtection{RepoID: repo.ID, Branch: branch, EnforceAdmins: in.EnforceAdmins, RequiredContexts: []string{}}
	if sc := in.StatusChecks; sc != nil {
		p.StatusChecks = true
		if sc.Strict != nil {
			p.Strict = *sc.Strict
		}
		p.RequiredContexts = contextsOf(sc, u)
	}
	if in.Reviews != nil {
		lists, err := s.lists(ctx, repo, in.Reviews)
		if err != nil {
			return nil, simpleShape(err)
		}
		if err := applyReviews(p, in.Reviews, lists, u); err != nil {
			return nil, err
		}
	}
	push, err := s.restrictions(ctx, repo, in.Restrictions)
	if err != nil {
		return nil, simpleShape(err)
	}
	p.Restricted, p.Push = in.Restrictions != nil, push
	u.on("required_linear_history", in.LinearHistory)
	u.on("block_creations", in.BlockCreations)
	u.on("required_conversation_resolution", in.ConversationResolution)
	u.on("lock_branch", in.LockBranch)
	u.on("allow_fork_syncing", in.AllowForkSyncing)
	if err := u.simple(); err != nil {
		return nil, err
	}
	// hubd never blocks force pushes or deletions: true is what it does.
	p.AllowForcePushes = in.AllowForcePushes != nil && *in.AllowForcePushes
	p.AllowDeletions = in.AllowDeletions != nil && *in.AllowDeletions
	err = s.Store.Tx(ctx, func(tx store.Q) error {
		before, err := tx.BranchProtection(ctx, repo.ID, branch)
		if err != nil {
			return err
		}
		if err := tx.PutBranchProtection(ctx, p); err != nil {
			return err
		}
		action := "edited"
		if before == nil {
			action = "created"
		}
		return s.recordChange(ctx, tx, repo, actorID, p.Branch, action)
	})
	if err != nil {
		return nil, err
	}
	s.notify()
	return s.Store.R().BranchProtection(ctx, repo.ID, branch)
}

// recordChange appends the domain event of a change and runs the Changed
// hook, inside the change's transaction.
// A deletion's event keeps the protection as it was (gone, its webhook
// shows it).
func (s *Service) recordChange(ctx context.Context, tx store.Q, repo *model.Repo, actorID int64, branch, action string, gone ...*model.BranchProtection) error {
	if err := s.changed(ctx, tx, repo.ID, branch); err != nil {
		return err
	}
	org := int64(0)
	if repo.Owner != nil && repo.Owner.IsOrg() {
		org = repo.Owner.ID
	}
	payload := map[string]any{"action": action, "branch": branch}
	if len(gone) > 0 && gone[0] != nil {
		payload["webhook"] = map[string]any{"protection": gone[0]}
	}
	return tx.AppendEvent(ctx, "branch_protection_rule."+action, actorID, repo.ID, org, payload)
}

// Delete removes a branch's protection (DELETE .../protection).
func (s *Service) Delete(ctx context.Context, repo *model.Repo, perm authz.Permission, actorID int64, branch string) error {
	if err := needAdmin(perm); err != nil {
		return err
	}
	before, err := s.load(ctx, s.Store.R(), repo, branch)
	if err != nil {
		return err
	}
	err = s.Store.Tx(ctx, func(tx store.Q) error {
		gone, err := tx.DeleteBranchProtection(ctx, repo.ID, branch)
		if err != nil || !gone {
			return err
		}
		return s.recordChange(ctx, tx, repo, actorID, branch, "deleted", before)
	})
	if err == nil {
		s.notify()
	}
	return err
}

// edit changes an existing protection in one transaction: fn returns an
// error to refuse (nothing is written).
func (s *Service) edit(ctx context.Context, repo *model.Repo, perm authz.Permission, actorID int64, branch string, fn func(p *model.BranchProtection) error) (*model.BranchProtection, error) {
	if err := needAdmin(perm); err != nil {
		return nil, err
	}
	if _, err := s.load(ctx, s.Store.R(), repo, branch); err != nil {
		return nil, err
	}
	var out *model.BranchProtection
	err := s.Store.Tx(ctx, func(tx store.Q) error {
		p, err := tx.BranchProtection(ctx, repo.ID, branch)
		if err != nil {
			return err
		}
		if p == nil {
			return errNotProtected // removed meanwhile
		}
		if err := fn(p); err != nil {
			return err
		}
		if err := tx.PutBranchProtection(ctx, p); err != nil {
			return err
		}
		out = p
		return s.recordChange(ctx, tx, repo, actorID, branch, "edited")
	})
	if err != nil {
		return nil, err
	}
	s.notify()
	return out, nil
}

// StatusChecks is a branch's required status checks.
func (s *Service) StatusChecks(ctx context.Context, repo *model.Repo, perm authz.Permission, branch string) (*model.BranchProtection, error) {
	p, err := s.Get(ctx, repo, perm, branch)
	if err != nil {
		return nil, err
	}
	if !p.StatusChecks {
		return nil, errNoStatusChecks
	}
	return p, nil
}

// UpdateStatusChecks changes strict and the required checks (PATCH).
func (s *Service) UpdateStatusChecks(ctx context.Context, repo *model.Repo, perm authz.Permission, actorID int64, branch string, in StatusChecksInput) (*model.BranchProtection, error) {
	return s.edit(ctx, repo, perm, actorID, branch, func(p *model.BranchProtection) error {
		if !p.StatusChecks {
			return errNoStatusChecks
		}
		if in.Strict != nil {
			p.Strict = *in.Strict
		}
		if in.Contexts != nil || in.HasChecks {
			u := &unsupported{}
			p.RequiredContexts = contextsOf(&in, u)
			return u.err()
		}
		return nil
	})
}

// RemoveStatusChecks turns required status checks off.
func (s *Service) RemoveStatusChecks(ctx context.Context, repo *model.Repo, perm authz.Permission, actorID int64, branch string) error {
	_, err := s.edit(ctx, repo, perm, actorID, branch, func(p *model.BranchProtection) error {
		p.StatusChecks, p.Strict, p.RequiredContexts = false, false, nil
		return nil
	})
	return err
}

// Contexts edits the required contexts: op is "set", "add" or "remove";
// "" only reads them.
func (s *Service) Contexts(ctx context.Context, repo *model.Repo, perm authz.Permission, actorID int64, branch, op string, names []string) ([]string, error) {
	if op == "" {
		p, err := s.StatusChecks(ctx, repo, perm, branch)
		if err != nil {
			return nil, err
		}
		return p.RequiredContexts, nil
	}
	p, err := s.edit(ctx, repo, perm, actorID, branch, func(p *model.BranchProtection) error {
		if !p.StatusChecks {
			return errNoStatusChecks
		}
		switch op {
		case "set":
			p.RequiredContexts = nil
			fallthrough
		case "add":
			for _, n := range names {
				if !slices.Contains(p.RequiredContexts, n) {
					p.RequiredContexts = append(p.RequiredContexts, n)
				}
			}
		case "remove":
			p.RequiredContexts = slices.DeleteFunc(p.RequiredContexts, func(c string) bool { return slices.Contains(names, c) })
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	// Answer in the order they are read back (by name).
	fresh, err := s.Store.R().RequiredContexts(ctx, repo.ID, p.Branch)
	return fresh, err
}

// SetEnforceAdmins turns enforce_admins on or off.
func (s *Service) SetEnforceAdmins(ctx context.Context, repo *model.Repo, perm authz.Permission, actorID int64, branch string, on bool) (*model.BranchProtection, error) {
	return s.edit(ctx, repo, perm, actorID, branch, func(p *model.BranchProtection) error {
		p.EnforceAdmins = on
		return nil
	})
}

// Reviews is a branch's review requirement.
func (s *Service) Reviews(ctx context.Context, repo *model.Repo, perm authz.Permission, branch string) (*model.BranchProtection, error) {
	p, err := s.Get(ctx, repo, perm, branch)
	if err != nil {
		return nil, err
	}
	if !p.Reviews {
		return nil, errNoReviews
	}
	return p, nil
}

// UpdateReviews changes the review requirement (PATCH); on a branch
// without one it turns it on, as GitHub does.
func (s *Service) UpdateReviews(ctx context.Context, repo *model.Repo, perm authz.Permission, actorID int64, branch string, in ReviewsInput) (*model.BranchProtection, error) {
	if err := needAdmin(perm); err != nil {
		return nil, err
	}
	lists, err := s.lists(ctx, repo, &in)
	if err != nil {
		return nil, err
	}
	return s.edit(ctx, repo, perm, actorID, branch, func(p *model.BranchProtection) error {
		u := &unsupported{}
		if err := applyReviews(p, &in, lists, u); err != nil {
			return err
		}
		return u.err()
	})
}

// RemoveReviews turns the review requirement off.
func (s *Service) RemoveReviews(ctx context.Context, repo *model.Repo, perm authz.Permission, actorID int64, branch string) error {
	_, err := s.edit(ctx, repo, perm, actorID, branch, func(p *model.BranchProtection) error {
		if !p.Reviews {
			return errNoReviews
		}
		p.Reviews, p.RequiredApprovals, p.DismissStaleReviews = false, 0, false
		p.RequireCodeOwnerReviews, p.DismissalRestricted = false, false
		p.Dismiss, p.Bypass = model.Allowed{}, model.Allowed{}
		return nil
	})
	return err
}
