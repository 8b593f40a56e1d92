package protection

import (
	"context"
	"errors"
	"slices"
	"strings"

	"github.com/hubd/hubd/internal/authz"
	"github.com/hubd/hubd/internal/codeowners"
	"github.com/hubd/hubd/internal/model"
)

// Actors loads who p's lists name (three queries whatever their number).
func (s *Service) Actors(ctx context.Context, p *model.BranchProtection) (*model.ProtectionActors, error) {
	var users, teams, apps []int64
	for _, a := range []model.Allowed{p.Push, p.Dismiss, p.Bypass} {
		users, teams, apps = append(users, a.Users...), append(teams, a.Teams...), append(apps, a.Apps...)
	}
	q := s.Store.R()
	out := &model.ProtectionActors{Users: map[int64]*model.Account{}, Teams: map[int64]*model.Team{}, Apps: map[int64]*model.App{}}
	var err error
	if len(users) > 0 {
		if out.Users, err = q.AccountsByID(ctx, users); err != nil {
			return nil, err
		}
	}
	if len(teams) > 0 {
		if out.Teams, err = q.TeamsByID(ctx, teams); err != nil {
			return nil, err
		}
	}
	if len(apps) > 0 {
		if out.Apps, err = q.AppsByID(ctx, apps); err != nil {
			return nil, err
		}
		owners := make([]int64, 0, len(out.Apps))
		for _, a := range out.Apps {
			owners = append(owners, a.OwnerID)
		}
		accounts, err := q.AccountsByID(ctx, owners)
		if err != nil {
			return nil, err
		}
		for _, a := range out.Apps {
			a.Owner = accounts[a.OwnerID]
		}
	}
	return out, nil
}

// orgOnly is GitHub's 422 for user and team lists on a repository a user
// owns.
func orgOnly(repo *model.Repo, what string) error {
	if repo.Owner != nil && repo.Owner.IsOrg() {
		return nil
	}
	return model.Unprocessable("Only organization repositories can have " + what)
}

// resolve turns the logins, team slugs and app slugs of a list into ids:
// users need write access to the repository, teams belong to its
// organization with write access, apps exist. field names the list in the
// 422.
func (s *Service) resolve(ctx context.Context, repo *model.Repo, in *Allowances, field string) (model.Allowed, error) {
	var out model.Allowed
	if in == nil {
		return out, nil
	}
	q := s.Store.R()
	invalid := func(kind, name string) error {
		return &model.ValidationError{Errors: []model.FieldError{{Resource: "ProtectedBranch", Field: field, Code: "invalid",
			Message: kind + " " + name + " could not be found or does not have push access to this repository"}}}
	}
	for _, login := range in.Users {
		u, err := q.AccountByLogin(ctx, login)
		if errors.Is(err, model.ErrNotFound) || (err == nil && u.Type != model.TypeUser) {
			return out, invalid("User", login)
		}
		if err != nil {
			return out, err
		}
		perm, err := codeowners.UserPerm(ctx, s.Store, repo, u.ID)
		if err != nil {
			return out, err
		}
		if perm < authz.Write {
			return out, invalid("User", login)
		}
		if !slices.Contains(out.Users, u.ID) {
			out.Users = append(out.Users, u.ID)
		}
	}
	for _, slug := range in.Teams {
		if repo.Owner == nil || !repo.Owner.IsOrg() {
			return out, invalid("Team", slug)
		}
		t, err := q.TeamBySlug(ctx, repo.Owner.ID, strings.ToLower(slug))
		if errors.Is(err, model.ErrNotFound) {
			return out, invalid("Team", slug)
		}
		if err != nil {
			return out, err
		}
		perm, err := q.TeamRepo(ctx, t.ID, repo.ID)
		if err != nil && !errors.Is(err, model.ErrNotFound) {
			return out, err
		}
		if perm < authz.Write {
			return out, invalid("Team", slug)
		}
		if !slices.Contains(out.Teams, t.ID) {
			out.Teams = append(out.Teams, t.ID)
		}
	}
	for _, slug := range in.Apps {
		app, err := q.AppBySlug(ctx, slug)
		if errors.Is(err, model.ErrNotFound) {
			return out, invalid("App", slug)
		}
		if err != nil {
			return out, err
		}
		if !slices.Contains(out.Apps, app.ID) {
			out.Apps = append(out.Apps, app.ID)
		}
	}
	return out, nil
}

