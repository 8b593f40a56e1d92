package rulesets

import (
	"net/http"
	"time"

	"github.com/hubd/hubd/internal/authz"
	"github.com/hubd/hubd/internal/model"
	"github.com/hubd/hubd/internal/rest"
	"github.com/hubd/hubd/internal/wire"
)

// Push rule bypass requests (docs: orgs/bypass-requests,
// repos/bypass-requests): recorded by the rulesets service when push
// rulesets refuse a push.

const noteBypass = "Push rulesets (file_path_restriction, file_extension_restriction, max_file_path_length, max_file_size) " +
	"refuse pushes over HTTP and SSH; when every refusing ruleset has a bypass list, the refused push records a request " +
	"(requester, commit, ref, the rules broken) and the push output names it. A member of the bypass lists approves or " +
	"denies it (hubd's rulesets service; GitHub's REST has no review operation and hubd has no review page yet); an " +
	"approved request lets the same commit through by the same pusher within 7 days, and is then completed. " +
	"requester_comment is always null (git gives a pusher no way to write one)."

// periods are time_period's values.
var periods = map[string]time.Duration{"hour": time.Hour, "day": 24 * time.Hour, "week": 7 * 24 * time.Hour, "month": 30 * 24 * time.Hour}

var requestStatuses = map[string]string{"all": "", "open": "open", model.BypassRequestCompleted: model.BypassRequestCompleted,
	model.BypassRequestCancelled: model.BypassRequestCancelled, model.BypassRequestApproved: model.BypassRequestApproved,
	model.BypassRequestExpired: model.BypassRequestExpired, "deleted": "deleted", model.BypassRequestDenied: model.BypassRequestDenied}

// bypassFilter reads the list operations' filters (time_period defaults
// to a day, as GitHub's).
func (a *API) bypassFilter(r *http.Request) (model.BypassRequestFilter, error) {
	q := r.URL.Query()
	f := model.BypassRequestFilter{RepositoryName: q.Get("repository_name"), Reviewer: q.Get("reviewer"), Requester: q.Get("requester")}
	period := q.Get("time_period")
	if period == "" {
		period = "day"
	}
	d, ok := periods[period]
	if !ok {
		return f, model.Invalid("BypassRequest", "time_period", "invalid")
	}
	f.Since = a.d.Store.Now().Add(-d)
	status := q.Get("request_status")
	if status == "" {
		status = "all"
	}
	st, ok := requestStatuses[status]
	if !ok {
		return f, model.Invalid("BypassRequest", "request_status", "invalid")
	}
	f.Status = st
	return f, nil
}

func (a *API) renderRequests(list []*model.PushBypassRequest) []wire.PushRuleBypassRequest {
	now := a.d.Store.Now()
	out := make([]wire.PushRuleBypassRequest, len(list))
	for i, x := range list {
		out[i] = a.d.URLs.ToPushRuleBypassRequest(x, x.State(now))
	}
	return out
}

// GET /orgs/{org}/bypass-requests/push-rules
func (a *API) orgBypassRequests(w http.ResponseWriter, r *http.Request) error {
	c, org, err := a.orgCaller(r, false)
	if err != nil {
		return err
	}
	f, err := a.bypassFilter(r)
	if err != nil {
		return err
	}
	p := rest.ParsePage(r)
	list, total, err := a.svc.OrgBypassRequests(r.Context(), org, c.User, f, p.Limit(), p.Offset())
	if err != nil {
		return err
	}
	rest.SetLink(w, r, a.d.URLs.API, p, total)
	return rest.JSON(w, http.StatusOK, a.renderRequests(list))
}

// GET /repos/{owner}/{repo}/bypass-requests/push-rules
func (a *API) repoBypassRequests(w http.ResponseWriter, r *http.Request) error {
	repo, perm, err := a.d.Repo(r, authz.Read)
	if err != nil {
		return err
	}
	f, err := a.bypassFilter(r)
	if err != nil {
		return err
	}
	f.RepositoryName = ""
	p := rest.ParsePage(r)
	list, total, err := a.svc.RepoBypassRequests(r.Context(), repo, perm, rest.Caller(r).User, f, p.Limit(), p.Offset())
	if err != nil {
		return err
	}
	rest.SetLink(w, r, a.d.URLs.API, p, total)
	return rest.JSON(w, http.StatusOK, a.renderRequests(list))
}

// GET /repos/{owner}/{repo}/bypass-requests/push-rules/{bypass_request_number}
func (a *API) repoBypassRequest(w http.ResponseWriter, r *http.Request) error {
	repo, perm, err := a.d.Repo(r, authz.Read)
	if err != nil {
		return err
	}
	n, err := pathID(r, "bypass_request_number")
	if err != nil {
		return err
	}
	x, err := a.svc.RepoBypassRequest(r.Context(), repo, perm, rest.Caller(r).User, n)
	if err != nil {
		return err
	}
	return rest.JSON(w, http.StatusOK, a.renderRequests([]*model.PushBypassRequest{x})[0])
}
