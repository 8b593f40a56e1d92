package protection

import (
	"context"
	"errors"
	"net/http"
	"slices"
	"strconv"
	"strings"

	"github.com/hubd/hubd/internal/authz"
	"github.com/hubd/hubd/internal/codeowners"
	"github.com/hubd/hubd/internal/gitrepo"
	"github.com/hubd/hubd/internal/model"
	"github.com/hubd/hubd/internal/rest"
	"github.com/hubd/hubd/internal/store"
)

// Mergeable states MergeGate answers (the draft and dirty ones are the
// caller's).
const (
	StateClean    = "clean"
	StateBlocked  = "blocked"
	StateBehind   = "behind"
	StateUnstable = "unstable"
)

func notAllowed(msg string) error { return &model.HTTPError{Status: 405, Message: msg} }

// MergeGate is what branch protection says about merging pull into its
// base now, for a pull request that merges cleanly and is not a draft:
// the mergeable_state (the same for every caller) and the 405 a merge by a
// caller with actorPerm gets (nil when it may merge). states are the newest
// state of each status context and check name on the head ("success",
// "pending" or "failure"). Administrators pass unless enforce_admins.
//
// A base branch without protection still needs the contexts a direct
// SetRequiredContexts wrote, for everyone (hubd's behaviour before
// protection existed).
func (s *Service) MergeGate(ctx context.Context, repo *model.Repo, pull *model.Pull, actorPerm authz.Permission, states map[string]string) (string, error) {
	return s.MergeGateAs(ctx, repo, pull, callerOf(ctx, actorPerm), states)
}

// MergeGateAs is MergeGate for who (a merge made in a job, whose context
// holds no caller, names the user who asked for it).
func (s *Service) MergeGateAs(ctx context.Context, repo *model.Repo, pull *model.Pull, who Who, states map[string]string) (string, error) {
	actorPerm := who.Perm
	q := s.Store.R()
	p, err := q.BranchProtection(ctx, repo.ID, pull.BaseRef)
	if err != nil {
		return "", err
	}
	if p == nil {
		required, err := q.RequiredContexts(ctx, repo.ID, pull.BaseRef)
		if err != nil {
			return "", err
		}
		p = &model.BranchProtection{StatusChecks: len(required) > 0, RequiredContexts: required, EnforceAdmins: true}
	}
	// refusals block everyone (the mergeable_state); mine are this
	// caller's: a bypass allowance lets its holder merge without the
	// reviews, and push restrictions leave out who they do not name.
	var refusals, mine []error
	if p.Reviews {
		var reviews []error
		if p.RequiredApprovals > 0 {
			if err := s.reviewRefusal(ctx, repo, pull, p.RequiredApprovals); err != nil {
				reviews = append(reviews, err)
			}
		}
		if p.RequireCodeOwnerReviews {
			if err := s.codeOwnerRefusal(ctx, repo, pull); err != nil {
				var he *model.HTTPError
				if !errors.As(err, &he) {
					return "", err
				}
				reviews = append(reviews, err)
			}
		}
		refusals = append(refusals, reviews...)
		bypass := false
		if len(reviews) > 0 && !p.Bypass.Empty() {
			if bypass, err = s.names(ctx, p.Bypass, who); err != nil {
				return "", err
			}
		}
		if !bypass {
			mine = append(mine, reviews...)
		}
	}
	if p.StatusChecks {
		if err := checksRefusal(p.RequiredContexts, states); err != nil {
			refusals, mine = append(refusals, err), append(mine, err)
		}
	}
	state := StateClean
	if len(refusals) > 0 {
		state = StateBlocked
	}
	if p.StatusChecks && p.Strict {
		behind, err := s.behind(ctx, repo, pull)
		if err != nil {
			return "", err
		}
		if behind {
			mine = append(mine, notAllowed("Head branch is out of date. Review and try the merge again."))
			if state == StateClean {
				state = StateBehind
			}
		}
	}
	if ok, err := s.mayPush(ctx, p, who); err != nil {
		return "", err
	} else if !ok {
		mine = append(mine, ErrPushRestricted)
	}
	// The active rulesets on the base branch apply as well
	// (rulesetgate.go); their bypass actors pass them.
	ruled, err := s.rulesetGate(ctx, repo, pull, actorPerm, states)
	if err != nil {
		return "", err
	}
	switch {
	case ruled.blocked:
		state = StateBlocked
	case ruled.behind && state == StateClean:
		state = StateBehind
	}
	if state == StateClean {
		for _, st := range states {
			if st != "success" {
				state = StateUnstable
				break
			}
		}
	}
	if len(mine) == 0 || (actorPerm >= authz.Admin && !p.EnforceAdmins) {
		return state, ruled.refusal
	}
	return state, mine[0]
}

