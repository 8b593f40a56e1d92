package rulesets

import (
	"net/http"
	"strconv"

	"github.com/hubd/hubd/internal/authz"
	"github.com/hubd/hubd/internal/model"
	"github.com/hubd/hubd/internal/rest"
	svc "github.com/hubd/hubd/internal/rulesets"
	"github.com/hubd/hubd/internal/wire"
)

// pathID reads a numeric path value; anything else names nothing.
func pathID(r *http.Request, name string) (int64, error) {
	id, err := strconv.ParseInt(r.PathValue(name), 10, 64)
	if err != nil || id <= 0 {
		return 0, model.ErrNotFound
	}
	return id, nil
}

// render converts rulesets for a repository's caller: bypass actors for
// those who may change them, current_user_can_bypass for everyone.
func (a *API) render(r *http.Request, repo *model.Repo, perm authz.Permission, list ...*model.Ruleset) ([]wire.RepositoryRuleset, error) {
	can, err := a.svc.CanBypass(r.Context(), repo, svc.ActorOf(rest.Caller(r), perm), list)
	if err != nil {
		return nil, err
	}
	out := make([]wire.RepositoryRuleset, len(list))
	for i, rs := range list {
		out[i] = a.d.URLs.ToRepositoryRuleset(rs, svc.ShowsBypass(repo, perm, rs), can[rs.ID])
	}
	return out, nil
}

// GET /repos/{owner}/{repo}/rulesets
func (a *API) list(w http.ResponseWriter, r *http.Request) error {
	repo, perm, err := a.d.Repo(r, authz.Read)
	if err != nil {
		return err
	}
	p := rest.ParsePage(r)
	list, total, err := a.svc.List(r.Context(), repo, includesParents(r), targets(r), p.Limit(), p.Offset())
	if err != nil {
		return err
	}
	out, err := a.render(r, repo, perm, list...)
	if err != nil {
		return err
	}
	rest.SetLink(w, r, a.d.URLs.API, p, total)
	return rest.JSON(w, http.StatusOK, out)
}

// POST /repos/{owner}/{repo}/rulesets
func (a *API) create(w http.ResponseWriter, r *http.Request) error {
	repo, perm, err := a.d.Repo(r, authz.Admin)
	if err != nil {
		return err
	}
	in, err := decode(r)
	if err != nil {
		return err
	}
	rs, err := a.svc.Create(r.Context(), repo, perm, rest.Caller(r).UserID(), in)
	if err != nil {
		return err
	}
	out, err := a.render(r, repo, perm, rs)
	if err != nil {
		return err
	}
	return rest.JSON(w, http.StatusCreated, out[0])
}

// GET /repos/{owner}/{repo}/rulesets/{ruleset_id}
func (a *API) get(w http.ResponseWriter, r *http.Request) error {
	repo, perm, err := a.d.Repo(r, authz.Read)
	if err != nil {
		return err
	}
	id, err := pathID(r, "ruleset_id")
	if err != nil {
		return err
	}
	rs, err := a.svc.Get(r.Context(), repo, id, includesParents(r))
	if err != nil {
		return err
	}
	out, err := a.render(r, repo, perm, rs)
	if err != nil {
		return err
	}
	return rest.JSON(w, http.StatusOK, out[0])
}

// PUT /repos/{owner}/{repo}/rulesets/{ruleset_id}
func (a *API) update(w http.ResponseWriter, r *http.Request) error {
	repo, perm, err := a.d.Repo(r, authz.Admin)
	if err != nil {
		return err
	}
	id, err := pathID(r, "ruleset_id")
	if err != nil {
		return err
	}
	in, err := decode(r)
	if err != nil {
		return err
	}
	rs, err := a.svc.Update(r.Context(), repo, perm, rest.Caller(r).UserID(), id, in)
	if err != nil {
		return err
	}
	out, err := a.render(r, repo, perm, rs)
	if err != nil {
		return err
	}
	return rest.JSON(w, http.StatusOK, out[0])
}

// DELETE /repos/{owner}/{repo}/rulesets/{ruleset_id}
func (a *API) delete(w http.ResponseWriter, r *http.Request) error {
	repo, perm, err := a.d.Repo(r, authz.Admin)
	if err != nil {
		return err
	}
	id, err := pathID(r, "ruleset_id")
	if err != nil {
		return err
	}
	if err := a.svc.Delete(r.Context(), repo, perm, rest.Caller(r).UserID(), id); err != nil {
		return err
	}
	return rest.NoContent(w)
}

// adminRuleset finds a repository's own ruleset for its admins (history).
func (a *API) adminRuleset(r *http.Request) (*model.Repo, *model.Ruleset, error) {
	repo, _, err := a.d.Repo(r, authz.Admin)
	if err != nil {
		return nil, nil, err
	}
	id, err := pathID(r, "ruleset_id")
	if err != nil {
		return nil, nil, err
	}
	rs, err := a.svc.Get(r.Context(), repo, id, false)
	return repo, rs, err
}

// GET /repos/{owner}/{repo}/rulesets/{ruleset_id}/history
func (a *API) history(w http.ResponseWriter, r *http.Request) error {
	_, rs, err := a.adminRuleset(r)
	if err != nil {
		return err
	}
	return a.writeHistory(w, r, rs)
}

func (a *API) writeHistory(w http.ResponseWriter, r *http.Request, rs *model.Ruleset) error {
	p := rest.ParsePage(r)
	list, total, err := a.svc.History(r.Context(), rs, p.Limit(), p.Offset())
	if err != nil {
		return err
	}
	out := make([]wire.RulesetVersion, len(list))
	for i, v := range list {
		out[i] = a.d.URLs.ToRulesetVersion(v, true)
	}
	rest.SetLink(w, r, a.d.URLs.API, p, total)
	return rest.JSON(w, http.StatusOK, out)
}

// GET /repos/{owner}/{repo}/rulesets/{ruleset_id}/history/{version_id}
func (a *API) version(w http.ResponseWriter, r *http.Request) error {
	_, rs, err := a.adminRuleset(r)
	if err != nil {
		return err
	}
	return a.writeVersion(w, r, rs)
}

func (a *API) writeVersion(w http.ResponseWriter, r *http.Request, rs *model.Ruleset) error {
	vid, err := pathID(r, "version_id")
	if err != nil {
		return err
	}
	v, err := a.svc.Version(r.Context(), rs, vid)
	if err != nil {
		return err
	}
	return rest.JSON(w, http.StatusOK, a.d.URLs.ToRulesetVersion(v, true))
}

// GET /repos/{owner}/{repo}/rules/branches/{branch}
func (a *API) branchRules(w http.ResponseWriter, r *http.Request) error {
	repo, _, err := a.d.Repo(r, authz.Read)
	if err != nil {
		return err
	}
	rules, err := a.svc.RulesForBranch(r.Context(), repo, r.PathValue("branch"))
	if err != nil {
		return err
	}
	// A branch's rules are worked out from its repository's few rulesets
	// (patterns are matched here, not in SQL); the page is cut from them.
	p := rest.ParsePage(r)
	out := []wire.RepositoryRuleDetailed{}
	for i := p.Offset(); i < len(rules) && i < p.Offset()+p.Limit(); i++ {
		out = append(out, a.d.URLs.ToRuleDetailed(rules[i].Rule, rules[i].Ruleset))
	}
	rest.SetLink(w, r, a.d.URLs.API, p, len(rules))
	return rest.JSON(w, http.StatusOK, out)
}
