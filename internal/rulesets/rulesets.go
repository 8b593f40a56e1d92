// Package rulesets is the repository rules service: rulesets of a
// repository and of an organization (which apply to the organization's
// repositories their repository name condition selects), the rules that
// apply to a branch, and their enforcement on pushes, API ref writes and
// pull request merges. Rulesets target branches or tags by ref name
// patterns; active ones are enforced, evaluate and disabled ones are not;
// their bypass actors pass (always, or on pull request merges only).
// Settings hubd cannot enforce are refused with a 422 naming them, except
// required_signatures, which is stored and not enforced. Every change
// appends a repository_ruleset event and stores a version.
package rulesets

import (
	"context"
	"errors"
	"fmt"
	"regexp"
	"slices"
	"strings"

	"github.com/hubd/hubd/internal/authz"
	"github.com/hubd/hubd/internal/gitrepo"
	"github.com/hubd/hubd/internal/model"
	"github.com/hubd/hubd/internal/store"
)

// Service is the rulesets service.
type Service struct {
	Store *store.Store
	Git   *gitrepo.Manager
}

// New makes the service.
func New(st *store.Store, git *gitrepo.Manager) *Service { return &Service{Store: st, Git: git} }

// Actor is who reads or acts: the user (0 for none), the app of an app's
// token (0 for none) and, when the transport knows it, the permission on
// the repository (HasPerm); the service works it out from the user
// otherwise.
type Actor struct {
	UserID    int64
	AppID     int64
	DeployKey bool // a repository's deploy key (git over SSH)
	Perm      authz.Permission
	HasPerm   bool
}

// ActorOf is the actor of a caller whose permission on the repository is
// perm.
func ActorOf(c *authz.Caller, perm authz.Permission) Actor {
	return Actor{UserID: c.UserID(), AppID: c.AppID, Perm: perm, HasPerm: true}
}

// CallerActor is the actor of a caller whose permission the service works
// out (git pushes, API ref writes).
func CallerActor(c *authz.Caller) Actor {
	if c == nil {
		return Actor{}
	}
	return Actor{UserID: c.UserID(), AppID: c.AppID, DeployKey: c.DeployKeyID != 0}
}

// Input is a ruleset as a client sends it; nil fields are absent (PUT
// changes only the fields it gives).
type Input struct {
	Name          *string
	Target        *string
	Enforcement   *string
	Bypass        *[]model.BypassActor
	HasConditions bool
	Conditions    *model.RulesetConditions // with HasConditions: nil is null
	Rules         *[]model.RulesetRule
}

const resource = "Ruleset"

func invalid(field, msg string) error { return model.Custom(resource, field, msg) }

var errNotAdmin = model.Forbidden("Must have admin rights to Repository.")

func orgOf(repo *model.Repo) int64 {
	if repo.Owner != nil && repo.Owner.IsOrg() {
		return repo.Owner.ID
	}
	return 0
}

// ForRepo is every ruleset of a repository, with includeParents those of
// its organization that apply to it too (theirs first, then its own, each
// by id). It is the list GraphQL's Repository.rulesets pages over; a
// repository has few rulesets. Every reader of the repository sees them
// (the transport found it with the viewer's permission); what else the
// viewer sees of each is ShowsBypass and CanBypass.
func (s *Service) ForRepo(ctx context.Context, repo *model.Repo, includeParents bool, viewer Actor) ([]*model.Ruleset, error) {
	all, err := s.Store.R().RulesetsFor(ctx, repo.ID, s.parentOrg(repo, includeParents), false)
	if err != nil {
		return nil, err
	}
	parents, own := split(repo, all)
	return append(parents, own...), nil
}

// ShowsBypass reports whether a repository's caller with perm sees a
// ruleset's bypass actors: GitHub shows them to those who may change the
// ruleset, which at the repository are its admins for its own rulesets
// (an organization's are changed at the organization).
func ShowsBypass(repo *model.Repo, perm authz.Permission, r *model.Ruleset) bool {
	return perm >= authz.Admin && r.RepoID == repo.ID
}

