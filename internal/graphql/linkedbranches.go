package graphql

import (
	"context"
	"errors"
	"strings"

	"github.com/hubd/hubd/internal/graphql/engine"
	"github.com/hubd/hubd/internal/model"
	"github.com/hubd/hubd/internal/refs"
	"github.com/hubd/hubd/internal/wire"
)

// Branches linked to issues (gh issue develop): Issue.linkedBranches, the
// LinkedBranch type and the createLinkedBranch and deleteLinkedBranch
// mutations, run by the ref service (internal/refs), which also creates
// branches for REST's git refs.

// linkedObj is a linked branch whose repository the viewer may see.
type linkedObj struct {
	lb   *model.LinkedBranch
	repo *repoObj // the branch's repository
}

// linkedPayload is the payload of the linked branch mutations.
type linkedPayload struct {
	clientMutationID any
	issue            any
	linked           *linkedObj
}

func (a *API) registerLinkedBranches(svc *refs.Service) {
	a.registerCreateRef(svc)
	a.connectionTypes("LinkedBranchConnection", "LinkedBranchEdge")
	a.schema.Resolve("Issue", "linkedBranches", a.linkedBranches)
	a.field("LinkedBranch", "id", func(_ context.Context, p any, _ map[string]any) (any, error) {
		return wire.NodeID("LB", p.(*linkedObj).lb.ID), nil
	})
	a.field("LinkedBranch", "ref", func(_ context.Context, p any, _ map[string]any) (any, error) {
		o := p.(*linkedObj)
		return &refObj{repo: o.repo, name: strings.TrimPrefix(o.lb.Ref, "refs/heads/")}, nil
	})

	a.field("Mutation", "createLinkedBranch", func(ctx context.Context, _ any, args map[string]any) (any, error) {
		in, _ := args["input"].(map[string]any)
		id, _ := in["issueId"].(string)
		o, err := a.issueOnly(ctx, id)
		if err != nil {
			return nil, err
		}
		target := o.repo
		if rid, _ := in["repositoryId"].(string); rid != "" {
			if target, err = a.repoByNodeID(ctx, rid); err != nil {
				return nil, err
			}
		}
		name, _ := in["name"].(string)
		oid, _ := in["oid"].(string)
		lb, err := svc.Link(ctx, from(ctx).caller, o.is, target.v.Repo, target.perm, name, oid)
		if err != nil {
			if name == "" {
				name = refs.BranchName(o.is)
			}
			return nil, refError(err, "refs/heads/"+name, oid)
		}
		return &linkedPayload{clientMutationID: in["clientMutationId"], issue: o, linked: &linkedObj{lb: lb, repo: target}}, nil
	})
	a.field("Mutation", "deleteLinkedBranch", func(ctx context.Context, _ any, args map[string]any) (any, error) {
		in, _ := args["input"].(map[string]any)
		id, _ := in["linkedBranchId"].(string)
		o, err := a.linkedByNodeID(ctx, id)
		if err != nil {
			return nil, err
		}
		issues, err := a.issuesAndPullsByID(ctx, []int64{o.lb.IssueID})
		if err != nil {
			return nil, err
		}
		is := issues[o.lb.IssueID]
		if is == nil {
			return nil, notFound("Could not resolve to a node with the global id of '%s'", id)
		}
		if err := writeTarget(ctx, is.repo); err != nil {
			return nil, err
		}
		if err := svc.Unlink(ctx, from(ctx).caller, o.lb, is.repo.v.Repo, is.repo.perm); err != nil {
			return nil, gqlError(err)
		}
		return &linkedPayload{clientMutationID: in["clientMutationId"], issue: is}, nil
	})
	for _, typ := range []string{"CreateLinkedBranchPayload", "DeleteLinkedBranchPayload"} {
		a.field(typ, "clientMutationId", func(_ context.Context, p any, _ map[string]any) (any, error) {
			return p.(*linkedPayload).clientMutationID, nil
		})
		a.field(typ, "issue", func(_ context.Context, p any, _ map[string]any) (any, error) { return p.(*linkedPayload).issue, nil })
	}
	a.field("CreateLinkedBranchPayload", "linkedBranch", func(_ context.Context, p any, _ map[string]any) (any, error) {
		return p.(*linkedPayload).linked, nil
	})
}

// refError is the GraphQL error of a refused ref creation: GitHub's words
// for a name taken and an object missing.
func refError(err error, name, oid string) error {
	switch {
	case errors.Is(err, refs.ErrExists):
		return engine.Errorf("UNPROCESSABLE", "A ref named \"%s\" already exists in the repository.", name)
	case errors.Is(err, refs.ErrNoObject):
		return engine.Errorf("UNPROCESSABLE", "Could not resolve to a commit with the oid '%s'.", oid)
	}
	return gqlError(err)
}

