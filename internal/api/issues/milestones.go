package issues

import (
	"errors"
	"net/http"
	"strings"
	"time"

	"github.com/hubd/hubd/internal/authz"
	issuesvc "github.com/hubd/hubd/internal/issues"
	"github.com/hubd/hubd/internal/model"
	"github.com/hubd/hubd/internal/rest"
	"github.com/hubd/hubd/internal/store"
	"github.com/hubd/hubd/internal/wire"
)

// milestone loads the {milestone_number} milestone of the repository.
func (a *API) milestone(r *http.Request, x *access) (*model.Milestone, error) {
	n, err := pathInt(r, "milestone_number")
	if err != nil {
		return nil, err
	}
	return a.d.Store.R().MilestoneByNumber(r.Context(), x.Repo.ID, n)
}

// GET /repos/{owner}/{repo}/milestones: open ones by due date by default.
func (a *API) listMilestones(w http.ResponseWriter, r *http.Request) error {
	x, err := a.openRepo(r, authz.Read)
	if err != nil {
		return err
	}
	q := r.URL.Query()
	f := store.MilestoneQuery{RepoID: x.Repo.ID, State: q.Get("state"), Sort: q.Get("sort"), Desc: q.Get("direction") == "desc"}
	p := rest.ParsePage(r)
	f.Limit, f.Offset = p.Limit(), p.Offset()
	list, total, err := a.d.Store.R().ListMilestones(r.Context(), f)
	if err != nil {
		return err
	}
	wr := a.writer(r)
	out := make([]any, 0, len(list))
	for _, m := range list {
		out = append(out, wr.ToMilestone(x.Repo, m))
	}
	a.link(w, r, p, total)
	return rest.JSON(w, http.StatusOK, out)
}

type milestoneBody struct {
	Title       rest.Opt[string] `json:"title"`
	State       rest.Opt[string] `json:"state"`
	Description rest.Opt[string] `json:"description"`
	DueOn       rest.Opt[string] `json:"due_on"`
}

// apply validates the body's fields and sets them on m.
func (in *milestoneBody) apply(m *model.Milestone, now time.Time) error {
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

// POST /repos/{owner}/{repo}/milestones: write access.
func (a *API) createMilestone(w http.ResponseWriter, r *http.Request) error {
	x, err := a.openRepoWritable(r, authz.Write)
	if err != nil {
		return err
	}
	var in milestoneBody
	if err := rest.Decode(r, &in); err != nil {
		return err
	}
	if !in.Title.Set {
		return model.Invalid("Milestone", "title", "missing_field")
	}
	ctx := r.Context()
	m := &model.Milestone{RepoID: x.Repo.ID, State: "open", CreatorID: x.Caller.UserID()}
	if err := in.apply(m, a.d.Store.Now()); err != nil {
		return err
	}
	err = a.d.Store.Tx(ctx, func(tx store.Q) error {
		if err := tx.CreateMilestone(ctx, m); err != nil {
			return err
		}
		return tx.AppendEvent(ctx, "milestone.created", x.Caller.UserID(), x.Repo.ID, x.Org(), issuesvc.MilestonePayload(m, "created"))
	})
	if errors.Is(err, store.ErrDuplicate) {
		return issuesvc.ErrMilestoneExists
	}
	if err != nil {
		return err
	}
	m, err = a.d.Store.R().MilestoneByNumber(ctx, x.Repo.ID, m.Number)
	if err != nil {
		return err
	}
	w.Header().Set("Location", a.writer(r).ToMilestone(x.Repo, m).URL)
	return rest.JSON(w, http.StatusCreated, a.writer(r).ToMilestone(x.Repo, m))
}

// GET /repos/{owner}/{repo}/milestones/{milestone_number}
func (a *API) getMilestone(w http.ResponseWriter, r *http.Request) error {
	x, err := a.openRepo(r, authz.Read)
	if err != nil {
		return err
	}
	m, err := a.milestone(r, x)
	if err != nil {
		return err
	}
	return rest.JSON(w, http.StatusOK, a.writer(r).ToMilestone(x.Repo, m))
}

// PATCH /repos/{owner}/{repo}/milestones/{milestone_number}: write access.
func (a *API) updateMilestone(w http.ResponseWriter, r *http.Request) error {
	x, err := a.openRepoWritable(r, authz.Write)
	if err != nil {
		return err
	}
	var in milestoneBody
	if err := rest.Decode(r, &in); err != nil {
		return err
	}
	ctx := r.Context()
	n, err := pathInt(r, "milestone_number")
	if err != nil {
		return err
	}
	err = a.d.Store.Tx(ctx, func(tx store.Q) error {
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
		return tx.AppendEvent(ctx, "milestone."+action, x.Caller.UserID(), x.Repo.ID, x.Org(), issuesvc.MilestonePayload(m, action))
	})
	if errors.Is(err, store.ErrDuplicate) {
		return issuesvc.ErrMilestoneExists
	}
	if err != nil {
		return err
	}
	m, err := a.d.Store.R().MilestoneByNumber(ctx, x.Repo.ID, n)
	if err != nil {
		return err
	}
	return rest.JSON(w, http.StatusOK, a.writer(r).ToMilestone(x.Repo, m))
}

// DELETE /repos/{owner}/{repo}/milestones/{milestone_number}: write
// access; its issues are demilestoned.
func (a *API) deleteMilestone(w http.ResponseWriter, r *http.Request) error {
	x, err := a.openRepoWritable(r, authz.Write)
	if err != nil {
		return err
	}
	ctx := r.Context()
	n, err := pathInt(r, "milestone_number")
	if err != nil {
		return err
	}
	actor := x.Caller.UserID()
	err = a.d.Store.Tx(ctx, func(tx store.Q) error {
		m, err := tx.MilestoneByNumber(ctx, x.Repo.ID, n)
		if err != nil {
			return err
		}
		// The milestone webhook's "deleted" carries it as it was.
		p := issuesvc.MilestonePayload(m, "deleted")
		p["webhook"] = map[string]any{"milestone": a.d.URLs.NewIssueWriter(wire.BodyFormat{Raw: true}).ToMilestone(x.Repo, m)}
		list, _, err := tx.ListIssues(ctx, store.IssueQuery{RepoID: x.Repo.ID, State: "all", MilestoneID: m.ID, Limit: 1 << 30})
		if err != nil {
			return err
		}
		for _, is := range list {
			if err := issuesvc.Event(ctx, tx, x, is, model.IssueEvent{ActorID: actor, Event: "demilestoned", Milestone: m.Title}, nil); err != nil {
				return err
			}
		}
		if err := tx.DeleteMilestone(ctx, m.ID); err != nil {
			return err
		}
		return tx.AppendEvent(ctx, "milestone.deleted", actor, x.Repo.ID, x.Org(), p)
	})
	if err != nil {
		return err
	}
	return rest.NoContent(w)
}