func (s *Service) parentOrg(repo *model.Repo, includeParents bool) int64 {
	if !includeParents {
		return 0
	}
	return orgOf(repo)
}

// split separates the enterprise's and the organization's rulesets that
// apply to repo (the enterprise's first) from the repository's own.
func split(repo *model.Repo, all []*model.Ruleset) (parents, own []*model.Ruleset) {
	parents, own = []*model.Ruleset{}, []*model.Ruleset{}
	var org []*model.Ruleset
	for _, r := range all {
		switch {
		case r.RepoID == repo.ID:
			own = append(own, r)
		case parentApplies(r, repo) && r.SourceType == model.RulesetSourceEnterprise:
			parents = append(parents, r)
		case parentApplies(r, repo):
			org = append(org, r)
		}
	}
	return append(parents, org...), own
}

// parentApplies reports whether an organization's or the enterprise's
// ruleset applies to repo: the organization's to its repositories its
// repository name condition selects, the enterprise's to the repositories
// of the organizations its organization condition selects (none of
// repositories owned by users) that its repository name condition selects.
func parentApplies(r *model.Ruleset, repo *model.Repo) bool {
	switch r.SourceType {
	case model.RulesetSourceOrganization:
		return r.OrgID == orgOf(repo) && repoMatches(r.Conditions, repo.Name)
	case model.RulesetSourceEnterprise:
		return orgOf(repo) != 0 && orgMatches(r.Conditions, repo.Owner) && repoMatches(r.Conditions, repo.Name)
	}
	return false
}

// List is one page of ForRepo (the organization's that apply first, then
// the repository's own, paged in SQL), with the given targets only when
// targets is not empty, and the count.
func (s *Service) List(ctx context.Context, repo *model.Repo, includeParents bool, targets []string, limit, offset int) ([]*model.Ruleset, int, error) {
	q := s.Store.R()
	parents := []*model.Ruleset{}
	if org := s.parentOrg(repo, includeParents); org != 0 {
		// An organization's rulesets are matched against the repository's
		// name here, not in SQL: there are few of them.
		all, err := q.RulesetsFor(ctx, 0, org, false)
		if err != nil {
			return nil, 0, err
		}
		applying, _ := split(repo, all)
		for _, r := range applying {
			if len(targets) == 0 || slices.Contains(targets, r.Target) {
				parents = append(parents, r)
			}
		}
	}
	n := len(parents)
	out := []*model.Ruleset{}
	if offset < n {
		out = append(out, parents[offset:min(n, offset+limit)]...)
	}
	ownOffset := max(0, offset-n)
	own, total, err := q.RepoRulesets(ctx, repo.ID, targets, limit-len(out), ownOffset)
	if err != nil {
		return nil, 0, err
	}
	if len(out) < limit {
		out = append(out, own...)
	}
	return out, n + total, nil
}

// Get is one ruleset as the repository sees it: its own, or with
// includeParents one of its organization's that applies to it.
func (s *Service) Get(ctx context.Context, repo *model.Repo, id int64, includeParents bool) (*model.Ruleset, error) {
	r, err := s.Store.R().RulesetByID(ctx, id)
	if err != nil {
		return nil, err
	}
	switch {
	case r.RepoID == repo.ID:
		return r, nil
	case includeParents && parentApplies(r, repo):
		return r, nil
	}
	return nil, model.ErrNotFound
}

// Create makes a repository ruleset (admins only).
func (s *Service) Create(ctx context.Context, repo *model.Repo, perm authz.Permission, actorID int64, in Input) (*model.Ruleset, error) {
	if perm < authz.Admin {
		return nil, errNotAdmin
	}
	r := &model.Ruleset{SourceType: model.RulesetSourceRepository, RepoID: repo.ID, Target: model.RulesetTargetBranch,
		Bypass: []model.BypassActor{}, Rules: []model.RulesetRule{}}
	if err := s.apply(ctx, r, orgOf(repo), in, true); err != nil {
		return nil, err
	}
	if err := s.write(ctx, r, actorID, repo.ID, orgOf(repo), "created"); err != nil {
		return nil, err
	}
	return s.Store.R().RulesetByID(ctx, r.ID)
}

