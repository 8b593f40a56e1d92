package issues

import (
	"context"
	"errors"
	"strings"

	"github.com/hubd/hubd/internal/authz"
	"github.com/hubd/hubd/internal/model"
	"github.com/hubd/hubd/internal/store"
)

// A repository's labels (issues carry them by id).

// LabelInput is a label to create or the parts of one to change; nil
// parts are not set.
type LabelInput struct {
	Name, NewName, Color *string
	Description          *string
	DescriptionSet       bool // an edit sets Description (nil clears it)
}

// CreateLabel creates a label (GitHub's grey unless a colour of six hex
// digits is given) with its event.
func (a *Service) CreateLabel(ctx context.Context, x *Access, in LabelInput) (*model.Label, error) {
	l := &model.Label{RepoID: x.Repo.ID, Color: defaultColor}
	if in.Name != nil {
		l.Name = strings.TrimSpace(*in.Name)
	}
	if err := validLabelName(l.Name); err != nil {
		return nil, err
	}
	if in.Color != nil {
		if !colorRE.MatchString(*in.Color) {
			return nil, errColor(*in.Color)
		}
		l.Color = *in.Color
	}
	l.Description = in.Description
	if err := validDescription(l.Description); err != nil {
		return nil, err
	}
	err := a.d.Store.Tx(ctx, func(tx store.Q) error {
		if err := tx.CreateLabel(ctx, l); err != nil {
			return err
		}
		return tx.AppendEvent(ctx, "label.created", x.Caller.UserID(), x.Repo.ID, x.Org(), labelPayload(l))
	})
	if errors.Is(err, store.ErrDuplicate) {
		return nil, errLabelExists
	}
	if err != nil {
		return nil, err
	}
	return l, nil
}

// UpdateLabel changes the label called name, with its event.
func (a *Service) UpdateLabel(ctx context.Context, x *Access, name string, in LabelInput) (*model.Label, error) {
	var l *model.Label
	err := a.d.Store.Tx(ctx, func(tx store.Q) error {
		var err error
		if l, err = tx.LabelByName(ctx, x.Repo.ID, name); err != nil {
			return err
		}
		before := *l
		if in.NewName != nil {
			l.Name = strings.TrimSpace(*in.NewName)
			if err := validLabelName(l.Name); err != nil {
				return err
			}
		}
		if in.Color != nil {
			if !colorRE.MatchString(*in.Color) {
				return errColor(*in.Color)
			}
			l.Color = *in.Color
		}
		if in.DescriptionSet {
			l.Description = in.Description
		}
		if err := validDescription(l.Description); err != nil {
			return err
		}
		if err := tx.UpdateLabel(ctx, l); err != nil {
			return err
		}
		changes := map[string]any{}
		if before.Name != l.Name {
			changes["name"] = map[string]any{"from": before.Name}
		}
		if before.Color != l.Color {
			changes["color"] = map[string]any{"from": before.Color}
		}
		if !sameStr(before.Description, l.Description) {
			changes["description"] = map[string]any{"from": before.Description}
		}
		p := labelPayload(l)
		p["changes"] = changes
		return tx.AppendEvent(ctx, "label.edited", x.Caller.UserID(), x.Repo.ID, x.Org(), p)
	})
	if errors.Is(err, store.ErrDuplicate) {
		return nil, errLabelExists
	}
	if err != nil {
		return nil, err
	}
	return l, nil
}

// DeleteLabel deletes the label called name from the repository and every
// issue, with its event.
func (a *Service) DeleteLabel(ctx context.Context, x *Access, name string) error {
	return a.d.Store.Tx(ctx, func(tx store.Q) error {
		l, err := tx.LabelByName(ctx, x.Repo.ID, name)
		if err != nil {
			return err
		}
		if err := tx.DeleteLabel(ctx, l.ID); err != nil {
			return err
		}
		// The label webhook's "deleted" carries the label as it was.
		p := labelPayload(l)
		p["webhook"] = map[string]any{"label": a.d.URLs.ToLabel(x.Repo, l)}
		return tx.AppendEvent(ctx, "label.deleted", x.Caller.UserID(), x.Repo.ID, x.Org(), p)
	})
}

// errNoLabel answers removing a label the issue does not carry.
var errNoLabel = &model.HTTPError{Status: 404, Message: "Label does not exist"}

// AddLabels puts the labels called names on issue id of x's repository,
// creating unknown ones with GitHub's grey, as POST
// .../issues/{n}/labels does: triage access; labeled events.
func (a *Service) AddLabels(ctx context.Context, x *Access, id int64, names []string) error {
	return a.changeLabels(ctx, x, id, names, false)
}