// callerOf is who merges: the request's caller, which the transports keep
// in the context (none in background jobs), with their permission.
func callerOf(ctx context.Context, perm authz.Permission) Who {
	who := Who{Perm: perm}
	if c := rest.From((&http.Request{}).WithContext(ctx)).Caller; c != nil {
		who.UserID, who.AppID = c.UserID(), c.AppID
	}
	return who
}

// For is who a user is when merging with perm: the request's app, when
// the request's caller is that user.
func For(ctx context.Context, userID int64, perm authz.Permission) Who {
	who := callerOf(ctx, perm)
	if who.UserID != userID {
		who = Who{UserID: userID, Perm: perm}
	}
	return who
}

// codeOwnerRefusal is the 405 of a pull request that changes owned files
// without an approval of one of each file's code owners (by the
// CODEOWNERS file of its base branch): an owner approves as a user, or a
// member of an owning team approves. The author's own review never counts.
func (s *Service) codeOwnerRefusal(ctx context.Context, repo *model.Repo, pull *model.Pull) error {
	own, err := codeowners.New(s.Store, s.Git).OfPull(ctx, repo, pull)
	if err != nil || own == nil || len(own.Files) == 0 {
		return err
	}
	verdicts, err := s.Store.R().ReviewVerdicts(ctx, pull.IssueID)
	if err != nil {
		return err
	}
	var approvers []int64
	for _, v := range verdicts {
		if v.State == model.ReviewApproved && (pull.Issue == nil || v.UserID != pull.Issue.UserID) {
			approvers = append(approvers, v.UserID)
		}
	}
	// approves memoises whether an owner approved.
	memo := map[string]bool{}
	approves := func(o codeowners.Resolved) (bool, error) {
		key := o.Text
		if ok, seen := memo[key]; seen {
			return ok, nil
		}
		ok := false
		if o.UserID != 0 {
			ok = slices.Contains(approvers, o.UserID)
		} else {
			team := model.Allowed{Teams: []int64{o.TeamID}}
			for _, id := range approvers {
				var err error
				if ok, err = s.names(ctx, team, Who{UserID: id}); err != nil || ok {
					if err != nil {
						return false, err
					}
					break
				}
			}
		}
		memo[key] = ok
		return ok, nil
	}
	var waiting []string
	paths := make([]string, 0, len(own.Files))
	for path := range own.Files {
		paths = append(paths, path)
	}
	slices.Sort(paths)
	for _, path := range paths {
		done := false
		for _, o := range own.Files[path] {
			ok, err := approves(o)
			if err != nil {
				return err
			}
			if ok {
				done = true
				break
			}
		}
		if done {
			continue
		}
		for _, o := range own.Files[path] {
			if !slices.Contains(waiting, o.Text) {
				waiting = append(waiting, o.Text)
			}
		}
	}
	if len(waiting) == 0 {
		return nil
	}
	return notAllowed("Waiting on code owner review from " + strings.Join(waiting, ", ") + ".")
}

// MergeState is MergeGate's mergeable_state alone (the same for every
// caller), for the background state computation: errors are real errors.
func (s *Service) MergeState(ctx context.Context, repo *model.Repo, pull *model.Pull, states map[string]string) (string, error) {
	st, err := s.MergeGate(ctx, repo, pull, authz.None, states)
	var he *model.HTTPError
	if errors.As(err, &he) && he.Status == 405 {
		return st, nil
	}
	return st, err
}

