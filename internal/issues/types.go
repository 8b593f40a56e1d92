package issues

import (
	"context"
	"errors"
	"strings"

	"github.com/hubd/hubd/internal/authz"
	"github.com/hubd/hubd/internal/deps"
	"github.com/hubd/hubd/internal/model"
	"github.com/hubd/hubd/internal/store"
)

// Issue types: an organization's administrators define them
// (/orgs/{org}/issue-types), its repositories offer the enabled ones, and
// triagers set an issue's type (REST's type, GraphQL's
// updateIssueIssueType and createIssue's issueTypeId).

// MaxIssueTypes is GitHub's limit of issue types per organization.
const MaxIssueTypes = 25

// IssueTypeColors are the colors an issue type may have.
var IssueTypeColors = map[string]bool{"gray": true, "blue": true, "green": true, "yellow": true, "orange": true,
	"red": true, "pink": true, "purple": true}

// TypeInput is an issue type to create, or the whole of one to store.
type TypeInput struct {
	Name        string
	Description *string
	Color       *string
	Enabled     bool
}

// orgRole is the caller's active role in org ("" for none).
func (a *Service) orgRole(ctx context.Context, q store.Q, c *authz.Caller, org *model.Account) (model.OrgRole, error) {
	if c == nil || c.User == nil {
		return "", nil
	}
	m, err := q.Membership(ctx, org.ID, c.User.ID)
	if errors.Is(err, model.ErrNotFound) || err == nil && m.State != store.StateActive {
		return "", nil
	}
	if err != nil {
		return "", err
	}
	return m.Role, nil
}

// OrgIssueTypes lists an organization's issue types to its members (others
// do not find them).
func (a *Service) OrgIssueTypes(ctx context.Context, c *authz.Caller, org *model.Account) ([]*model.IssueType, error) {
	q := a.d.Store.R()
	role, err := a.orgRole(ctx, q, c, org)
	if err != nil {
		return nil, err
	}
	if role == "" && !c.SiteAdmin() {
		return nil, model.ErrNotFound
	}
	if err := deps.RequireScope(c, "read:org"); err != nil {
		return nil, err
	}
	return q.IssueTypes(ctx, org.ID, false)
}

// RepoIssueTypes is the issue types a repository offers: its organization's
// enabled ones (a user's repository has none).
func (a *Service) RepoIssueTypes(ctx context.Context, repo *model.Repo) ([]*model.IssueType, error) {
	if repo.Owner == nil || !repo.Owner.IsOrg() {
		return nil, nil
	}
	return a.d.Store.R().IssueTypes(ctx, repo.Owner.ID, true)
}

func (in *TypeInput) check() error {
	in.Name = strings.TrimSpace(in.Name)
	if in.Name == "" {
		return model.UnprocessableReasons("Name can't be blank")
	}
	if len(in.Name) > 255 {
		return model.UnprocessableReasons("Name is too long (maximum is 255 characters)")
	}
	if in.Color != nil && !IssueTypeColors[*in.Color] {
		return model.UnprocessableReasons("Color is not included in the list")
	}
	return nil
}

// admin answers whether the caller administers org (404 for those who do
// not belong to it, 403 for members).
func (a *Service) admin(ctx context.Context, q store.Q, c *authz.Caller, org *model.Account) error {
	role, err := a.orgRole(ctx, q, c, org)
	if err != nil {
		return err
	}
	switch role {
	case model.RoleAdmin:
		// A classic token needs admin:org (other tokens have their
		// organization_administration permission checked by route).
		return deps.RequireScope(c, "admin:org")
	case "":
		return model.ErrNotFound
	}
	return model.Forbidden("You must be an organization owner to manage issue types.")
}

func typePayload(t *model.IssueType, action string) map[string]any {
	return map[string]any{"action": action, "issue_type_id": t.ID, "name": t.Name}
}

// CreateIssueType adds an issue type to org (its owners).
func (a *Service) CreateIssueType(ctx context.Context, c *authz.Caller, org *model.Account, in TypeInput) (*model.IssueType, error) {
	if err := in.check(); err != nil {
		return nil, err
	}
	t := &model.IssueType{OrgID: org.ID, Name: in.Name, Description: in.Description, Color: in.Color, Enabled: in.Enabled}
	err := a.d.Store.Tx(ctx, func(tx store.Q) error {
		if err := a.admin(ctx, tx, c, org); err != nil {
			return err
		}
		list, err := tx.IssueTypes(ctx, org.ID, false)
		if err != nil {
			return err
		}
		if len(list) >= MaxIssueTypes {
			return model.Unprocessable("An organization cannot have more than 25 issue types.")
		}
		if err := tx.CreateIssueType(ctx, t); err != nil {
			if errors.Is(err, store.ErrDuplicate) {
				return model.UnprocessableReasons("Name has already been taken")
			}
			return err
		}
		return tx.AppendEvent(ctx, "issue_type.created", c.UserID(), 0, org.ID, typePayload(t, "created"))
	})
	return t, err
}

