// Package transfers is the transfer service: a repository moving to
// another account (and name), and an issue moving to another repository of
// the same owner, with GitHub's rules for who may do it and what goes along.
// Both transports call it: REST's POST /repos/{owner}/{repo}/transfer and
// GraphQL's transferIssue. Repositories live on disk under their id, so a
// transfer changes rows only; the old names keep answering with redirects
// (repo_redirects, issue_redirects in the store).
package transfers

import (
	"context"
	"errors"
	"strings"
	"time"

	"github.com/hubd/hubd/internal/authz"
	"github.com/hubd/hubd/internal/model"
	"github.com/hubd/hubd/internal/names"
	"github.com/hubd/hubd/internal/store"
)

// Service is the transfer service.
type Service struct {
	Store *store.Store
}

// New makes the service.
func New(st *store.Store) *Service { return &Service{Store: st} }

// RepoInput is the body of POST /repos/{owner}/{repo}/transfer.
type RepoInput struct {
	NewOwner string
	NewName  string // "" keeps the name
	TeamIDs  []int64
}

// errOrgCreate is GitHub's 403 for an organization the caller may not
// create repositories in.
var errOrgCreate = model.Forbidden("You need admin access to the organization before adding a repository to it.")

func invalid(field, msg string) error { return model.Custom("Repository", field, msg) }

// OfferTTL is how long a repository offered to another user waits for
// them: GitHub's transfer email is good for one day.
const OfferTTL = 24 * time.Hour

// TransferRepo moves repo, which the caller administers (perm), to the
// account in.NewOwner, as GitHub does: at once to the caller's own account
// or to an organization where they may create a repository of repo's
// visibility; to another user's account as an offer that user accepts
// (Accept) within OfferTTL — GitHub asks by email, hubd lists the offers
// to the user (Offers). pending says the repository has not moved yet; it
// is answered as it is.
func (s *Service) TransferRepo(ctx context.Context, c *authz.Caller, repo *model.Repo, perm authz.Permission, in RepoInput) (moved *model.Repo, pending bool, err error) {
	if c == nil || c.User == nil {
		return nil, false, model.Forbidden("Resource not accessible by integration")
	}
	if perm < authz.Admin {
		return nil, false, authz.NeedPermission(authz.Admin)
	}
	if in.NewOwner == "" {
		return nil, false, &model.ValidationError{Errors: []model.FieldError{{Resource: "Repository", Field: "new_owner", Code: "missing_field"}}}
	}
	name := repo.Name
	if in.NewName != "" {
		n, err := names.NormalizeRepo(in.NewName)
		if err != nil {
			return nil, false, invalid("new_name", err.Error())
		}
		name = n
	}
	q := s.Store.R()
	owner, err := q.AccountByLogin(ctx, in.NewOwner)
	if errors.Is(err, model.ErrNotFound) || (err == nil && owner.Type != model.TypeUser && !owner.IsOrg()) {
		return nil, false, invalid("new_owner", "new_owner is invalid")
	}
	if err != nil {
		return nil, false, err
	}
	if owner.ID == repo.OwnerID {
		return nil, false, invalid("new_owner", "Repository is already owned by "+owner.Login)
	}
	if repo.ParentID != 0 && repo.Private() {
		return nil, false, invalid("new_owner", "Private forks can't be transferred")
	}
	visibility := visibilityFor(repo, owner)
	if owner.IsOrg() {
		m, err := q.Membership(ctx, owner.ID, c.User.ID)
		if errors.Is(err, model.ErrNotFound) || (err == nil && m.State != "active") {
			return nil, false, errOrgCreate
		}
		if err != nil {
			return nil, false, err
		}
		if m.Role != model.RoleAdmin && !owner.MemberMayCreate(visibility) {
			return nil, false, errOrgCreate
		}
	}
	scope := "public_repo"
	if repo.Private() {
		scope = "repo"
	}
	if !c.HasScope(scope) {
		return nil, false, model.Forbidden("Resource not accessible by personal access token")
	}
	teams, err := s.teams(ctx, owner, in.TeamIDs)
	if err != nil {
		return nil, false, err
	}
	if !owner.IsOrg() && owner.ID != c.User.ID {
		return repo, true, s.offer(ctx, c, repo, owner, name)
	}
	moved, err = s.move(ctx, c.User.ID, repo.ID, repo.OwnerID, owner, name, teams)
	return moved, false, err
}

