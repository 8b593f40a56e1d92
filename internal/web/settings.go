package web

import (
	"errors"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/hubd/hubd/internal/authz"
	"github.com/hubd/hubd/internal/collaborators"
	"github.com/hubd/hubd/internal/hooks"
	"github.com/hubd/hubd/internal/model"
	"github.com/hubd/hubd/internal/protection"
	"github.com/hubd/hubd/internal/rulesets"
	"github.com/hubd/hubd/internal/runners"
	"github.com/hubd/hubd/internal/teams"
	"github.com/hubd/hubd/internal/variables"
)

// The repository settings pages (/{owner}/{repo}/settings/...): what a
// maintainer needs, drawn from and changed through the services the REST
// API runs. Only the repository's administrators see them; anyone else
// gets the 404 GitHub's settings pages answer.

// settingsSections are the sections of the settings navigation.
var settingsSections = []struct{ Key, Name, Path string }{
	{"access", "Collaborators and teams", "access"},
	{"branches", "Branches", "branches"},
	{"rules", "Rulesets", "rules"},
	{"hooks", "Webhooks", "hooks"},
	{"secrets", "Secrets", "secrets/actions"},
	{"variables", "Variables", "variables/actions"},
	{"runners", "Runners", "actions/runners"},
}

type navItem struct {
	Name, Href string
	On         bool
}

type settingsView struct {
	Head
	Section string
	Nav     []navItem
	CSRF    string
	Flash   string
	Self    string // the section's page, the forms' base

	// access
	Collaborators []collaborators.Collaborator
	Avatars       map[int64]string
	Teams         []teamAccess
	MoreTeams     int
	Invitations   []*model.RepoInvitation
	// branches
	Protections []*model.BranchProtection
	Branches    []string                // branches without protection, for the form
	NewRule     *model.BranchProtection // nil: the new rule form's defaults
	// rules
	Rulesets []*model.Ruleset
	Ruleset  *model.Ruleset
	Editor   *rulesetForm // a new ruleset, or the repository's own one being edited
	// hooks
	Hooks      []*model.Hook
	Hook       *model.Hook
	Deliveries []*model.HookDelivery
	// secrets, variables
	Names []namedItem
	Total int
	// runners
	Runners []runnerItem
}

type teamAccess struct {
	Team *model.Team
	Role string
}

type namedItem struct {
	Name    string
	Updated time.Time
}

type runnerItem struct {
	Runner *model.Runner
	Online bool
}

// admin reports whether the caller administers the repository; a page
// that answers for them otherwise (404).
func (x *req) admin() bool { return x.perm >= authz.Admin && x.caller().UserID() != 0 }

func (x *req) settingsView(section string) settingsView {
	v := settingsView{Head: x.head("settings"), Section: section, CSRF: x.csrf(), Flash: x.query("flash")}
	for _, s := range settingsSections {
		href := x.base + "/settings/" + s.Path
		v.Nav = append(v.Nav, navItem{Name: s.Name, Href: href, On: s.Key == section})
		if s.Key == section {
			v.Self = href
		}
	}
	return v
}

// settingsPage serves the GET of a settings page.
func (x *req) settingsPage() bool {
	if !x.admin() {
		return x.notFound()
	}
	rest := x.pg.rest
	sec := strings.Join(rest, "/")
	switch {
	case len(rest) == 0:
		return x.redirect(x.base + "/settings/access")
	case sec == "access":
		return x.accessSettings()
	case sec == "branches":
		return x.branchSettings()
	case rest[0] == "rules" && len(rest) <= 2:
		return x.ruleSettings()
	case rest[0] == "hooks" && len(rest) <= 2:
		return x.hookSettings()
	case sec == "secrets/actions":
		return x.secretSettings()
	case sec == "variables/actions":
		return x.variableSettings()
	case sec == "actions/runners":
		return x.runnerSettings()
	}
	return x.notFound()
}

func (x *req) settingsOK(title string, v settingsView) bool {
	return x.ok(title+" · Settings · "+x.repo.FullName(), "settings", v)
}

func (x *req) collabAccess() collaborators.Access {
	return collaborators.Access{Repo: x.repo, Perm: x.perm, UserID: x.caller().UserID(), TokenWrites: true}
}

