// Package variables is the domain of configuration variables: plain-text
// values kept at organization (visible to all, private or selected
// repositories), repository and environment level, for GitHub Actions and
// for coding agents, with GitHub's rules on names, sizes and counts. Jobs
// see them as the vars context (JobHook: environment over repository over
// organization). The REST adapter is internal/api/variables.
package variables

import (
	"context"
	"errors"
	"regexp"
	"sort"
	"strings"

	"github.com/hubd/hubd/internal/model"
	"github.com/hubd/hubd/internal/roles"
	"github.com/hubd/hubd/internal/store"
)

// GitHub's limits ("Limits for configuration variables").
const (
	MaxValue   = 48 << 10  // bytes of one value
	MaxPerRepo = 500       // variables of a repository
	MaxPerOrg  = 1000      // variables of an organization
	MaxPerEnv  = 100       // variables of an environment
	MaxForRun  = 256 << 10 // bytes of organization and repository values a run sees
)

// ManageOrgVariables is the organization permission (owners hold it,
// custom organization roles may grant it) that manages organization
// variables.
const ManageOrgVariables = "write_organization_actions_variables"

// Visibilities of organization variables.
const (
	VisibilityAll      = "all"
	VisibilityPrivate  = "private"
	VisibilitySelected = "selected"
)

// ErrExists is GitHub's 409 for a name already taken.
var ErrExists = model.Conflict("Already exists - Variable already exists")

// errNotSelected is GitHub's 409 for selected repositories of a variable
// whose visibility is not selected.
var errNotSelected = model.Conflict("Variable visibility must be set to 'selected' to manage selected repositories.")

// Service is the variables domain.
type Service struct {
	Store *store.Store
}

// New makes the service.
func New(s *store.Store) *Service { return &Service{Store: s} }

// Scope is where variables live: an organization (Org), a repository
// (Repo) or one of its environments (Repo and Env), for a Kind (actions
// or agents).
type Scope struct {
	Kind string
	Org  *model.Account
	Repo *model.Repo
	Env  *model.Environment
}

func (sc Scope) ids() (org, repo, env int64) {
	switch {
	case sc.Env != nil:
		return 0, sc.Repo.ID, sc.Env.ID
	case sc.Repo != nil:
		return 0, sc.Repo.ID, 0
	}
	return sc.Org.ID, 0, 0
}

func (sc Scope) limit() int {
	switch {
	case sc.Env != nil:
		return MaxPerEnv
	case sc.Repo != nil:
		return MaxPerRepo
	}
	return MaxPerOrg
}

// eventIDs are the repository and organization of a scope's events.
func (sc Scope) eventIDs() (repoID, orgID int64) {
	if sc.Repo != nil {
		repoID = sc.Repo.ID
		if sc.Repo.Owner != nil && sc.Repo.Owner.IsOrg() {
			orgID = sc.Repo.Owner.ID
		}
		return repoID, orgID
	}
	return 0, sc.Org.ID
}