// reviewRefusal counts each user's latest deciding review: a change
// request by someone with write access blocks; approvals count from users
// with write access other than the author.
func (s *Service) reviewRefusal(ctx context.Context, repo *model.Repo, pull *model.Pull, need int) error {
	verdicts, err := s.Store.R().ReviewVerdicts(ctx, pull.IssueID)
	if err != nil {
		return err
	}
	approvals := 0
	for _, v := range verdicts {
		if v.State == model.ReviewDismissed || (pull.Issue != nil && v.UserID == pull.Issue.UserID) {
			continue
		}
		perm, err := s.userPerm(ctx, repo, v.UserID)
		if err != nil {
			return err
		}
		if perm < authz.Write {
			continue
		}
		if v.State == model.ReviewChangesRequested {
			return notAllowed("Changes have been requested.")
		}
		approvals++
	}
	if approvals >= need {
		return nil
	}
	if need == 1 {
		return notAllowed("At least 1 approving review is required by reviewers with write access.")
	}
	return notAllowed("At least " + strconv.Itoa(need) + " approving reviews are required by reviewers with write access.")
}

// userPerm is a user's own permission on repo (no token limits).
func (s *Service) userPerm(ctx context.Context, repo *model.Repo, userID int64) (authz.Permission, error) {
	return codeowners.UserPerm(ctx, s.Store, repo, userID)
}

// checksRefusal is GitHub's 405 for required contexts that are not green.
func checksRefusal(required []string, states map[string]string) error {
	var missing, failing []string
	for _, c := range required {
		switch states[c] {
		case "success":
		case "", "pending":
			missing = append(missing, c)
		default:
			failing = append(failing, c)
		}
	}
	bad := len(missing) + len(failing)
	switch {
	case bad == 0:
		return nil
	case bad == 1 && len(failing) == 1:
		return notAllowed("Required status check \"" + failing[0] + "\" is failing.")
	case bad == 1:
		return notAllowed("Required status check \"" + missing[0] + "\" is expected.")
	case len(failing) > 0:
		return notAllowed(strconv.Itoa(bad) + " of " + strconv.Itoa(len(required)) + " required status checks are failing.")
	}
	return notAllowed(strconv.Itoa(bad) + " of " + strconv.Itoa(len(required)) + " required status checks are expected.")
}

// behind reports whether the base branch has commits the head lacks.
func (s *Service) behind(ctx context.Context, repo *model.Repo, pull *model.Pull) (bool, error) {
	g := s.Git.Open(repo.ID)
	base, err := g.ResolveRef(ctx, "refs/heads/"+pull.BaseRef)
	if errors.Is(err, gitrepo.ErrNotFound) {
		base, err = pull.BaseSHA, nil
	}
	if err != nil {
		return false, err
	}
	if base == "" || pull.HeadSHA == "" {
		return false, nil
	}
	ok, err := g.IsAncestor(ctx, base, pull.HeadSHA)
	return !ok, err
}

// HeadMoved dismisses the approvals made on an earlier head of pull when
// its base branch dismisses stale reviews (the pulls service calls it
// after a head or base moved; a moved base leaves approvals alone, as they
// name the head commit they approved).
func (s *Service) HeadMoved(ctx context.Context, repo *model.Repo, pull *model.Pull) error {
	p, err := s.Store.R().BranchProtection(ctx, repo.ID, pull.BaseRef)
	if err != nil {
		return err
	}
	if p == nil || !p.Reviews || !p.DismissStaleReviews {
		// A pull_request rule of an active ruleset may ask it too.
		if dismiss, err := s.rulesetsDismissStale(ctx, repo, pull.BaseRef); err != nil || !dismiss {
			return err
		}
	}
	org := int64(0)
	if repo.Owner != nil && repo.Owner.IsOrg() {
		org = repo.Owner.ID
	}
	actor := int64(0)
	if pull.Issue != nil {
		actor = pull.Issue.UserID
	}
	return s.Store.Tx(ctx, func(tx store.Q) error {
		ids, err := tx.StaleApprovals(ctx, pull.IssueID, pull.HeadSHA)
		if err != nil {
			return err
		}
		for _, id := range ids {
			v, err := tx.PullReviewByID(ctx, pull.IssueID, id)
			if err != nil {
				return err
			}
			v.State = model.ReviewDismissed
			if err := tx.UpdatePullReview(ctx, v); err != nil {
				return err
			}
			// The same timeline entry and event as a dismissal by hand.
			// The hook does not say who pushed: the author stands in (the
			// timeline needs an actor), who usually pushes the head.
			e := &model.IssueEvent{RepoID: repo.ID, IssueID: pull.IssueID, ActorID: actor, Event: "review_dismissed", SubjectID: id,
				RenameFrom: strings.ToLower(model.ReviewApproved)}
			if err := tx.AddIssueEvent(ctx, e, org, map[string]any{"review_id": id, "state": model.ReviewApproved}); err != nil {
				return err
			}
			ev := map[string]any{"action": "dismissed", "pull_request_id": pull.IssueID, "number": pull.Number,
				"review_id": id, "state": model.ReviewDismissed}
			if err := tx.AppendEvent(ctx, "pull_request_review.dismissed", actor, repo.ID, org, ev); err != nil {
				return err
			}
		}
		return nil
	})
}