// Update changes a repository's own ruleset (admins only).
func (s *Service) Update(ctx context.Context, repo *model.Repo, perm authz.Permission, actorID, id int64, in Input) (*model.Ruleset, error) {
	if perm < authz.Admin {
		return nil, errNotAdmin
	}
	r, err := s.Get(ctx, repo, id, false)
	if err != nil {
		return nil, err
	}
	if err := s.apply(ctx, r, orgOf(repo), in, false); err != nil {
		return nil, err
	}
	if err := s.write(ctx, r, actorID, repo.ID, orgOf(repo), "edited"); err != nil {
		return nil, err
	}
	return s.Store.R().RulesetByID(ctx, r.ID)
}

// Delete removes a repository's own ruleset (admins only).
func (s *Service) Delete(ctx context.Context, repo *model.Repo, perm authz.Permission, actorID, id int64) error {
	if perm < authz.Admin {
		return errNotAdmin
	}
	r, err := s.Get(ctx, repo, id, false)
	if err != nil {
		return err
	}
	return s.remove(ctx, r, actorID, repo.ID, orgOf(repo))
}

// write creates (r.ID 0) or updates r, stores the version and appends the
// event, in one transaction.
func (s *Service) write(ctx context.Context, r *model.Ruleset, actorID, repoID, orgID int64, action string) error {
	return s.Store.Tx(ctx, func(tx store.Q) error {
		var err error
		if r.ID == 0 {
			err = tx.CreateRuleset(ctx, r)
		} else {
			err = tx.UpdateRuleset(ctx, r)
		}
		if errors.Is(err, store.ErrDuplicate) {
			return invalid("name", "Name must be unique")
		}
		if err != nil {
			return err
		}
		// The version's state names its source as reads do.
		fresh, err := tx.RulesetByID(ctx, r.ID)
		if err != nil {
			return err
		}
		if err := tx.AddRulesetVersion(ctx, fresh, actorID); err != nil {
			return err
		}
		return tx.AppendEvent(ctx, "repository_ruleset."+action, actorID, repoID, orgID,
			map[string]any{"action": action, "ruleset_id": r.ID, "name": r.Name})
	})
}

func (s *Service) remove(ctx context.Context, r *model.Ruleset, actorID, repoID, orgID int64) error {
	return s.Store.Tx(ctx, func(tx store.Q) error {
		if err := tx.DeleteRuleset(ctx, r.ID); err != nil {
			return err
		}
		// The repository_ruleset webhook's "deleted" carries the ruleset
		// as it was.
		return tx.AppendEvent(ctx, "repository_ruleset.deleted", actorID, repoID, orgID,
			map[string]any{"action": "deleted", "ruleset_id": r.ID, "name": r.Name, "webhook": map[string]any{"ruleset_row": r}})
	})
}

// History is one page of a ruleset's versions, newest first, and their
// count (r as Get or OrgGet found it).
func (s *Service) History(ctx context.Context, r *model.Ruleset, limit, offset int) ([]*model.RulesetVersion, int, error) {
	return s.Store.R().RulesetVersions(ctx, r.ID, limit, offset)
}

// Version is one version of a ruleset with its state.
func (s *Service) Version(ctx context.Context, r *model.Ruleset, versionID int64) (*model.RulesetVersion, error) {
	return s.Store.R().RulesetVersion(ctx, r.ID, versionID)
}