// registerCreateRef registers createRef (the REST git refs' twin).
func (a *API) registerCreateRef(svc *refs.Service) {
	a.field("Mutation", "createRef", func(ctx context.Context, _ any, args map[string]any) (any, error) {
		in, _ := args["input"].(map[string]any)
		id, _ := in["repositoryId"].(string)
		repo, err := a.repoByNodeID(ctx, id)
		if err != nil {
			return nil, err
		}
		name, _ := in["name"].(string)
		oid, _ := in["oid"].(string)
		info, err := svc.CreateFor(ctx, from(ctx).caller, repo.v.Repo, repo.perm, "CreateRef", name, oid)
		if err != nil {
			return nil, refError(err, name, oid)
		}
		ns, short, _ := strings.Cut(strings.TrimPrefix(name, "refs/"), "/")
		return &refPayload{clientMutationID: in["clientMutationId"], ref: &refObj{repo: repo, name: short, prefix: "refs/" + ns + "/", oid: info.OID}}, nil
	})
	a.field("CreateRefPayload", "clientMutationId", func(_ context.Context, p any, _ map[string]any) (any, error) {
		return p.(*refPayload).clientMutationID, nil
	})
	a.field("CreateRefPayload", "ref", func(_ context.Context, p any, _ map[string]any) (any, error) { return p.(*refPayload).ref, nil })
}

// refPayload is createRef's payload.
type refPayload struct {
	clientMutationID any
	ref              *refObj
}

// linkedBranches resolves Issue.linkedBranches for a batch of issues: the
// pages are cut in SQL in one query for the batch, then the branches'
// repositories are loaded in one query; a branch whose repository the
// viewer may not see, or that no longer exists (its link outlived it), is
// left out of its page.
func (a *API) linkedBranches(ctx context.Context, b *engine.Batch) ([]any, error) {
	page, err := sqlPage(b, "linkedBranches")
	if err != nil {
		return nil, err
	}
	ids := issueIDsOf(b.Parents)
	pages, err := a.d.Store.R().LinkedBranches(ctx, ids, page)
	if err != nil {
		return nil, err
	}
	var repoIDs []int64
	byRepo := map[int64][]*model.LinkedBranch{}
	for _, p := range pages {
		for _, lb := range p.Links {
			repoIDs = append(repoIDs, lb.RepoID)
			byRepo[lb.RepoID] = append(byRepo[lb.RepoID], lb)
		}
	}
	repos, err := a.reposByID(ctx, repoIDs)
	if err != nil {
		return nil, err
	}
	gone, err := a.goneRefs(ctx, repos, byRepo)
	if err != nil {
		return nil, err
	}
	out := make([]any, len(b.Parents))
	for i, id := range ids {
		c := &connection{}
		if p := pages[id]; p != nil {
			c.total = p.Total
			c.offset, _ = page(p.Total)
			for _, lb := range p.Links {
				if r := repos[lb.RepoID]; r != nil && !gone[lb.ID] {
					c.nodes = append(c.nodes, &linkedObj{lb: lb, repo: r})
				}
			}
		}
		out[i] = c
	}
	return out, nil
}

// goneRefs is which links name a branch that no longer exists: one
// pipelined cat-file request per repository.
func (a *API) goneRefs(ctx context.Context, repos map[int64]*repoObj, byRepo map[int64][]*model.LinkedBranch) (map[int64]bool, error) {
	gone := map[int64]bool{}
	for id, links := range byRepo {
		r := repos[id]
		if r == nil {
			continue
		}
		g := a.gitOf(r)
		if g == nil {
			for _, lb := range links {
				gone[lb.ID] = true
			}
			continue
		}
		revs := make([]string, len(links))
		for i, lb := range links {
			revs[i] = lb.Ref
		}
		infos, err := g.InfoMany(ctx, revs)
		if err != nil {
			return nil, err
		}
		for i, lb := range links {
			if infos[i].Type == "" {
				gone[lb.ID] = true
			}
		}
	}
	return gone, nil
}

// linkedByNodeID resolves a LinkedBranch id whose branch repository the
// viewer may see.
func (a *API) linkedByNodeID(ctx context.Context, id string) (*linkedObj, error) {
	objs, err := a.linkedByID(ctx, []string{id})
	if err != nil {
		return nil, err
	}
	if objs[0] == nil {
		return nil, notFound("Could not resolve to a node with the global id of '%s'", id)
	}
	return objs[0], nil
}

// linkedByID resolves LinkedBranch ids (nil where an id names none the
// viewer may see): one query for the links, one for their repositories.
func (a *API) linkedByID(ctx context.Context, ids []string) ([]*linkedObj, error) {
	out := make([]*linkedObj, len(ids))
	nums := make([]int64, len(ids))
	for i, id := range ids {
		if prefix, n, ok := decodeNodeID(id); ok && prefix == "LB" {
			nums[i] = n
		}
	}
	links, err := a.d.Store.R().LinkedBranchesByID(ctx, nums)
	if err != nil {
		return nil, err
	}
	repoIDs := make([]int64, 0, len(links))
	for _, lb := range links {
		repoIDs = append(repoIDs, lb.RepoID)
	}
	repos, err := a.reposByID(ctx, repoIDs)
	if err != nil {
		return nil, err
	}
	for i, n := range nums {
		if lb := links[n]; lb != nil && repos[lb.RepoID] != nil {
			out[i] = &linkedObj{lb: lb, repo: repos[lb.RepoID]}
		}
	}
	return out, nil
}