// ReplaceLabels makes the labels called names exactly issue id's labels
// (none clears them), as PUT .../issues/{n}/labels does: triage access;
// unknown labels are created; labeled and unlabeled events.
func (a *Service) ReplaceLabels(ctx context.Context, x *Access, id int64, names []string) error {
	return a.changeLabels(ctx, x, id, names, true)
}

func (a *Service) changeLabels(ctx context.Context, x *Access, id int64, names []string, replace bool) error {
	if err := x.require(authz.Triage); err != nil {
		return err
	}
	actor := x.Caller.UserID()
	return a.onIssue(ctx, x, id, func(tx store.Q, is *model.Issue) (bool, error) {
		labels, err := ensureLabels(ctx, tx, x, actor, names)
		if err != nil {
			return false, err
		}
		if replace {
			return setLabels(ctx, tx, x, is, actor, labels)
		}
		changed := false
		for _, l := range labels {
			ok, err := label(ctx, tx, x, is, actor, l)
			if err != nil {
				return false, err
			}
			changed = changed || ok
		}
		return changed, nil
	})
}

// RemoveLabel takes the label called name (any case) off issue id, as
// DELETE .../issues/{n}/labels/{name} does: triage access; errNoLabel when
// the repository has no such label or the issue does not carry it.
func (a *Service) RemoveLabel(ctx context.Context, x *Access, id int64, name string) error {
	if err := x.require(authz.Triage); err != nil {
		return err
	}
	return a.onIssue(ctx, x, id, func(tx store.Q, is *model.Issue) (bool, error) {
		l, err := tx.LabelByName(ctx, x.Repo.ID, name)
		if errors.Is(err, model.ErrNotFound) {
			return false, errNoLabel
		}
		if err != nil {
			return false, err
		}
		ok, err := unlabel(ctx, tx, x, is, x.Caller.UserID(), l)
		if err == nil && !ok {
			err = errNoLabel
		}
		return ok, err
	})
}

// AddAssignees assigns the users called logins to issue id, as POST
// .../issues/{n}/assignees does: up to ten assignees in all; logins that
// may not be assigned, and the whole change without triage access, are
// silently ignored (the caller must still be able to participate).
func (a *Service) AddAssignees(ctx context.Context, x *Access, id int64, logins []string) error {
	return a.changeAssignees(ctx, x, id, logins, true)
}

// RemoveAssignees unassigns the users called logins from issue id, as
// DELETE .../issues/{n}/assignees does; without triage access nothing
// changes.
func (a *Service) RemoveAssignees(ctx context.Context, x *Access, id int64, logins []string) error {
	return a.changeAssignees(ctx, x, id, logins, false)
}

func (a *Service) changeAssignees(ctx context.Context, x *Access, id int64, list []string, add bool) error {
	if !x.Repo.HasIssues {
		return ErrDisabled
	}
	if err := x.MayWrite(); err != nil {
		return err
	}
	actor := x.Caller.UserID()
	return a.onIssue(ctx, x, id, func(tx store.Q, is *model.Issue) (bool, error) {
		if !x.Triage() || len(list) == 0 {
			return false, nil
		}
		cur, err := tx.IssueAssignees(ctx, is.ID)
		if err != nil {
			return false, err
		}
		changed := false
		if add {
			found, err := tx.AssignableByLogin(ctx, x.Repo.ID, list)
			if err != nil {
				return false, err
			}
			n := len(cur)
			for _, l := range list {
				u := found[strings.ToLower(l)]
				if u == nil || n >= MaxAssignees {
					continue
				}
				ok, err := assign(ctx, tx, x, is, actor, u)
				if err != nil {
					return false, err
				}
				if ok {
					n++
					changed = true
				}
			}
			return changed, nil
		}
		drop := map[string]bool{}
		for _, l := range list {
			drop[strings.ToLower(l)] = true
		}
		for _, u := range cur {
			if !drop[strings.ToLower(u.Login)] {
				continue
			}
			if _, err := unassign(ctx, tx, x, is, actor, u); err != nil {
				return false, err
			}
			changed = true
		}
		return changed, nil
	})
}

// onIssue runs change on issue id of x's repository in one transaction
// and touches the issue (updated_at) when change reports it changed.
func (a *Service) onIssue(ctx context.Context, x *Access, id int64, change func(tx store.Q, is *model.Issue) (bool, error)) error {
	return a.d.Store.Tx(ctx, func(tx store.Q) error {
		is, err := issueIn(ctx, tx, x, id)
		if err != nil {
			return err
		}
		changed, err := change(tx, is)
		if err != nil || !changed {
			return err
		}
		return tx.TouchIssue(ctx, is)
	})
}