var nameRE = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*$`)

// CleanName checks a variable name against GitHub's rules and returns it
// upper case (names are case-insensitive and stored upper case).
func CleanName(name string) (string, error) {
	if name == "" {
		return "", model.Invalid("Variable", "name", "missing_field")
	}
	if !nameRE.MatchString(name) {
		if name[0] >= '0' && name[0] <= '9' {
			return "", model.Unprocessable("Variable names must not start with a number.")
		}
		return "", model.Unprocessable("Variable names can only contain alphanumeric characters ([a-z], [A-Z], [0-9]) or underscores (_). Spaces are not allowed.")
	}
	up := strings.ToUpper(name)
	if strings.HasPrefix(up, "GITHUB_") {
		return "", model.Unprocessable("Variable names must not start with the GITHUB_ prefix.")
	}
	return up, nil
}

func checkValue(v string) error {
	if len(v) > MaxValue {
		return model.Unprocessable("Variable value is too large: the limit is 48 KB.")
	}
	return nil
}

// MayManageOrg answers for a user and an organization's variables:
// nothing for owners and holders of ManageOrgVariables, 404 outside the
// organization, 403 for other members.
func (s *Service) MayManageOrg(ctx context.Context, org, user *model.Account) error {
	a, err := roles.New(s.Store).ActorIn(ctx, org, user)
	if err != nil {
		return err
	}
	if a.Holds(ManageOrgVariables) {
		return nil
	}
	if !a.Member() {
		return model.ErrNotFound
	}
	return model.Forbidden("Must have admin rights to Organization.")
}

// List is one page of a scope's variables and their count.
func (s *Service) List(ctx context.Context, sc Scope, limit, offset int) ([]*model.Variable, int, error) {
	o, r, e := sc.ids()
	return s.Store.R().Variables(ctx, sc.Kind, o, r, e, limit, offset)
}

// Get is a scope's variable by name (any case).
func (s *Service) Get(ctx context.Context, sc Scope, name string) (*model.Variable, error) {
	o, r, e := sc.ids()
	return s.Store.R().Variable(ctx, sc.Kind, o, r, e, strings.ToUpper(name))
}

// SharedWith is one page of the organization variables a repository may
// use and their count.
func (s *Service) SharedWith(ctx context.Context, kind string, repo *model.Repo, limit, offset int) ([]*model.Variable, int, error) {
	if repo.Owner == nil || !repo.Owner.IsOrg() {
		return []*model.Variable{}, 0, nil
	}
	return s.Store.R().OrgVariablesFor(ctx, kind, repo.Owner.ID, repo.ID, repo.Private(), limit, offset)
}

// Input is a variable's fields for create and update (nil: unchanged).
type Input struct {
	Name, Value, Visibility *string
	// Repos are the selected repositories' ids (nil: unchanged).
	Repos *[]int64
}

// checkOrgFields validates an organization variable's visibility and
// selected repositories (which must belong to the organization).
func (s *Service) checkOrgFields(ctx context.Context, org *model.Account, visibility string, repos *[]int64) error {
	switch visibility {
	case VisibilityAll, VisibilityPrivate, VisibilitySelected:
	default:
		return model.Invalid("Variable", "visibility", "invalid")
	}
	if repos == nil {
		return nil
	}
	if visibility != VisibilitySelected && len(*repos) > 0 {
		return model.Unprocessable("Selected repositories can only be given when the visibility is 'selected'.")
	}
	return s.checkRepos(ctx, org, *repos)
}

// checkRepos refuses repository ids that are not the organization's.
func (s *Service) checkRepos(ctx context.Context, org *model.Account, ids []int64) error {
	if len(ids) == 0 {
		return nil
	}
	owners, err := s.Store.R().RepoOwners(ctx, ids)
	if err != nil {
		return err
	}
	for _, id := range ids {
		if owners[id] != org.ID {
			return model.Unprocessable("Repository " + itoa(id) + " is not a repository of " + org.Login + ".")
		}
	}
	return nil
}

// Create makes a variable in a scope.
func (s *Service) Create(ctx context.Context, sc Scope, actorID int64, in Input) (*model.Variable, error) {
	if in.Name == nil || in.Value == nil {
		return nil, model.Invalid("Variable", "name", "missing_field")
	}
	name, err := CleanName(*in.Name)
	if err != nil {
		return nil, err
	}
	if err := checkValue(*in.Value); err != nil {
		return nil, err
	}
	o, r, e := sc.ids()
	v := &model.Variable{Kind: sc.Kind, OrgID: o, RepoID: r, EnvironmentID: e, Name: name, Value: *in.Value}
	if sc.Org != nil {
		if in.Visibility == nil {
			return nil, model.Invalid("Variable", "visibility", "missing_field")
		}
		if err := s.checkOrgFields(ctx, sc.Org, *in.Visibility, in.Repos); err != nil {
			return nil, err
		}
		v.Visibility = *in.Visibility
	}
	err = s.Store.Tx(ctx, func(tx store.Q) error {
		_, n, err := tx.Variables(ctx, sc.Kind, o, r, e, 0, 0)
		if err != nil {
			return err
		}
		if n >= sc.limit() {
			return model.Unprocessable("Failed to add variable: the limit of " + itoa(int64(sc.limit())) + " variables is reached.")
		}
		if err := tx.CreateVariable(ctx, v); err != nil {
			return err
		}
		if in.Repos != nil && v.Visibility == VisibilitySelected {
			if err := tx.SetVariableRepos(ctx, v.ID, *in.Repos); err != nil {
				return err
			}
		}
		return s.event(ctx, tx, sc, actorID, "created", v)
	})
	if errors.Is(err, store.ErrDuplicate) {
		return nil, ErrExists
	}
	return v, err
}

// Update changes a variable's name, value, visibility or selected
// repositories.
func (s *Service) Update(ctx context.Context, sc Scope, actorID int64, name string, in Input) error {
	var newName string
	if in.Name != nil {
		var err error
		if newName, err = CleanName(*in.Name); err != nil {
			return err
		}
	}
	if in.Value != nil {
		if err := checkValue(*in.Value); err != nil {
			return err
		}
	}
	err := s.Store.Tx(ctx, func(tx store.Q) error {
		o, r, e := sc.ids()
		v, err := tx.Variable(ctx, sc.Kind, o, r, e, strings.ToUpper(name))
		if err != nil {
			return err
		}
		if newName != "" {
			v.Name = newName
		}
		if in.Value != nil {
			v.Value = *in.Value
		}
		if sc.Org != nil {
			if in.Visibility != nil {
				v.Visibility = *in.Visibility
			}
			if err := s.checkOrgFields(ctx, sc.Org, v.Visibility, in.Repos); err != nil {
				return err
			}
			switch {
			case v.Visibility != VisibilitySelected:
				err = tx.SetVariableRepos(ctx, v.ID, nil)
			case in.Repos != nil:
				err = tx.SetVariableRepos(ctx, v.ID, *in.Repos)
			}
			if err != nil {
				return err
			}
		}
		if err := tx.UpdateVariable(ctx, v); err != nil {
			return err
		}
		return s.event(ctx, tx, sc, actorID, "updated", v)
	})
	if errors.Is(err, store.ErrDuplicate) {
		return ErrExists
	}
	return err
}

// Delete removes a variable.
func (s *Service) Delete(ctx context.Context, sc Scope, actorID int64, name string) error {
	return s.Store.Tx(ctx, func(tx store.Q) error {
		o, r, e := sc.ids()
		v, err := tx.Variable(ctx, sc.Kind, o, r, e, strings.ToUpper(name))
		if err != nil {
			return err
		}
		if err := tx.DeleteVariable(ctx, v.ID); err != nil {
			return err
		}
		return s.event(ctx, tx, sc, actorID, "deleted", v)
	})
}

func (s *Service) event(ctx context.Context, tx store.Q, sc Scope, actorID int64, action string, v *model.Variable) error {
	repoID, orgID := sc.eventIDs()
	return tx.AppendEvent(ctx, "variable."+action, actorID, repoID, orgID, map[string]any{"kind": v.Kind, "name": v.Name,
		"environment_id": v.EnvironmentID, "variable_id": v.ID})
}

// SelectedRepos is one page of the ids of an organization variable's
// selected repositories and their count (409 unless it is selected).
func (s *Service) SelectedRepos(ctx context.Context, sc Scope, name string, limit, offset int) ([]int64, int, error) {
	v, err := s.Get(ctx, sc, name)
	if err != nil {
		return nil, 0, err
	}
	if v.Visibility != VisibilitySelected {
		return nil, 0, errNotSelected
	}
	return s.Store.R().VariableRepoIDs(ctx, v.ID, limit, offset)
}

// SetRepos replaces, adds (add) or removes (remove) selected
// repositories of an organization variable.
func (s *Service) SetRepos(ctx context.Context, sc Scope, actorID int64, name string, ids []int64, op string) error {
	if op != "remove" {
		if err := s.checkRepos(ctx, sc.Org, ids); err != nil {
			return err
		}
	}
	return s.Store.Tx(ctx, func(tx store.Q) error {
		v, err := tx.Variable(ctx, sc.Kind, sc.Org.ID, 0, 0, strings.ToUpper(name))
		if err != nil {
			return err
		}
		if v.Visibility != VisibilitySelected {
			return errNotSelected
		}
		for _, id := range ids {
			switch op {
			case "add":
				err = tx.AddVariableRepo(ctx, v.ID, id)
			case "remove":
				err = tx.RemoveVariableRepo(ctx, v.ID, id)
			}
			if err != nil {
				return err
			}
		}
		if op == "set" {
			if err := tx.SetVariableRepos(ctx, v.ID, ids); err != nil {
				return err
			}
		}
		return s.event(ctx, tx, sc, actorID, "repositories_"+op, v)
	})
}

// ForRun is the vars context of a job of a repository in an environment
// (envID 0: none): environment variables over repository variables over
// the organization's shared with it. Organization and repository values
// count against 256 KB, taken by name until the limit (GitHub's rule);
// the environment's come on top.
func (s *Service) ForRun(ctx context.Context, kind string, repo *model.Repo, envID int64) (map[string]string, error) {
	orgID := int64(0)
	if repo.Owner != nil && repo.Owner.IsOrg() {
		orgID = repo.Owner.ID
	}
	list, err := s.Store.R().RunVariables(ctx, kind, orgID, repo.ID, repo.Private(), envID)
	if err != nil {
		return nil, err
	}
	rank := func(v *model.Variable) int {
		switch {
		case v.EnvironmentID != 0:
			return 2
		case v.RepoID != 0:
			return 1
		}
		return 0
	}
	best := map[string]*model.Variable{}
	for _, v := range list {
		if cur := best[v.Name]; cur == nil || rank(v) > rank(cur) {
			best[v.Name] = v
		}
	}
	names := make([]string, 0, len(best))
	for n := range best {
		names = append(names, n)
	}
	sort.Strings(names)
	out := map[string]string{}
	size := 0
	for _, n := range names {
		v := best[n]
		if v.EnvironmentID == 0 {
			if size+len(v.Value) > MaxForRun {
				continue
			}
			size += len(v.Value)
		}
		out[n] = v.Value
	}
	return out, nil
}