// visibilityFor is the visibility repo has under owner: internal means
// "the enterprise's members", so a user's is private.
func visibilityFor(repo *model.Repo, owner *model.Account) model.Visibility {
	if !owner.IsOrg() && repo.Visibility == model.Internal {
		return model.Private
	}
	return repo.Visibility
}

// offer records repo offered to another user under name, after the checks
// the move will repeat (a name or a fork the user has refuses it now).
func (s *Service) offer(ctx context.Context, c *authz.Caller, repo *model.Repo, owner *model.Account, name string) error {
	return s.Store.Tx(ctx, func(tx store.Q) error {
		if err := clash(ctx, tx, repo, owner, name); err != nil {
			return err
		}
		return tx.OfferRepo(ctx, &model.RepoTransfer{RepoID: repo.ID, FromID: repo.OwnerID, ToID: owner.ID, RequesterID: c.User.ID,
			NewName: name, ExpiresAt: s.Store.Now().Add(OfferTTL)})
	})
}

// clash refuses a move of repo to owner under name when owner has a
// repository of that name or one of repo's fork network.
func clash(ctx context.Context, tx store.Q, repo *model.Repo, owner *model.Account, name string) error {
	root := repo.SourceID
	if root == 0 {
		root = repo.ID
	}
	if ok, err := tx.OwnsInNetwork(ctx, owner.ID, root, repo.ID); err != nil {
		return err
	} else if ok {
		return invalid("new_owner", owner.Login+" already has a repository in the "+repo.FullName()+" network")
	}
	if _, err := tx.RepoByName(ctx, owner.Login, name, 0); err == nil {
		return errNameTaken(owner, name)
	} else if !errors.Is(err, model.ErrNotFound) {
		return err
	}
	return nil
}

func errNameTaken(owner *model.Account, name string) error {
	return invalid("new_name", owner.Login+" already has a repository named "+name)
}

// move gives repository id, owned by fromID, to owner under name in one
// transaction with its event; teams of owner get read access.
func (s *Service) move(ctx context.Context, actorID, id, fromID int64, owner *model.Account, name string, teams []*model.Team) (*model.Repo, error) {
	var moved *model.Repo
	err := s.Store.Tx(ctx, func(tx store.Q) error {
		v, err := tx.RepoByID(ctx, id, 0)
		if err != nil {
			return err
		}
		moved = v.Repo
		if moved.OwnerID != fromID {
			return model.ErrNotFound // moved meanwhile
		}
		if err := clash(ctx, tx, moved, owner, name); err != nil {
			return err
		}
		from := moved.Owner
		oldName := moved.Name
		moved.Visibility = visibilityFor(moved, owner)
		moved.OwnerID, moved.Owner, moved.Name = owner.ID, owner, name
		if err := tx.MoveRepo(ctx, moved, from.ID, oldName); err != nil {
			return err
		}
		if !from.IsOrg() {
			// The original owner stays on as a collaborator.
			if err := tx.SetCollaborator(ctx, moved.ID, from.ID, authz.Admin); err != nil {
				return err
			}
		}
		for _, t := range teams {
			if err := tx.SetTeamRepo(ctx, t.ID, moved.ID, authz.Read); err != nil {
				return err
			}
		}
		fromKey := "user"
		if from.IsOrg() {
			fromKey = "organization"
		}
		p := map[string]any{"action": "transferred", "repository_id": moved.ID, "full_name": moved.FullName(),
			"old_full_name": from.Login + "/" + oldName,
			"changes": map[string]any{"owner": map[string]any{"from": map[string]any{
				fromKey: map[string]any{"id": from.ID, "login": from.Login, "type": string(from.Type)}}}}}
		return tx.AppendEvent(ctx, "repository.transferred", actorID, moved.ID, orgID(owner), p)
	})
	if errors.Is(err, store.ErrDuplicate) {
		return nil, errNameTaken(owner, name)
	}
	return moved, err
}

// Offers lists one page of the repositories offered to the caller that
// have not expired, and their count.
func (s *Service) Offers(ctx context.Context, c *authz.Caller, limit, offset int) ([]*model.RepoTransfer, int, error) {
	return s.Store.R().RepoTransfersTo(ctx, c.UserID(), s.Store.Now(), limit, offset)
}