// Who is someone acting on a protected branch: a user (and their own
// permission) or an app's installation.
type Who struct {
	UserID int64
	AppID  int64
	Perm   authz.Permission
}

// names reports whether a list names who: the user, a team they belong
// to, or the app.
func (s *Service) names(ctx context.Context, a model.Allowed, who Who) (bool, error) {
	if who.AppID != 0 && slices.Contains(a.Apps, who.AppID) {
		return true, nil
	}
	if who.UserID == 0 {
		return false, nil
	}
	if slices.Contains(a.Users, who.UserID) {
		return true, nil
	}
	for _, t := range a.Teams {
		_, err := s.Store.R().TeamMember(ctx, t, who.UserID)
		if err == nil {
			return true, nil
		}
		if !errors.Is(err, model.ErrNotFound) {
			return false, err
		}
	}
	return false, nil
}

// MayPush reports whether who may move branch (a push, a ref update
// through the API or a merge): true unless the branch's protection
// restricts pushes to others. Administrators pass unless enforce_admins.
func (s *Service) MayPush(ctx context.Context, repo *model.Repo, branch string, who Who) (bool, error) {
	p, err := s.Store.R().BranchProtection(ctx, repo.ID, branch)
	if err != nil || p == nil || !p.Restricted {
		return true, err
	}
	return s.mayPush(ctx, p, who)
}

func (s *Service) mayPush(ctx context.Context, p *model.BranchProtection, who Who) (bool, error) {
	if !p.Restricted || (who.Perm >= authz.Admin && !p.EnforceAdmins) {
		return true, nil
	}
	return s.names(ctx, p.Push, who)
}

// ErrPushRestricted is the refusal of a merge or an API ref update by
// someone the branch's push restrictions leave out.
var ErrPushRestricted = &model.HTTPError{Status: 405, Message: "You're not authorized to push to this branch. Visit https://docs.github.com/articles/about-protected-branches/ for more information."}

// MayDismiss refuses the dismissal of a review on a pull request into
// branch by someone its dismissal restrictions leave out (admins and, when
// not restricted, anyone with write access pass; the caller checks that).
func (s *Service) MayDismiss(ctx context.Context, repo *model.Repo, branch string, who Who) error {
	p, err := s.Store.R().BranchProtection(ctx, repo.ID, branch)
	if err != nil || p == nil || !p.Reviews || !p.DismissalRestricted || who.Perm >= authz.Admin {
		return err
	}
	ok, err := s.names(ctx, p.Dismiss, who)
	if err != nil || ok {
		return err
	}
	return model.Forbidden("You are not authorized to dismiss this review. Only users with explicit access can dismiss reviews on this protected branch.")
}

var errNoRestrictions = &model.HTTPError{Status: 404, Message: "Push restrictions not enabled"}

// MaxRestricted is how many users, teams and apps push restrictions may
// name in all.
const MaxRestricted = 100

// Restrictions is a branch's push restrictions.
func (s *Service) Restrictions(ctx context.Context, repo *model.Repo, perm authz.Permission, branch string) (*model.BranchProtection, error) {
	p, err := s.Get(ctx, repo, perm, branch)
	if err != nil {
		return nil, err
	}
	if !p.Restricted {
		return nil, errNoRestrictions
	}
	return p, nil
}

// RemoveRestrictions lets everyone with write access push again.
func (s *Service) RemoveRestrictions(ctx context.Context, repo *model.Repo, perm authz.Permission, actorID int64, branch string) error {
	_, err := s.edit(ctx, repo, perm, actorID, branch, func(p *model.BranchProtection) error {
		p.Restricted, p.Push = false, model.Allowed{}
		return nil
	})
	return err
}