// apply validates in and writes it over r (creating: name and enforcement
// are required). orgID is the organization whose teams and owners bypass
// actors may name (0: none).
func (s *Service) apply(ctx context.Context, r *model.Ruleset, orgID int64, in Input, creating bool) error {
	if in.Name != nil || creating {
		if in.Name == nil || strings.TrimSpace(*in.Name) == "" {
			return model.Invalid(resource, "name", "missing_field")
		}
		r.Name = strings.TrimSpace(*in.Name)
	}
	if in.Target != nil {
		switch *in.Target {
		case model.RulesetTargetBranch, model.RulesetTargetTag, model.RulesetTargetPush:
			r.Target = *in.Target
		case "repository":
			return invalid("target", "target "+*in.Target+" is not supported: hubd enforces branch, tag and push rulesets only")
		default:
			return model.Invalid(resource, "target", "invalid")
		}
	}
	if in.Enforcement != nil || creating {
		if in.Enforcement == nil {
			return model.Invalid(resource, "enforcement", "missing_field")
		}
		switch *in.Enforcement {
		case model.EnforcementActive, model.EnforcementEvaluate, model.EnforcementDisabled:
			r.Enforcement = *in.Enforcement
		default:
			return model.Invalid(resource, "enforcement", "invalid")
		}
	}
	if in.HasConditions {
		if err := validConditions(in.Conditions, r.SourceType); err != nil {
			return err
		}
		r.Conditions = in.Conditions
	}
	if in.Rules != nil {
		r.Rules = *in.Rules
	}
	// Rules, conditions and bypass actors are checked against the final
	// target.
	if r.Target == model.RulesetTargetPush && r.Conditions != nil && r.Conditions.RefName != nil &&
		len(r.Conditions.RefName.Include)+len(r.Conditions.RefName.Exclude) > 0 {
		return invalid("conditions", "ref_name does not apply to push rulesets: they apply to every ref of the repositories they select")
	}
	if err := validRules(r.Rules, r.Target); err != nil {
		return err
	}
	if in.Bypass != nil {
		list, err := s.validBypass(ctx, *in.Bypass, r.Target, orgID, r.SourceType)
		if err != nil {
			return err
		}
		r.Bypass = list
	} else if r.Target != model.RulesetTargetBranch {
		for _, b := range r.Bypass {
			if b.Mode == model.BypassPullRequest {
				return invalid("bypass_actors", "bypass_mode pull_request applies to branch rulesets only")
			}
		}
	}
	return nil
}

func validConditions(c *model.RulesetConditions, source string) error {
	if c == nil {
		return nil
	}
	if c.RepositoryName != nil && source == model.RulesetSourceRepository {
		return invalid("conditions", "repository_name applies to organization and enterprise rulesets only")
	}
	if (c.OrganizationName != nil || c.OrganizationIDs != nil) && source != model.RulesetSourceEnterprise {
		return invalid("conditions", "organization_name and organization_id apply to enterprise rulesets only")
	}
	if c.OrganizationName != nil && c.OrganizationIDs != nil {
		return invalid("conditions", "give organization_name or organization_id, not both")
	}
	for _, p := range []*model.NamePatterns{c.RefName, c.RepositoryName, c.OrganizationName} {
		if p == nil {
			continue
		}
		for _, pat := range append(slices.Clone(p.Include), p.Exclude...) {
			if strings.TrimSpace(pat) == "" {
				return invalid("conditions", "patterns must not be empty")
			}
			if _, err := compileGlob(pat); err != nil {
				return invalid("conditions", fmt.Sprintf("invalid pattern %q", pat))
			}
		}
	}
	return nil
}