// offerTo finds an offer made to the caller that has not expired.
func (s *Service) offerTo(ctx context.Context, c *authz.Caller, id int64) (*model.RepoTransfer, error) {
	t, err := s.Store.R().RepoTransferByID(ctx, id)
	if err != nil {
		return nil, err
	}
	if c.User == nil || t.ToID != c.User.ID || !s.Store.Now().Before(t.ExpiresAt) {
		return nil, model.ErrNotFound
	}
	return t, nil
}

// Accept completes an offer made to the caller: the repository moves to
// their account if it is still where it was offered from.
func (s *Service) Accept(ctx context.Context, c *authz.Caller, id int64) (*model.Repo, error) {
	t, err := s.offerTo(ctx, c, id)
	if err != nil {
		return nil, err
	}
	return s.move(ctx, c.User.ID, t.RepoID, t.FromID, c.User, t.NewName, nil)
}

// Decline refuses an offer made to the caller.
func (s *Service) Decline(ctx context.Context, c *authz.Caller, id int64) error {
	t, err := s.offerTo(ctx, c, id)
	if err != nil {
		return err
	}
	return s.Store.Tx(ctx, func(tx store.Q) error { return tx.DeleteRepoTransfer(ctx, t.ID) })
}

// teams resolves team_ids: teams of the organization the repository goes to.
func (s *Service) teams(ctx context.Context, owner *model.Account, ids []int64) ([]*model.Team, error) {
	if len(ids) == 0 {
		return nil, nil
	}
	if !owner.IsOrg() {
		return nil, invalid("team_ids", "Teams can only be added to organization-owned repositories")
	}
	out := make([]*model.Team, 0, len(ids))
	for _, id := range ids {
		t, err := s.Store.R().TeamByID(ctx, id)
		if errors.Is(err, model.ErrNotFound) || (err == nil && t.OrgID != owner.ID) {
			return nil, &model.ValidationError{Errors: []model.FieldError{{Resource: "Repository", Field: "team_ids", Code: "invalid", Value: id}}}
		}
		if err != nil {
			return nil, err
		}
		out = append(out, t)
	}
	return out, nil
}

func orgID(a *model.Account) int64 {
	if a != nil && a.IsOrg() {
		return a.ID
	}
	return 0
}

// IssueInput is a transferIssue: the issue as its repository's reader sees
// it, and the repository it goes to with the caller's permission there.
type IssueInput struct {
	Issue                 *model.Issue
	From                  *model.Repo
	FromPerm              authz.Permission
	To                    *model.Repo
	ToPerm                authz.Permission
	CreateLabelsIfMissing bool
}