// UpdateIssueType replaces issue type id of org with in (its owners).
func (a *Service) UpdateIssueType(ctx context.Context, c *authz.Caller, org *model.Account, id int64, in TypeInput) (*model.IssueType, error) {
	if err := in.check(); err != nil {
		return nil, err
	}
	var t *model.IssueType
	err := a.d.Store.Tx(ctx, func(tx store.Q) error {
		if err := a.admin(ctx, tx, c, org); err != nil {
			return err
		}
		var err error
		if t, err = tx.IssueTypeByID(ctx, id); err != nil {
			return err
		}
		if t.OrgID != org.ID {
			return model.ErrNotFound
		}
		t.Name, t.Description, t.Color, t.Enabled = in.Name, in.Description, in.Color, in.Enabled
		if err := tx.UpdateIssueType(ctx, t); err != nil {
			if errors.Is(err, store.ErrDuplicate) {
				return model.UnprocessableReasons("Name has already been taken")
			}
			return err
		}
		return tx.AppendEvent(ctx, "issue_type.updated", c.UserID(), 0, org.ID, typePayload(t, "updated"))
	})
	return t, err
}

// DeleteIssueType deletes issue type id of org (its owners); its issues
// lose their type.
func (a *Service) DeleteIssueType(ctx context.Context, c *authz.Caller, org *model.Account, id int64) error {
	return a.d.Store.Tx(ctx, func(tx store.Q) error {
		if err := a.admin(ctx, tx, c, org); err != nil {
			return err
		}
		t, err := tx.IssueTypeByID(ctx, id)
		if err != nil {
			return err
		}
		if t.OrgID != org.ID {
			return model.ErrNotFound
		}
		if err := tx.DeleteIssueType(ctx, id); err != nil {
			return err
		}
		return tx.AppendEvent(ctx, "issue_type.deleted", c.UserID(), 0, org.ID, typePayload(t, "deleted"))
	})
}

// ResolveIssueType finds the repository's enabled issue type by name
// (REST's type); nil name or "" is no type.
func (a *Service) ResolveIssueType(ctx context.Context, repo *model.Repo, name string) (*model.IssueType, error) {
	if name == "" {
		return nil, nil
	}
	bad := &model.ValidationError{Errors: []model.FieldError{{Resource: "Issue", Field: "type", Code: "invalid", Value: name}}}
	if repo.Owner == nil || !repo.Owner.IsOrg() {
		return nil, bad
	}
	t, err := a.d.Store.R().IssueTypeByName(ctx, repo.Owner.ID, name)
	if errors.Is(err, model.ErrNotFound) || err == nil && !t.Enabled {
		return nil, bad
	}
	return t, err
}

// SetType gives issue is the type t (nil: none) with the issue's
// typed/untyped event: triage access, a type the repository offers.
func (a *Service) SetType(ctx context.Context, c *authz.Caller, repo *model.Repo, perm authz.Permission, is *model.Issue, t *model.IssueType) error {
	x, err := a.AccessTo(c, repo, perm, authz.Triage)
	if err != nil {
		return err
	}
	if is.IsPull {
		return model.Unprocessable("Pull requests cannot have an issue type.")
	}
	if t != nil && (repo.Owner == nil || t.OrgID != repo.Owner.ID || !t.Enabled) {
		return model.ErrNotFound
	}
	return a.d.Store.Tx(ctx, func(tx store.Q) error {
		return setType(ctx, tx, x, is, t)
	})
}

// setType is SetType inside a transaction (also opening an issue with a
// type).
func setType(ctx context.Context, tx store.Q, x *Access, is *model.Issue, t *model.IssueType) error {
	cur, err := tx.IssueTypesOf(ctx, []int64{is.ID})
	if err != nil {
		return err
	}
	old := cur[is.ID]
	var newID, oldID int64
	if t != nil {
		newID = t.ID
	}
	if old != nil {
		oldID = old.ID
	}
	if newID == oldID {
		return nil
	}
	if err := tx.SetIssueType(ctx, is.ID, newID); err != nil {
		return err
	}
	ev, action, details := "issue_type_added", "typed", map[string]any{}
	switch {
	case t == nil:
		ev, action = "issue_type_removed", "untyped"
		details["issue_type"] = old.Name
	case old != nil:
		ev = "issue_type_changed"
		details["issue_type"], details["prev_issue_type"] = t.Name, old.Name
	default:
		details["issue_type"] = t.Name
	}
	if err := event(ctx, tx, x, is, model.IssueEvent{ActorID: x.Caller.UserID(), Event: ev}, details); err != nil {
		return err
	}
	p := issuePayload(is, action)
	if t != nil {
		p["issue_type_id"] = t.ID
	} else {
		p["issue_type_id"] = old.ID
	}
	return tx.AppendEvent(ctx, "issues."+action, x.Caller.UserID(), x.Repo.ID, x.Org(), p)
}