// enforceable are the rule types hubd accepts, with the targets they
// apply to.
var enforceable = map[string][]string{
	model.RuleCreation:                 {model.RulesetTargetBranch, model.RulesetTargetTag},
	model.RuleUpdate:                   {model.RulesetTargetBranch, model.RulesetTargetTag},
	model.RuleDeletion:                 {model.RulesetTargetBranch, model.RulesetTargetTag},
	model.RuleRequiredLinearHistory:    {model.RulesetTargetBranch},
	model.RuleRequiredSignatures:       {model.RulesetTargetBranch, model.RulesetTargetTag},
	model.RulePullRequest:              {model.RulesetTargetBranch},
	model.RuleRequiredStatusChecks:     {model.RulesetTargetBranch},
	model.RuleNonFastForward:           {model.RulesetTargetBranch, model.RulesetTargetTag},
	model.RuleCommitMessagePattern:     {model.RulesetTargetBranch, model.RulesetTargetTag},
	model.RuleCommitAuthorEmailPattern: {model.RulesetTargetBranch, model.RulesetTargetTag},
	model.RuleCommitterEmailPattern:    {model.RulesetTargetBranch, model.RulesetTargetTag},
	model.RuleBranchNamePattern:        {model.RulesetTargetBranch},
	model.RuleTagNamePattern:           {model.RulesetTargetTag},

	model.RuleFilePathRestriction:      {model.RulesetTargetPush},
	model.RuleMaxFilePathLength:        {model.RulesetTargetPush},
	model.RuleFileExtensionRestriction: {model.RulesetTargetPush},
	model.RuleMaxFileSize:              {model.RulesetTargetPush},
}

// MaxApprovals is the most approving reviews a pull_request rule may
// require.
const MaxApprovals = 10

var allMergeMethods = []string{"merge", "squash", "rebase"}

func validRules(rules []model.RulesetRule, target string) error {
	seen := map[string]bool{}
	for _, r := range rules {
		field := "rules." + r.Type
		targets, ok := enforceable[r.Type]
		if !ok {
			return invalid("rules", "rule "+r.Type+" is not supported: hubd does not enforce it")
		}
		if !slices.Contains(targets, target) {
			return invalid("rules", "rule "+r.Type+" does not apply to "+target+" rulesets")
		}
		if seen[r.Type] {
			return invalid("rules", "rule "+r.Type+" is given more than once")
		}
		seen[r.Type] = true
		switch r.Type {
		case model.RulePullRequest:
			p := r.PullRequest
			if p == nil {
				return model.Invalid(resource, field, "missing_field")
			}
			if p.RequiredApprovals < 0 || p.RequiredApprovals > MaxApprovals {
				return invalid(field, fmt.Sprintf("required_approving_review_count must be between 0 and %d", MaxApprovals))
			}
			for name, on := range map[string]bool{"require_last_push_approval": p.RequireLastPushApproval, "required_review_thread_resolution": p.RequiredReviewThreadResolution} {
				if on {
					return invalid(field, name+" is not supported: hubd does not enforce it")
				}
			}
			if p.AllowedMergeMethods != nil {
				for _, m := range allMergeMethods {
					if !slices.Contains(p.AllowedMergeMethods, m) {
						return invalid(field, "allowed_merge_methods must allow merge, squash and rebase: hubd does not restrict merge methods by rule")
					}
				}
			}
		case model.RuleRequiredStatusChecks:
			c := r.StatusChecks
			if c == nil {
				return model.Invalid(resource, field, "missing_field")
			}
			for _, check := range c.Checks {
				if strings.TrimSpace(check.Context) == "" {
					return invalid(field, "a required status check needs a context")
				}
				if check.IntegrationID != 0 {
					return invalid(field, "integration_id is not supported: hubd matches required checks by name")
				}
			}
		case model.RuleCommitMessagePattern, model.RuleCommitAuthorEmailPattern, model.RuleCommitterEmailPattern,
			model.RuleBranchNamePattern, model.RuleTagNamePattern:
			p := r.Pattern
			if p == nil {
				return model.Invalid(resource, field, "missing_field")
			}
			switch p.Operator {
			case "starts_with", "ends_with", "contains":
			case "regex":
				if _, err := regexp.Compile(p.Pattern); err != nil {
					return invalid(field, "invalid regular expression: "+err.Error())
				}
			default:
				return model.Invalid(resource, field+".operator", "invalid")
			}
		case model.RuleFilePathRestriction, model.RuleFileExtensionRestriction:
			if r.Restricted == nil {
				return model.Invalid(resource, field+".parameters", "missing_field")
			}
			for _, x := range r.Restricted {
				if strings.TrimSpace(strings.Trim(x, "*./")) == "" {
					return invalid(field, fmt.Sprintf("%q is not a file path or extension", x))
				}
				if r.Type == model.RuleFilePathRestriction {
					if _, err := compileGlob(x); err != nil {
						return invalid(field, fmt.Sprintf("invalid pattern %q", x))
					}
				}
			}
		case model.RuleMaxFilePathLength:
			if r.Max < 1 || r.Max > model.MaxFilePathLengthLimit {
				return invalid(field, fmt.Sprintf("max_file_path_length must be between 1 and %d", model.MaxFilePathLengthLimit))
			}
		case model.RuleMaxFileSize:
			if r.Max < 1 || r.Max > model.MaxFileSizeLimit {
				return invalid(field, fmt.Sprintf("max_file_size must be between 1 and %d", model.MaxFileSizeLimit))
			}
		}
	}
	return nil
}