// accessSettings: the collaborators (every affiliation, with their role),
// the pending invitations and the teams with access.
func (x *req) accessSettings() bool {
	ctx := x.r.Context()
	v := x.settingsView("access")
	svc := x.h.svc.Collaborators
	if svc == nil {
		svc = collaborators.New(x.h.d.Store)
	}
	var err error
	if v.Collaborators, _, err = svc.List(ctx, x.collabAccess(), model.AffiliationAll, authz.None, 100, 0); err != nil {
		return x.fail(err)
	}
	v.Avatars = map[int64]string{}
	for _, c := range v.Collaborators {
		v.Avatars[c.User.ID] = x.h.d.URLs.AvatarURL(c.User)
	}
	if v.Invitations, _, err = svc.Invitations(ctx, x.collabAccess(), 100, 0); err != nil {
		return x.fail(err)
	}
	q := x.h.d.Store.R()
	grants, total, err := q.RepoTeamGrants(ctx, x.repo.ID, 100)
	if err != nil {
		return x.fail(err)
	}
	ids := make([]int64, len(grants))
	for i, g := range grants {
		ids[i] = g.TeamID
	}
	teams, err := q.TeamsByID(ctx, ids)
	if err != nil {
		return x.fail(err)
	}
	for _, g := range grants {
		if t := teams[g.TeamID]; t != nil {
			v.Teams = append(v.Teams, teamAccess{Team: t, Role: g.Name()})
		}
	}
	v.MoreTeams = total - len(grants)
	return x.settingsOK("Collaborators and teams", v)
}

// branchSettings: each protected branch with its rules, and the form that
// protects a branch (or changes its common rules).
func (x *req) branchSettings() bool {
	ctx := x.r.Context()
	v := x.settingsView("branches")
	names, err := x.h.d.Store.R().ProtectedBranchNames(ctx, x.repo.ID)
	if err != nil {
		return x.fail(err)
	}
	ps, err := x.h.d.Store.R().BranchProtections(ctx, x.repo.ID, names)
	if err != nil {
		return x.fail(err)
	}
	for _, n := range names {
		if p := ps[n]; p != nil {
			v.Protections = append(v.Protections, p)
		}
	}
	refs, err := x.h.d.Git.Open(x.repo.ID).Refs(ctx, "refs/heads/")
	if err != nil && !isEmptyRepo(err) {
		return x.fail(err)
	}
	for _, r := range refs {
		b := strings.TrimPrefix(r.Name, "refs/heads/")
		if ps[b] == nil && len(v.Branches) < 200 {
			v.Branches = append(v.Branches, b)
		}
	}
	return x.settingsOK("Branches", v)
}

// ruleSettings: the rulesets that apply to the repository (its own and
// its organization's); settings/rules/{id} shows one with its rules and
// the form that changes its enforcement.
func (x *req) ruleSettings() bool {
	if x.h.svc.Rulesets == nil {
		return x.notFound()
	}
	ctx := x.r.Context()
	v := x.settingsView("rules")
	list, err := x.h.svc.Rulesets.ForRepo(ctx, x.repo, true, rulesets.Actor{UserID: x.caller().UserID(), Perm: x.perm, HasPerm: true})
	if err != nil {
		return x.fail(err)
	}
	if len(x.pg.rest) == 2 && x.pg.rest[1] == "new" {
		v.Editor = newRulesetForm(nil)
		return x.settingsOK("New branch ruleset", v)
	}
	if len(x.pg.rest) == 2 {
		id, err := strconv.ParseInt(x.pg.rest[1], 10, 64)
		if err != nil {
			return x.notFound()
		}
		for _, rs := range list {
			if rs.ID == id {
				v.Ruleset = rs
			}
		}
		if v.Ruleset == nil {
			return x.notFound()
		}
		if v.Ruleset.RepoID == x.repo.ID && v.Ruleset.Target == model.RulesetTargetBranch {
			v.Editor = newRulesetForm(v.Ruleset)
		}
		return x.settingsOK(v.Ruleset.Name, v)
	}
	v.Rulesets = list
	return x.settingsOK("Rulesets", v)
}

// hookSettings: the webhooks; settings/hooks/{id} shows one with its
// recent deliveries, each with a button to redeliver it.
func (x *req) hookSettings() bool {
	if x.h.svc.Hooks == nil {
		return x.notFound()
	}
	ctx := x.r.Context()
	v := x.settingsView("hooks")
	t := hooks.Target{Repo: x.repo}
	if len(x.pg.rest) == 2 {
		id, err := strconv.ParseInt(x.pg.rest[1], 10, 64)
		if err != nil {
			return x.notFound()
		}
		h, err := x.h.svc.Hooks.Get(ctx, t, id)
		if errors.Is(err, model.ErrNotFound) {
			return x.notFound()
		}
		if err != nil {
			return x.fail(err)
		}
		v.Hook = h
		if v.Deliveries, _, err = x.h.svc.Hooks.Deliveries(ctx, t, id, 0, "", 30); err != nil {
			return x.fail(err)
		}
		return x.settingsOK("Webhook", v)
	}
	var err error
	if v.Hooks, v.Total, err = x.h.svc.Hooks.List(ctx, t, 100, 0); err != nil {
		return x.fail(err)
	}
	return x.settingsOK("Webhooks", v)
}

