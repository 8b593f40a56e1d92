package graphql

import (
	"context"

	"github.com/hubd/hubd/internal/graphql/engine"
	"github.com/hubd/hubd/internal/model"
	"github.com/hubd/hubd/internal/store"
)

// registerPeople serves the lists gh reads for its prompts and for org
// list: a user's organizations, a repository's assignable users and its
// milestones.
func (a *API) registerPeople() {
	a.connectionTypes("OrganizationConnection", "OrganizationEdge")
	a.connectionTypes("MilestoneConnection", "MilestoneEdge")

	// A user's organizations: all of the viewer's own, others' public
	// memberships (as GET /user/orgs and /users/{u}/orgs).
	a.schema.Resolve("User", "organizations", engine.EachBatch(func(ctx context.Context, p any, b *engine.Batch) (any, error) {
		u := p.(*model.Account)
		w, err := pageWindow(b.Args, "organizations", engine.SelectsItems(b.Field.SelectionSet))
		if err != nil {
			return nil, err
		}
		public := from(ctx).caller.UserID() != u.ID
		q := a.d.Store.R()
		total := -1
		if w.needTotal {
			if _, total, err = q.OrgsOfUser(ctx, u.ID, public, 1, 0); err != nil {
				return nil, err
			}
		}
		start, end := w.bounds(total)
		list, n, err := q.OrgsOfUser(ctx, u.ID, public, max(end-start, 1), start)
		if err != nil {
			return nil, err
		}
		c := &connection{offset: start, total: n}
		if end > start {
			for _, o := range list {
				c.nodes = append(c.nodes, o)
			}
		}
		return c, nil
	}))
	// Mentionable users are the assignable ones: hubd's mention
	// autocompletion offers the users with push access, as assignees.
	for _, conn := range []string{"assignableUsers", "mentionableUsers"} {
		a.schema.Resolve("Repository", conn, engine.EachBatch(func(ctx context.Context, p any, b *engine.Batch) (any, error) {
			o := p.(*repoObj)
			w, err := pageWindow(b.Args, conn, engine.SelectsItems(b.Field.SelectionSet))
			if err != nil {
				return nil, err
			}
			q := a.d.Store.R()
			total := -1
			if w.needTotal {
				if _, total, err = q.ListAssignable(ctx, o.v.Repo.ID, 1, 0); err != nil {
					return nil, err
				}
			}
			start, end := w.bounds(total)
			list, n, err := q.ListAssignable(ctx, o.v.Repo.ID, max(end-start, 1), start)
			if err != nil {
				return nil, err
			}
			c := &connection{offset: start, total: n}
			if end > start {
				for _, u := range list {
					c.nodes = append(c.nodes, u)
				}
			}
			return c, nil
		}))
	}
	a.schema.Resolve("Repository", "milestones", engine.EachBatch(func(ctx context.Context, p any, b *engine.Batch) (any, error) {
		o := p.(*repoObj)
		w, err := pageWindow(b.Args, "milestones", engine.SelectsItems(b.Field.SelectionSet))
		if err != nil {
			return nil, err
		}
		f := store.MilestoneQuery{RepoID: o.v.Repo.ID, State: "all"}
		switch issueStates(b.Args["states"]) {
		case "open":
			f.State = "open"
		case "closed":
			f.State = "closed"
		}
		q := a.d.Store.R()
		total := -1
		if w.needTotal {
			f.Limit = 1
			if _, total, err = q.ListMilestones(ctx, f); err != nil {
				return nil, err
			}
		}
		start, end := w.bounds(total)
		f.Limit, f.Offset = max(end-start, 1), start
		list, n, err := q.ListMilestones(ctx, f)
		if err != nil {
			return nil, err
		}
		c := &connection{offset: start, total: n}
		if end > start {
			for _, m := range list {
				c.nodes = append(c.nodes, &milestoneObj{m: m, repo: o})
			}
		}
		return c, nil
	}))
}