// Repository role ids of bypass actors (GitHub's): maintain, write, admin.
var repoRoleIDs = map[int64]authz.Permission{2: authz.Maintain, 4: authz.Write, 5: authz.Admin}

func (s *Service) validBypass(ctx context.Context, list []model.BypassActor, target string, orgID int64, source string) ([]model.BypassActor, error) {
	enterprise := source == model.RulesetSourceEnterprise
	q := s.Store.R()
	out := []model.BypassActor{}
	for _, b := range list {
		if b.Mode == "" {
			b.Mode = model.BypassAlways
		}
		switch b.Mode {
		case model.BypassAlways, model.BypassExempt:
		case model.BypassPullRequest:
			if target != model.RulesetTargetBranch {
				return nil, invalid("bypass_actors", "bypass_mode pull_request applies to branch rulesets only")
			}
			if b.ActorType == model.BypassDeployKey {
				return nil, invalid("bypass_actors", "bypass_mode pull_request does not apply to deploy keys")
			}
		default:
			return nil, model.Invalid(resource, "bypass_actors.bypass_mode", "invalid")
		}
		switch b.ActorType {
		case model.BypassEnterpriseOwner:
			if !enterprise && orgID == 0 {
				return nil, invalid("bypass_actors", "EnterpriseOwner does not apply to repositories owned by a user")
			}
			b.ActorID = 0
		case model.BypassOrganizationAdmin, model.BypassDeployKey:
			if b.ActorType == model.BypassOrganizationAdmin && orgID == 0 && !enterprise {
				return nil, invalid("bypass_actors", "OrganizationAdmin does not apply to repositories owned by a user")
			}
			b.ActorID = 0
		case model.BypassRepositoryRole:
			if _, ok := repoRoleIDs[b.ActorID]; !ok {
				return nil, invalid("bypass_actors", fmt.Sprintf("repository role %d is not a role hubd knows (2 maintain, 4 write, 5 admin)", b.ActorID))
			}
		case model.BypassTeam:
			t, err := q.TeamByID(ctx, b.ActorID)
			if errors.Is(err, model.ErrNotFound) || err == nil && (orgID == 0 || t.OrgID != orgID) {
				return nil, invalid("bypass_actors", fmt.Sprintf("team %d does not exist in the organization", b.ActorID))
			}
			if err != nil {
				return nil, err
			}
		case model.BypassUser:
			if _, err := q.AccountByID(ctx, b.ActorID); errors.Is(err, model.ErrNotFound) {
				return nil, invalid("bypass_actors", fmt.Sprintf("user %d does not exist", b.ActorID))
			} else if err != nil {
				return nil, err
			}
		case model.BypassIntegration:
			if b.ActorID <= 0 {
				return nil, model.Invalid(resource, "bypass_actors.actor_id", "missing_field")
			}
		default:
			return nil, invalid("bypass_actors", "actor_type "+b.ActorType+" is not supported")
		}
		if !slices.ContainsFunc(out, func(o model.BypassActor) bool { return o.ActorType == b.ActorType && o.ActorID == b.ActorID }) {
			out = append(out, b)
		}
	}
	return out, nil
}