// secretSettings: the names of the repository's Actions secrets (the
// values are never shown, as on GitHub).
func (x *req) secretSettings() bool {
	if x.h.svc.Secrets == nil {
		return x.notFound()
	}
	v := x.settingsView("secrets")
	list, total, err := x.h.svc.Secrets.List(x.r.Context(), x.secretScope(), 100, 0)
	if err != nil {
		return x.fail(err)
	}
	for _, s := range list {
		v.Names = append(v.Names, namedItem{Name: s.Name, Updated: s.UpdatedAt})
	}
	v.Total = total
	return x.settingsOK("Actions secrets", v)
}

// secretScope is the repository's Actions secrets.
func (x *req) secretScope() model.SecretScope {
	return model.SecretScope{App: "actions", Kind: model.SecretRepository, OwnerID: x.repo.ID}
}

// variableScope is the repository's Actions variables.
func (x *req) variableScope() variables.Scope {
	return variables.Scope{Kind: model.VariablesActions, Repo: x.repo}
}

// setSecret seals a value typed into the form with the repository's
// public key and stores it through the secrets service, as the API's
// create-or-update does with a client's sealed box.
func (x *req) setSecret(name, value string) error {
	if value == "" {
		return model.Invalid("Secret", "encrypted_value", "missing_field")
	}
	ctx := x.r.Context()
	put, err := x.h.svc.Secrets.Seal(ctx, x.secretScope(), value)
	if err != nil {
		return err
	}
	_, err = x.h.svc.Secrets.Set(ctx, x.secretScope(), x.caller().UserID(), strings.TrimSpace(name), put)
	return err
}

// variableSettings: the names of the repository's Actions variables.
func (x *req) variableSettings() bool {
	if x.h.svc.Variables == nil {
		return x.notFound()
	}
	v := x.settingsView("variables")
	list, total, err := x.h.svc.Variables.List(x.r.Context(), x.variableScope(), 100, 0)
	if err != nil {
		return x.fail(err)
	}
	for _, s := range list {
		v.Names = append(v.Names, namedItem{Name: s.Name, Updated: s.UpdatedAt})
	}
	v.Total = total
	return x.settingsOK("Actions variables", v)
}

// runnerSettings: the repository's self-hosted runners, online or not,
// busy or idle, with their labels.
func (x *req) runnerSettings() bool {
	if x.h.svc.Runners == nil {
		return x.notFound()
	}
	v := x.settingsView("runners")
	list, total, err := x.h.svc.Runners.List(x.r.Context(), runners.Scope{Kind: model.RunnerRepo, Repo: x.repo, ActorID: x.caller().UserID()}, "", 100, 0)
	if err != nil {
		return x.fail(err)
	}
	for _, r := range list {
		v.Runners = append(v.Runners, runnerItem{Runner: r, Online: x.h.svc.Runners.Online(r)})
	}
	v.Total = total
	return x.settingsOK("Runners", v)
}