// TransferIssue moves an issue to another repository of the same owner as
// GitHub does: the caller needs write access to both, an issue of a private
// repository may not go to a public one, pull requests stay. Comments,
// reactions and the timeline go along; assignees who may be assigned there
// stay; labels stay when the destination has one of the same name (or one
// is made, with createLabelsIfMissing), the milestone when it has one of
// the same title. The issue gets the next number there; its old number
// redirects; its timeline gets a transferred event and its notification
// threads follow it. The source records issues.transferred, the destination
// issues.opened.
func (s *Service) TransferIssue(ctx context.Context, c *authz.Caller, in IssueInput) (*model.Issue, error) {
	if c == nil || c.User == nil {
		return nil, model.Forbidden("Resource not accessible by integration")
	}
	is, from, to := in.Issue, in.From, in.To
	if is.IsPull {
		return nil, model.Unprocessable("Pull requests cannot be transferred.")
	}
	if in.FromPerm < authz.Write || in.ToPerm < authz.Write {
		return nil, model.Forbidden(c.User.Login + " does not have the correct permissions to execute `TransferIssue`")
	}
	if err := from.WriteRefusal(); err != nil {
		return nil, err
	}
	if err := to.WriteRefusal(); err != nil {
		return nil, err
	}
	switch {
	case from.ID == to.ID:
		return nil, model.Unprocessable("The issue is already in that repository.")
	case from.OwnerID != to.OwnerID:
		return nil, model.Unprocessable("Issues can only be transferred between repositories of the same owner.")
	case from.Visibility != model.Public && to.Visibility == model.Public:
		return nil, model.Unprocessable("Issues of a private repository cannot be transferred to a public repository.")
	case !to.HasIssues:
		return nil, model.Unprocessable("The repository has issues disabled.")
	}
	scope := "public_repo"
	if from.Private() || to.Private() {
		scope = "repo"
	}
	if !c.HasScope(scope) {
		return nil, model.Forbidden("Resource not accessible by personal access token")
	}
	q := s.Store.R()
	if err := q.IssueDetails(ctx, []*model.Issue{is}, false); err != nil {
		return nil, err
	}
	logins := make([]string, 0, len(is.Assignees))
	for _, a := range is.Assignees {
		logins = append(logins, a.Login)
	}
	assignable, err := q.AssignableByLogin(ctx, to.ID, logins)
	if err != nil {
		return nil, err
	}
	var drop []int64
	for _, a := range is.Assignees {
		if assignable[strings.ToLower(a.Login)] == nil {
			drop = append(drop, a.ID)
		}
	}
	oldNumber, oldRepo := is.Number, from.ID
	err = s.Store.Tx(ctx, func(tx store.Q) error {
		cur, err := tx.IssueByID(ctx, is.ID)
		if err != nil {
			return err
		}
		if cur.RepoID != oldRepo {
			return model.ErrNotFound // moved meanwhile
		}
		m := store.IssueMove{Issue: cur, ToRepoID: to.ID, DropAssignees: drop}
		if m.LabelIDs, err = s.labels(ctx, tx, to.ID, is.Labels, in.CreateLabelsIfMissing); err != nil {
			return err
		}
		if is.Milestone != nil {
			if m.MilestoneID, err = tx.MilestoneIDByTitle(ctx, to.ID, is.Milestone.Title); err != nil {
				return err
			}
		}
		if err := tx.MoveIssue(ctx, m); err != nil {
			return err
		}
		is = cur
		// The transferred event shows on the issue's timeline where it is
		// now; its domain event (issues.transferred, the webhook) goes to
		// the repository it left.
		// It records the repository the issue came from (GraphQL's
		// TransferredEvent.fromRepository).
		e := &model.IssueEvent{RepoID: to.ID, IssueID: is.ID, ActorID: c.User.ID, Event: "transferred", SubjectID: from.ID}
		if err := tx.AddIssueEventAs(ctx, e, from.ID, orgID(from.Owner), map[string]any{
			"action": "transferred", "number": oldNumber, "new_repository_id": to.ID, "new_number": is.Number}); err != nil {
			return err
		}
		// Notification threads follow the issue: subscribers keep theirs.
		if err := tx.MoveIssueThreads(ctx, from.ID, oldNumber, to.ID, is.Number, apiPath(from), apiPath(to)); err != nil {
			return err
		}
		return tx.AppendEvent(ctx, "issues.opened", c.User.ID, to.ID, orgID(to.Owner), map[string]any{
			"action": "opened", "issue_id": is.ID, "number": is.Number, "transferred_from": from.ID})
	})
	if err != nil {
		return nil, err
	}
	return is, nil
}

// apiPath is the "/repos/{owner}/{name}/" part of repo's API URLs.
func apiPath(r *model.Repo) string { return "/repos/" + r.FullName() + "/" }

// labels are the labels of the destination an issue keeps: those of the
// same name, and with create the missing ones made there.
func (s *Service) labels(ctx context.Context, tx store.Q, repoID int64, had []*model.Label, create bool) ([]int64, error) {
	if len(had) == 0 {
		return nil, nil
	}
	names := make([]string, len(had))
	for i, l := range had {
		names[i] = l.Name
	}
	there, err := tx.LabelsByName(ctx, repoID, names)
	if err != nil {
		return nil, err
	}
	var ids []int64
	for _, l := range had {
		if t := there[strings.ToLower(l.Name)]; t != nil {
			ids = append(ids, t.ID)
			continue
		}
		if !create {
			continue
		}
		nl := &model.Label{RepoID: repoID, Name: l.Name, Color: l.Color, Description: l.Description}
		if err := tx.CreateLabel(ctx, nl); err != nil {
			return nil, err
		}
		ids = append(ids, nl.ID)
	}
	return ids, nil
}
