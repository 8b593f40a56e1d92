package issues

import (
	"context"
	"errors"
	"strings"

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
	l := &model.Label{RepoID: x.Repo.ID, Color: DefaultColor}
	if in.Name != nil {
		l.Name = strings.TrimSpace(*in.Name)
	}
	if err := ValidLabelName(l.Name); err != nil {
		return nil, err
	}
	if in.Color != nil {
		if !ColorRE.MatchString(*in.Color) {
			return nil, ErrColor(*in.Color)
		}
		l.Color = *in.Color
	}
	l.Description = in.Description
	if err := ValidDescription(l.Description); err != nil {
		return nil, err
	}
	err := a.d.Store.Tx(ctx, func(tx store.Q) error {
		if err := tx.CreateLabel(ctx, l); err != nil {
			return err
		}
		return tx.AppendEvent(ctx, "label.created", x.Caller.UserID(), x.Repo.ID, x.Org(), LabelPayload(l))
	})
	if errors.Is(err, store.ErrDuplicate) {
		return nil, ErrLabelExists
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
			if err := ValidLabelName(l.Name); err != nil {
				return err
			}
		}
		if in.Color != nil {
			if !ColorRE.MatchString(*in.Color) {
				return ErrColor(*in.Color)
			}
			l.Color = *in.Color
		}
		if in.DescriptionSet {
			l.Description = in.Description
		}
		if err := ValidDescription(l.Description); err != nil {
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
		if !SameStr(before.Description, l.Description) {
			changes["description"] = map[string]any{"from": before.Description}
		}
		p := LabelPayload(l)
		p["changes"] = changes
		return tx.AppendEvent(ctx, "label.edited", x.Caller.UserID(), x.Repo.ID, x.Org(), p)
	})
	if errors.Is(err, store.ErrDuplicate) {
		return nil, ErrLabelExists
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
		p := LabelPayload(l)
		p["webhook"] = map[string]any{"label": a.d.URLs.ToLabel(x.Repo, l)}
		return tx.AppendEvent(ctx, "label.deleted", x.Caller.UserID(), x.Repo.ID, x.Org(), p)
	})
}