// settingsForm runs a settings page's form through the service of the
// REST operation that does the same.
func (x *req) settingsForm() bool {
	if !x.admin() {
		return x.notFound()
	}
	ctx := x.r.Context()
	f := x.r.PostForm
	rest := x.pg.rest
	uid := x.caller().UserID()
	if err := x.repo.WriteRefusal(); err != nil && len(rest) > 0 && rest[0] != "hooks" {
		return x.outcome(x.base+"/settings/"+rest[0], err)
	}
	switch {
	case len(rest) == 1 && rest[0] == "access":
		// PUT /repos/{owner}/{repo}/collaborators/{username}
		perm := f.Get("permission")
		_, err := x.collaborators().Add(ctx, x.collabAccess(), strings.TrimSpace(f.Get("login")), &perm)
		return x.outcome(x.base+"/settings/access", err)
	case len(rest) == 2 && rest[0] == "access" && rest[1] == "teams":
		// PUT /orgs/{org}/teams/{team_slug}/repos/{owner}/{repo}
		return x.outcome(x.base+"/settings/access", x.teamGrant(strings.TrimSpace(f.Get("team")), f.Get("permission"), false))
	case len(rest) == 4 && rest[0] == "access" && rest[1] == "teams" && rest[3] == "remove":
		// DELETE /orgs/{org}/teams/{team_slug}/repos/{owner}/{repo}
		return x.outcome(x.base+"/settings/access", x.teamGrant(rest[2], "", true))
	case len(rest) == 3 && rest[0] == "access" && rest[2] == "remove":
		// DELETE /repos/{owner}/{repo}/collaborators/{username}
		return x.outcome(x.base+"/settings/access", x.collaborators().Remove(ctx, x.collabAccess(), rest[1]))
	case len(rest) == 1 && rest[0] == "branches" && x.h.svc.Protection != nil:
		// PUT /repos/{owner}/{repo}/branches/{branch}/protection
		branch, in := strings.TrimSpace(f.Get("branch")), protectionInput(f)
		if err := x.keepLists(&in, branch); err != nil {
			return x.fail(err)
		}
		_, err := x.h.svc.Protection.Update(ctx, x.repo, x.perm, uid, branch, in)
		return x.outcome(x.base+"/settings/branches", err)
	case len(rest) == 2 && rest[0] == "branches" && rest[1] == "delete" && x.h.svc.Protection != nil:
		// DELETE /repos/{owner}/{repo}/branches/{branch}/protection
		return x.outcome(x.base+"/settings/branches", x.h.svc.Protection.Delete(ctx, x.repo, x.perm, uid, f.Get("branch")))
	case len(rest) == 1 && rest[0] == "rules" && x.h.svc.Rulesets != nil:
		// POST /repos/{owner}/{repo}/rulesets: a branch ruleset from the editor
		rs, err := x.h.svc.Rulesets.Create(ctx, x.repo, x.perm, uid, rulesetInput(f, nil))
		if err != nil {
			return x.outcome(x.base+"/settings/rules/new", err)
		}
		return x.outcome(x.base+"/settings/rules/"+strconv.FormatInt(rs.ID, 10), nil)
	case len(rest) == 2 && rest[0] == "rules" && x.h.svc.Rulesets != nil:
		// PUT /repos/{owner}/{repo}/rulesets/{ruleset_id}: the editor's
		// fields, or the enforcement alone
		id, err := strconv.ParseInt(rest[1], 10, 64)
		if err != nil {
			return x.notFound()
		}
		enf := f.Get("enforcement")
		in := rulesets.Input{Enforcement: &enf}
		if _, full := f["name"]; full {
			old, err := x.h.d.Store.R().RulesetByID(ctx, id)
			if err != nil || old.RepoID != x.repo.ID {
				return x.outcome(x.base+"/settings/rules", model.ErrNotFound)
			}
			in = rulesetInput(f, old)
		}
		_, err = x.h.svc.Rulesets.Update(ctx, x.repo, x.perm, uid, id, in)
		return x.outcome(x.base+"/settings/rules/"+rest[1], err)
	case len(rest) == 2 && rest[0] == "secrets" && rest[1] == "actions" && x.h.svc.Secrets != nil:
		// PUT /repos/{owner}/{repo}/actions/secrets/{secret_name}: the value
		// is sealed with the repository's public key, as a client seals it.
		return x.outcome(x.base+"/settings/secrets/actions", x.setSecret(f.Get("name"), f.Get("value")))
	case len(rest) == 4 && rest[0] == "secrets" && rest[1] == "actions" && rest[3] == "delete" && x.h.svc.Secrets != nil:
		// DELETE /repos/{owner}/{repo}/actions/secrets/{secret_name}
		return x.outcome(x.base+"/settings/secrets/actions", x.h.svc.Secrets.Delete(ctx, x.secretScope(), uid, rest[2]))
	case len(rest) == 2 && rest[0] == "variables" && rest[1] == "actions" && x.h.svc.Variables != nil:
		// POST /repos/{owner}/{repo}/actions/variables
		name, value := strings.TrimSpace(f.Get("name")), f.Get("value")
		_, err := x.h.svc.Variables.Create(ctx, x.variableScope(), uid, variables.Input{Name: &name, Value: &value})
		return x.outcome(x.base+"/settings/variables/actions", err)
	case len(rest) == 4 && rest[0] == "variables" && rest[1] == "actions" && rest[3] == "delete" && x.h.svc.Variables != nil:
		// DELETE /repos/{owner}/{repo}/actions/variables/{name}
		return x.outcome(x.base+"/settings/variables/actions", x.h.svc.Variables.Delete(ctx, x.variableScope(), uid, rest[2]))
	case len(rest) == 5 && rest[0] == "hooks" && rest[2] == "deliveries" && rest[4] == "redeliver" && x.h.svc.Hooks != nil:
		// POST /repos/{owner}/{repo}/hooks/{hook_id}/deliveries/{delivery_id}/attempts
		hid, err1 := strconv.ParseInt(rest[1], 10, 64)
		did, err2 := strconv.ParseInt(rest[3], 10, 64)
		if err1 != nil || err2 != nil {
			return x.notFound()
		}
		return x.outcome(x.base+"/settings/hooks/"+rest[1], x.h.svc.Hooks.Redeliver(ctx, hooks.Target{Repo: x.repo}, hid, did))
	}
	return x.notFound()
}

