package protection

import (
	"net/http"

	"github.com/hubd/hubd/internal/authz"
	"github.com/hubd/hubd/internal/model"
	svc "github.com/hubd/hubd/internal/protection"
	"github.com/hubd/hubd/internal/rest"
)

// repo resolves the repository for an admin: 404 when hidden, 403 "Must
// have admin rights to Repository." when seen with less.
func (a *API) repo(r *http.Request) (*model.Repo, authz.Permission, string, error) {
	repo, perm, err := a.d.Repo(r, authz.Admin)
	return repo, perm, r.PathValue("branch"), err
}

type checkBody struct {
	Context string `json:"context"`
	AppID   *int64 `json:"app_id"`
}

type statusChecksBody struct {
	Strict   *bool                 `json:"strict"`
	Contexts []string              `json:"contexts"`
	Checks   rest.Opt[[]checkBody] `json:"checks"`
}

func (b *statusChecksBody) input() *svc.StatusChecksInput {
	in := &svc.StatusChecksInput{Strict: b.Strict, Contexts: b.Contexts}
	if list, ok := b.Checks.Get(); ok {
		in.HasChecks = true
		for _, c := range list {
			in.Checks = append(in.Checks, svc.Check{Context: c.Context, AppID: c.AppID})
		}
	}
	return in
}

type allowBody struct {
	Users []string `json:"users"`
	Teams []string `json:"teams"`
	Apps  []string `json:"apps"`
}

func (b *allowBody) input() *svc.Allowances {
	if b == nil {
		return nil
	}
	return &svc.Allowances{Users: b.Users, Teams: b.Teams, Apps: b.Apps}
}

type reviewsBody struct {
	DismissalRestrictions   *allowBody `json:"dismissal_restrictions"`
	DismissStaleReviews     *bool      `json:"dismiss_stale_reviews"`
	RequireCodeOwnerReviews *bool      `json:"require_code_owner_reviews"`
	RequiredApprovals       *int       `json:"required_approving_review_count"`
	RequireLastPushApproval *bool      `json:"require_last_push_approval"`
	Bypass                  *allowBody `json:"bypass_pull_request_allowances"`
}

func (b *reviewsBody) input() *svc.ReviewsInput {
	return &svc.ReviewsInput{DismissStaleReviews: b.DismissStaleReviews, RequireCodeOwnerReviews: b.RequireCodeOwnerReviews,
		RequiredApprovals: b.RequiredApprovals, RequireLastPushApproval: b.RequireLastPushApproval,
		DismissalRestrictions: b.DismissalRestrictions.input(), Bypass: b.Bypass.input()}
}

type putBody struct {
	RequiredStatusChecks           *statusChecksBody `json:"required_status_checks"`
	EnforceAdmins                  *bool             `json:"enforce_admins"`
	RequiredPullRequestReviews     *reviewsBody      `json:"required_pull_request_reviews"`
	Restrictions                   *allowBody        `json:"restrictions"`
	RequiredLinearHistory          *bool             `json:"required_linear_history"`
	AllowForcePushes               *bool             `json:"allow_force_pushes"`
	AllowDeletions                 *bool             `json:"allow_deletions"`
	BlockCreations                 *bool             `json:"block_creations"`
	RequiredConversationResolution *bool             `json:"required_conversation_resolution"`
	LockBranch                     *bool             `json:"lock_branch"`
	AllowForkSyncing               *bool             `json:"allow_fork_syncing"`
}

// protected answers a branch's protection with the actors it names.
func (a *API) protected(w http.ResponseWriter, r *http.Request, repo *model.Repo, p *model.BranchProtection) error {
	actors, err := a.svc.Actors(r.Context(), p)
	if err != nil {
		return err
	}
	return rest.JSON(w, http.StatusOK, a.d.URLs.ToProtectedBranch(repo, p, actors))
}

// GET /repos/{owner}/{repo}/branches/{branch}/protection
func (a *API) get(w http.ResponseWriter, r *http.Request) error {
	repo, perm, branch, err := a.repo(r)
	if err != nil {
		return err
	}
	p, err := a.svc.Get(r.Context(), repo, perm, branch)
	if err != nil {
		return err
	}
	return a.protected(w, r, repo, p)
}

// PUT /repos/{owner}/{repo}/branches/{branch}/protection
func (a *API) update(w http.ResponseWriter, r *http.Request) error {
	repo, perm, branch, err := a.repo(r)
	if err != nil {
		return err
	}
	var b putBody
	if err := rest.Decode(r, &b); err != nil {
		return err
	}
	in := svc.UpdateInput{EnforceAdmins: b.EnforceAdmins != nil && *b.EnforceAdmins,
		Restrictions: b.Restrictions.input(), LinearHistory: b.RequiredLinearHistory,
		AllowForcePushes: b.AllowForcePushes, AllowDeletions: b.AllowDeletions, BlockCreations: b.BlockCreations,
		ConversationResolution: b.RequiredConversationResolution, LockBranch: b.LockBranch, AllowForkSyncing: b.AllowForkSyncing}
	if b.RequiredStatusChecks != nil {
		in.StatusChecks = b.RequiredStatusChecks.input()
	}
	if b.RequiredPullRequestReviews != nil {
		in.Reviews = b.RequiredPullRequestReviews.input()
	}
	p, err := a.svc.Update(r.Context(), repo, perm, rest.Caller(r).UserID(), branch, in)
	if err != nil {
		return err
	}
	return a.protected(w, r, repo, p)
}

