package issues

import (
	"context"
	"errors"
	"strings"
	"time"

	"github.com/hubd/hubd/internal/model"
	"github.com/hubd/hubd/internal/rest"
	"github.com/hubd/hubd/internal/store"
	"github.com/hubd/hubd/internal/wire"
)

// A repository's milestones.

// MilestoneInput is a milestone to create or the parts of one to change
// (absent, null or a value each).
type MilestoneInput struct {
	Title, State, Description, DueOn rest.Opt[string]
}

// apply validates the input's fields and sets them on m.
func (in *MilestoneInput) apply(m *model.Milestone, now time.Time) error {
	if in.Title.Set {
		t := strings.TrimSpace(in.Title.Value)
		if in.Title.Null || t == "" {
			return model.Invalid("Milestone", "title", "missing_field")
		}
		m.Title = t
	}
	if s, ok := in.State.Get(); ok {
		if s != "open" && s != "closed" {
			return &model.ValidationError{Errors: []model.FieldError{{Resource: "Milestone", Field: "state", Code: "invalid", Value: s}}}
		}
		if s != m.State {
			m.State = s
			m.ClosedAt = nil
			if s == "closed" {
				m.ClosedAt = &now
			}
		}
	}
	if in.Description.Set {
		m.Description = nil
		if d, ok := in.Description.Get(); ok {
			m.Description = &d
		}
	}
	if in.DueOn.Set {
		m.DueOn = nil
		if d, ok := in.DueOn.Get(); ok && d != "" {
			t, err := time.Parse(time.RFC3339, d)
			if err != nil {
				if t, err = time.Parse("2006-01-02", d); err != nil {
					return &model.ValidationError{Errors: []model.FieldError{{Resource: "Milestone", Field: "due_on", Code: "invalid", Value: d}}}
				}
			}
			t = t.UTC().Truncate(time.Second)
			m.DueOn = &t
		}
	}
	return nil
}

// CreateMilestone creates a milestone (a title is required), with its event.
func (a *Service) CreateMilestone(ctx context.Context, x *Access, in MilestoneInput) (*model.Milestone, error) {
	if !in.Title.Set {
		return nil, model.Invalid("Milestone", "title", "missing_field")
	}
	m := &model.Milestone{RepoID: x.Repo.ID, State: "open", CreatorID: x.Caller.UserID()}
	if err := in.apply(m, a.d.Store.Now()); err != nil {
		return nil, err
	}
	err := a.d.Store.Tx(ctx, func(tx store.Q) error {
		if err := tx.CreateMilestone(ctx, m); err != nil {
			return err
		}
		return tx.AppendEvent(ctx, "milestone.created", x.Caller.UserID(), x.Repo.ID, x.Org(), milestonePayload(m, "created"))
	})
	if errors.Is(err, store.ErrDuplicate) {
		return nil, errMilestoneExists
	}
	if err != nil {
		return nil, err
	}
	return m, nil
}

// UpdateMilestone changes milestone number n, with its event (closed,
// opened or edited).
func (a *Service) UpdateMilestone(ctx context.Context, x *Access, n int64, in MilestoneInput) error {
	err := a.d.Store.Tx(ctx, func(tx store.Q) error {
		m, err := tx.MilestoneByNumber(ctx, x.Repo.ID, n)
		if err != nil {
			return err
		}
		before := *m
		if err := in.apply(m, tx.Now()); err != nil {
			return err
		}
		if err := tx.UpdateMilestone(ctx, m); err != nil {
			return err
		}
		action := "edited"
		if before.State != m.State {
			action = "closed"
			if m.State == "open" {
				action = "opened"
			}
		}
		return tx.AppendEvent(ctx, "milestone."+action, x.Caller.UserID(), x.Repo.ID, x.Org(), milestonePayload(m, action))
	})
	if errors.Is(err, store.ErrDuplicate) {
		return errMilestoneExists
	}
	return err
}

// DeleteMilestone deletes milestone number n; its issues are demilestoned.
func (a *Service) DeleteMilestone(ctx context.Context, x *Access, n int64) error {
	actor := x.Caller.UserID()
	return a.d.Store.Tx(ctx, func(tx store.Q) error {
		m, err := tx.MilestoneByNumber(ctx, x.Repo.ID, n)
		if err != nil {
			return err
		}
		// The milestone webhook's "deleted" carries it as it was.
		p := milestonePayload(m, "deleted")
		p["webhook"] = map[string]any{"milestone": a.d.URLs.NewIssueWriter(wire.BodyFormat{Raw: true}).ToMilestone(x.Repo, m)}
		list, _, err := tx.ListIssues(ctx, store.IssueQuery{RepoID: x.Repo.ID, State: "all", MilestoneID: m.ID, Limit: 1 << 30})
		if err != nil {
			return err
		}
		for _, is := range list {
			if err := event(ctx, tx, x, is, model.IssueEvent{ActorID: actor, Event: "demilestoned", Milestone: m.Title}, nil); err != nil {
				return err
			}
		}
		if err := tx.DeleteMilestone(ctx, m.ID); err != nil {
			return err
		}
		return tx.AppendEvent(ctx, "milestone.deleted", actor, x.Repo.ID, x.Org(), p)
	})
}

// milestonePayload is the domain payload of milestone events.
func milestonePayload(m *model.Milestone, action string) map[string]any {
	return map[string]any{"action": action, "milestone_id": m.ID, "number": m.Number, "title": m.Title}
}

// errMilestoneExists answers a title the repository's milestones already use.
var errMilestoneExists = model.Invalid("Milestone", "title", "already_exists")