// EditRestrictions changes one list of the push restrictions: kind is
// "users", "teams" or "apps", op "add", "set" or "remove". 422 when the
// branch has no push restrictions, or for users and teams on a repository
// a user owns.
func (s *Service) EditRestrictions(ctx context.Context, repo *model.Repo, perm authz.Permission, actorID int64, branch, kind, op string, names []string) (*model.BranchProtection, error) {
	if err := needAdmin(perm); err != nil {
		return nil, err
	}
	if kind != "apps" {
		if err := orgOnly(repo, "users and team restrictions"); err != nil {
			return nil, err
		}
	}
	var ids []int64
	if op == "remove" {
		var err error
		if ids, err = s.known(ctx, repo, kind, names); err != nil {
			return nil, err
		}
	} else {
		in := &Allowances{}
		switch kind {
		case "users":
			in.Users = names
		case "teams":
			in.Teams = names
		default:
			in.Apps = names
		}
		a, err := s.resolve(ctx, repo, in, kind)
		if err != nil {
			return nil, err
		}
		ids = slices.Concat(a.Users, a.Teams, a.Apps)
	}
	return s.edit(ctx, repo, perm, actorID, branch, func(p *model.BranchProtection) error {
		if !p.Restricted {
			return model.Unprocessable("Push restrictions not enabled")
		}
		list := &p.Push.Users
		switch kind {
		case "teams":
			list = &p.Push.Teams
		case "apps":
			list = &p.Push.Apps
		}
		switch op {
		case "set":
			*list = nil
			fallthrough
		case "add":
			for _, id := range ids {
				if !slices.Contains(*list, id) {
					*list = append(*list, id)
				}
			}
		case "remove":
			*list = slices.DeleteFunc(*list, func(id int64) bool { return slices.Contains(ids, id) })
		}
		if len(p.Push.Users)+len(p.Push.Teams)+len(p.Push.Apps) > MaxRestricted {
			return model.Unprocessable("Validation Failed: the list of users, apps, and teams in total is limited to 100 items.")
		}
		return nil
	})
}

// known are the ids of the users, teams or apps named that exist (a
// removal ignores the others).
func (s *Service) known(ctx context.Context, repo *model.Repo, kind string, names []string) ([]int64, error) {
	q := s.Store.R()
	var out []int64
	for _, n := range names {
		var id int64
		var err error
		switch kind {
		case "users":
			var u *model.Account
			if u, err = q.AccountByLogin(ctx, n); err == nil {
				id = u.ID
			}
		case "teams":
			var t *model.Team
			if t, err = q.TeamBySlug(ctx, repo.Owner.ID, strings.ToLower(n)); err == nil {
				id = t.ID
			}
		default:
			var a *model.App
			if a, err = q.AppBySlug(ctx, n); err == nil {
				id = a.ID
			}
		}
		if errors.Is(err, model.ErrNotFound) {
			continue
		}
		if err != nil {
			return nil, err
		}
		out = append(out, id)
	}
	return out, nil
}

// RestrictedRef is the first of refs (full names) that a user (or an app's
// installation) may not move because of a branch's push restrictions; ""
// when they may move them all.
func (s *Service) RestrictedRef(ctx context.Context, repo *model.Repo, userID, appID int64, refs []string) (string, error) {
	var branches []string
	for _, ref := range refs {
		if b, ok := strings.CutPrefix(ref, "refs/heads/"); ok {
			branches = append(branches, b)
		}
	}
	if len(branches) == 0 {
		return "", nil
	}
	prot, err := s.Store.R().BranchProtections(ctx, repo.ID, branches)
	if err != nil {
		return "", err
	}
	perm := authz.None
	known := false
	for _, b := range branches {
		p := prot[b]
		if p == nil || !p.Restricted {
			continue
		}
		if !known {
			if perm, err = s.userPerm(ctx, repo, userID); err != nil {
				return "", err
			}
			known = true
		}
		ok, err := s.mayPush(ctx, p, Who{UserID: userID, AppID: appID, Perm: perm})
		if err != nil {
			return "", err
		}
		if !ok {
			return "refs/heads/" + b, nil
		}
	}
	return "", nil
}

// PushRestrictedMessage is what a push refused by push restrictions shows
// (git prints each line after "remote: "), as GitHub's GH006.
func PushRestrictedMessage(ref string) string {
	return "error: GH006: Protected branch update failed for " + ref + ".\n" +
		"error: You're not authorized to push to this branch. Visit https://docs.github.com/articles/about-protected-branches/ for more information."
}

// CheckRefWrite refuses an API write that moves ref (the git refs API,
// the contents API) when the branch's push restrictions leave the writer
// out: GitHub's words at status (422 for the refs API, 409 for contents).
func (s *Service) CheckRefWrite(ctx context.Context, repo *model.Repo, userID, appID int64, ref string, status int) error {
	refused, err := s.RestrictedRef(ctx, repo, userID, appID, []string{ref})
	if err != nil || refused == "" {
		return err
	}
	return &model.HTTPError{Status: status, Message: "Protected branch update failed for " + refused + ". You're not authorized to push to this branch."}
}
