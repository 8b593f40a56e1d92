package graphql

import (
	"context"
	"errors"
	"strings"

	"github.com/hubd/hubd/internal/authz"
	"github.com/hubd/hubd/internal/graphql/engine"
	"github.com/hubd/hubd/internal/model"
	"github.com/hubd/hubd/internal/repos"
	"github.com/hubd/hubd/internal/rest"
)

// Repository mutations run the repositories service of POST /user/repos,
// POST /orgs/{org}/repos and PATCH /repos/{owner}/{repo}; deleteIssue runs
// the issues service (REST has no way to delete an issue).

func (a *API) registerRepoMutations(svc *repos.Service) {
	input := func(args map[string]any) map[string]any {
		in, _ := args["input"].(map[string]any)
		return in
	}
	repoPayload := func(ctx context.Context, in map[string]any, r *model.Repo) (any, error) {
		objs, err := a.reposByID(ctx, []int64{r.ID})
		if err != nil {
			return nil, err
		}
		return &payload{clientMutationID: in["clientMutationId"], issue: objs[r.ID]}, nil
	}

	a.field("Mutation", "createRepository", func(ctx context.Context, _ any, args map[string]any) (any, error) {
		in := input(args)
		c := from(ctx).caller
		if c.User == nil {
			return nil, engine.Errorf("FORBIDDEN", "You must be logged in to do that.")
		}
		owner := c.User
		if id, _ := in["ownerId"].(string); id != "" {
			prefix, n, ok := decodeNodeID(id)
			var acc *model.Account
			if ok && (prefix == "U" || prefix == "O") {
				var err error
				if acc, err = a.d.Store.R().AccountByID(ctx, n); err != nil && !errors.Is(err, model.ErrNotFound) {
					return nil, err
				}
			}
			if acc == nil || (prefix == "O") != acc.IsOrg() {
				return nil, notFound("Could not resolve to a node with the global id of '%s'", id)
			}
			owner = acc
		}
		var ci repos.CreateInput
		name, _ := in["name"].(string)
		ci.Name = rest.Opt[string]{Set: true, Value: name}
		if s, ok := in["description"].(string); ok {
			ci.Description = rest.Opt[string]{Set: true, Value: s}
		}
		if s, ok := in["homepageUrl"].(string); ok {
			ci.Homepage = rest.Opt[string]{Set: true, Value: s}
		}
		if v, ok := in["visibility"].(string); ok {
			ci.Visibility = rest.Opt[string]{Set: true, Value: strings.ToLower(v)}
		}
		// The input's defaults: issues on, wiki off, not a template.
		hasIssues, hasWiki, template := true, false, false
		if v, ok := in["hasIssuesEnabled"].(bool); ok {
			hasIssues = v
		}
		if v, ok := in["hasWikiEnabled"].(bool); ok {
			hasWiki = v
		}
		if v, ok := in["template"].(bool); ok {
			template = v
		}
		ci.HasIssues = rest.Opt[bool]{Set: true, Value: hasIssues}
		ci.HasWiki = rest.Opt[bool]{Set: true, Value: hasWiki}
		ci.IsTemplate = rest.Opt[bool]{Set: true, Value: template}
		r, err := svc.Create(ctx, c, owner, ci)
		if err != nil {
			return nil, gqlError(err)
		}
		return repoPayload(ctx, in, r)
	})

	archive := func(to bool) func(ctx context.Context, _ any, args map[string]any) (any, error) {
		return func(ctx context.Context, _ any, args map[string]any) (any, error) {
			in := input(args)
			id, _ := in["repositoryId"].(string)
			o, err := a.repoByNodeID(ctx, id)
			if err != nil {
				return nil, err
			}
			c := from(ctx).caller
			if o.perm < authz.Admin {
				return nil, engine.Errorf("FORBIDDEN", "%s does not have the correct permissions to execute `%s`", c.User.Login, mutationName(to))
			}
			var ui repos.UpdateInput
			ui.Archived = rest.Opt[bool]{Set: true, Value: to}
			r, err := svc.Update(ctx, c, o.v.Repo, ui)
			if err != nil {
				return nil, gqlError(err)
			}
			return repoPayload(ctx, in, r)
		}
	}
	a.field("Mutation", "archiveRepository", archive(true))
	a.field("Mutation", "unarchiveRepository", archive(false))

	a.field("Mutation", "deleteIssue", func(ctx context.Context, _ any, args map[string]any) (any, error) {
		in := input(args)
		id, _ := in["issueId"].(string)
		o, err := a.issueByNodeID(ctx, id)
		if err != nil {
			return nil, err
		}
		if o.is.IsPull {
			return nil, notFound("Could not resolve to Issue node with the global id of '%s'", id)
		}
		c := from(ctx).caller
		if o.repo.perm < authz.Admin {
			return nil, engine.Errorf("FORBIDDEN", "%s does not have the correct permissions to execute `DeleteIssue`", c.User.Login)
		}
		if err := a.issuesSvc.DeleteIssue(ctx, c, o.repo.v.Repo, o.repo.perm, o.is); err != nil {
			return nil, gqlError(err)
		}
		return &payload{clientMutationID: in["clientMutationId"], issue: o.repo}, nil
	})

	for _, typ := range []string{"CreateRepositoryPayload", "ArchiveRepositoryPayload", "UnarchiveRepositoryPayload", "DeleteIssuePayload"} {
		a.field(typ, "clientMutationId", func(_ context.Context, p any, _ map[string]any) (any, error) {
			return p.(*payload).clientMutationID, nil
		})
		a.field(typ, "repository", func(_ context.Context, p any, _ map[string]any) (any, error) {
			if r, ok := p.(*payload).issue.(*repoObj); ok && r != nil {
				return r, nil
			}
			return nil, nil
		})
	}
}

func mutationName(archive bool) string {
	if archive {
		return "ArchiveRepository"
	}
	return "UnarchiveRepository"
}