// teamGrant gives a team of the owning organization access to the
// repository, or takes it away, as the team repository operations do.
func (x *req) teamGrant(slug, permission string, remove bool) error {
	org := x.repo.Owner
	if org == nil || !org.IsOrg() {
		return model.ErrNotFound
	}
	ctx := x.r.Context()
	svc := x.h.svc.Teams
	if svc == nil {
		svc = teams.New(x.h.d.Store)
	}
	act, err := svc.ActorIn(ctx, org, user(x.r))
	if err != nil {
		return err
	}
	t, err := svc.Team(ctx, org, act, slug)
	if err != nil {
		return err
	}
	if remove {
		return svc.RemoveRepo(ctx, t, act, x.repo, x.perm)
	}
	g, err := svc.Grant(ctx, org.ID, permission)
	if err != nil {
		return err
	}
	return svc.AddRepo(ctx, t, act, x.repo, x.perm, g)
}

func (x *req) collaborators() *collaborators.Service {
	if x.h.svc.Collaborators != nil {
		return x.h.svc.Collaborators
	}
	return collaborators.New(x.h.d.Store)
}

// protectionInput reads the branch protection form: the common rules
// (required approvals, dismissing stale reviews, code owners' review,
// required status checks, including administrators).
func protectionInput(f url.Values) protection.UpdateInput {
	in := protection.UpdateInput{EnforceAdmins: f.Get("enforce_admins") == "on"}
	if f.Get("require_reviews") == "on" {
		n, _ := strconv.Atoi(f.Get("required_approvals"))
		stale, owners := f.Get("dismiss_stale") == "on", f.Get("code_owners") == "on"
		in.Reviews = &protection.ReviewsInput{RequiredApprovals: &n, DismissStaleReviews: &stale, RequireCodeOwnerReviews: &owners}
	}
	if f.Get("require_checks") == "on" {
		strict := f.Get("strict") == "on"
		contexts := []string{}
		for _, c := range strings.FieldsFunc(f.Get("contexts"), func(r rune) bool { return r == ',' || r == '\n' }) {
			if c = strings.TrimSpace(c); c != "" {
				contexts = append(contexts, c)
			}
		}
		in.StatusChecks = &protection.StatusChecksInput{Strict: &strict, Contexts: contexts}
	}
	return in
}

// keepLists carries an existing protection's push restrictions, dismissal
// restrictions and bypass allowances into in: the form edits the common
// rules only, and PUT .../protection replaces them all.
func (x *req) keepLists(in *protection.UpdateInput, branch string) error {
	ctx := x.r.Context()
	p, err := x.h.d.Store.R().BranchProtection(ctx, x.repo.ID, branch)
	if errors.Is(err, model.ErrNotFound) || (err == nil && p == nil) {
		return nil
	}
	if err != nil {
		return err
	}
	actors, err := x.h.svc.Protection.Actors(ctx, p)
	if err != nil {
		return err
	}
	names := func(a model.Allowed) *protection.Allowances {
		out := &protection.Allowances{Users: []string{}, Teams: []string{}, Apps: []string{}}
		for _, id := range a.Users {
			if u := actors.Users[id]; u != nil {
				out.Users = append(out.Users, u.Login)
			}
		}
		for _, id := range a.Teams {
			if t := actors.Teams[id]; t != nil {
				out.Teams = append(out.Teams, t.Slug)
			}
		}
		for _, id := range a.Apps {
			if ap := actors.Apps[id]; ap != nil {
				out.Apps = append(out.Apps, ap.Slug)
			}
		}
		return out
	}
	if p.Restricted {
		in.Restrictions = names(p.Push)
	}
	if in.Reviews != nil {
		if p.DismissalRestricted {
			in.Reviews.DismissalRestrictions = names(p.Dismiss)
		}
		if !p.Bypass.Empty() {
			in.Reviews.Bypass = names(p.Bypass)
		}
	}
	return nil
}