// DELETE /repos/{owner}/{repo}/branches/{branch}/protection
func (a *API) remove(w http.ResponseWriter, r *http.Request) error {
	repo, perm, branch, err := a.repo(r)
	if err != nil {
		return err
	}
	if err := a.svc.Delete(r.Context(), repo, perm, rest.Caller(r).UserID(), branch); err != nil {
		return err
	}
	return rest.NoContent(w)
}

// GET .../protection/required_status_checks
func (a *API) getChecks(w http.ResponseWriter, r *http.Request) error {
	repo, perm, branch, err := a.repo(r)
	if err != nil {
		return err
	}
	p, err := a.svc.StatusChecks(r.Context(), repo, perm, branch)
	if err != nil {
		return err
	}
	return rest.JSON(w, http.StatusOK, a.d.URLs.ToStatusCheckPolicy(repo, p))
}

// PATCH .../protection/required_status_checks
func (a *API) updateChecks(w http.ResponseWriter, r *http.Request) error {
	repo, perm, branch, err := a.repo(r)
	if err != nil {
		return err
	}
	var b statusChecksBody
	if err := rest.Decode(r, &b); err != nil {
		return err
	}
	p, err := a.svc.UpdateStatusChecks(r.Context(), repo, perm, rest.Caller(r).UserID(), branch, *b.input())
	if err != nil {
		return err
	}
	return rest.JSON(w, http.StatusOK, a.d.URLs.ToStatusCheckPolicy(repo, p))
}

// DELETE .../protection/required_status_checks
func (a *API) removeChecks(w http.ResponseWriter, r *http.Request) error {
	repo, perm, branch, err := a.repo(r)
	if err != nil {
		return err
	}
	if err := a.svc.RemoveStatusChecks(r.Context(), repo, perm, rest.Caller(r).UserID(), branch); err != nil {
		return err
	}
	return rest.NoContent(w)
}

// GET, POST, PUT and DELETE .../protection/required_status_checks/contexts
func (a *API) contexts(op string) rest.Handler {
	return func(w http.ResponseWriter, r *http.Request) error {
		repo, perm, branch, err := a.repo(r)
		if err != nil {
			return err
		}
		var b struct {
			Contexts []string `json:"contexts"`
		}
		if op != "" {
			if err := rest.Decode(r, &b); err != nil {
				return err
			}
		}
		list, err := a.svc.Contexts(r.Context(), repo, perm, rest.Caller(r).UserID(), branch, op, b.Contexts)
		if err != nil {
			return err
		}
		if list == nil {
			list = []string{}
		}
		return rest.JSON(w, http.StatusOK, list)
	}
}

// GET .../protection/enforce_admins
func (a *API) getAdmins(w http.ResponseWriter, r *http.Request) error {
	repo, perm, branch, err := a.repo(r)
	if err != nil {
		return err
	}
	p, err := a.svc.Get(r.Context(), repo, perm, branch)
	if err != nil {
		return err
	}
	return rest.JSON(w, http.StatusOK, a.d.URLs.ToAdminEnforced(repo, p))
}

// POST and DELETE .../protection/enforce_admins
func (a *API) setAdmins(on bool) rest.Handler {
	return func(w http.ResponseWriter, r *http.Request) error {
		repo, perm, branch, err := a.repo(r)
		if err != nil {
			return err
		}
		p, err := a.svc.SetEnforceAdmins(r.Context(), repo, perm, rest.Caller(r).UserID(), branch, on)
		if err != nil {
			return err
		}
		if !on {
			return rest.NoContent(w)
		}
		return rest.JSON(w, http.StatusOK, a.d.URLs.ToAdminEnforced(repo, p))
	}
}

// GET .../protection/required_pull_request_reviews
func (a *API) getReviews(w http.ResponseWriter, r *http.Request) error {
	repo, perm, branch, err := a.repo(r)
	if err != nil {
		return err
	}
	p, err := a.svc.Reviews(r.Context(), repo, perm, branch)
	if err != nil {
		return err
	}
	actors, err := a.svc.Actors(r.Context(), p)
	if err != nil {
		return err
	}
	return rest.JSON(w, http.StatusOK, a.d.URLs.ToProtectedBranchReviews(repo, p, actors))
}

// PATCH .../protection/required_pull_request_reviews
func (a *API) updateReviews(w http.ResponseWriter, r *http.Request) error {
	repo, perm, branch, err := a.repo(r)
	if err != nil {
		return err
	}
	var b reviewsBody
	if err := rest.Decode(r, &b); err != nil {
		return err
	}
	p, err := a.svc.UpdateReviews(r.Context(), repo, perm, rest.Caller(r).UserID(), branch, *b.input())
	if err != nil {
		return err
	}
	actors, err := a.svc.Actors(r.Context(), p)
	if err != nil {
		return err
	}
	return rest.JSON(w, http.StatusOK, a.d.URLs.ToProtectedBranchReviews(repo, p, actors))
}

// DELETE .../protection/required_pull_request_reviews
func (a *API) removeReviews(w http.ResponseWriter, r *http.Request) error {
	repo, perm, branch, err := a.repo(r)
	if err != nil {
		return err
	}
	if err := a.svc.RemoveReviews(r.Context(), repo, perm, rest.Caller(r).UserID(), branch); err != nil {
		return err
	}
	return rest.NoContent(w)
}