// ReviewDecisions are GraphQL's PullRequest.reviewDecision for pull
// requests of repo, by pull (issue) id, counted as merges count them (each
// user's latest deciding review; only users with write access other than
// the author): CHANGES_REQUESTED when one requests changes; else, when the
// base branch requires approving reviews, APPROVED once there are enough
// and REVIEW_REQUIRED before; without that requirement APPROVED after an
// approval and "" (null) otherwise. A base branch that requires code
// owner reviews keeps REVIEW_REQUIRED while a changed file's owners have
// not approved. One query for the verdicts of all the
// pull requests, one per base branch, one per reviewer.
func (s *Service) ReviewDecisions(ctx context.Context, repo *model.Repo, pulls []*model.Pull) (map[int64]string, error) {
	q := s.Store.R()
	ids := make([]int64, len(pulls))
	for i, p := range pulls {
		ids[i] = p.IssueID
	}
	verdicts, err := q.ReviewVerdictsOf(ctx, ids)
	if err != nil {
		return nil, err
	}
	need := map[string]int{}
	owners := map[string]bool{} // the base branch requires code owner reviews
	perms := map[int64]authz.Permission{}
	out := make(map[int64]string, len(pulls))
	for _, p := range pulls {
		n, ok := need[p.BaseRef]
		if !ok {
			bp, err := q.BranchProtection(ctx, repo.ID, p.BaseRef)
			if err != nil {
				return nil, err
			}
			if bp != nil && bp.Reviews {
				n = bp.RequiredApprovals
				owners[p.BaseRef] = bp.RequireCodeOwnerReviews
			}
			need[p.BaseRef] = n
		}
		approvals, changes := 0, false
		for _, v := range verdicts[p.IssueID] {
			if v.State == model.ReviewDismissed || (p.Issue != nil && v.UserID == p.Issue.UserID) {
				continue
			}
			perm, ok := perms[v.UserID]
			if !ok {
				if perm, err = s.userPerm(ctx, repo, v.UserID); err != nil {
					return nil, err
				}
				perms[v.UserID] = perm
			}
			if perm < authz.Write {
				continue
			}
			if v.State == model.ReviewChangesRequested {
				changes = true
			} else {
				approvals++
			}
		}
		// A file with code owners none of whom approved still needs a
		// review, whatever the count of approvals.
		ownersMissing := false
		if owners[p.BaseRef] && !changes {
			err := s.codeOwnerRefusal(ctx, repo, p)
			var he *model.HTTPError
			switch {
			case errors.As(err, &he):
				ownersMissing = true
			case err != nil:
				return nil, err
			}
		}
		switch {
		case changes:
			out[p.IssueID] = "CHANGES_REQUESTED"
		case ownersMissing:
			out[p.IssueID] = "REVIEW_REQUIRED"
		case n > 0 && approvals >= n:
			out[p.IssueID] = "APPROVED"
		case n > 0:
			out[p.IssueID] = "REVIEW_REQUIRED"
		case approvals > 0:
			out[p.IssueID] = "APPROVED"
		}
	}
	return out, nil
}
