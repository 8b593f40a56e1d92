package graphql

import (
	"context"
	"errors"
	"strings"

	"github.com/hubd/hubd/internal/forks"
	"github.com/hubd/hubd/internal/graphql/engine"
	"github.com/hubd/hubd/internal/model"
)

// Template repositories: cloneTemplateRepository runs the service of POST
// /repos/{template_owner}/{template_repo}/generate; Repository's
// templateRepository names the template a repository was made from.

func (a *API) registerTemplates(svc *forks.Service) {
	a.field("Mutation", "cloneTemplateRepository", func(ctx context.Context, _ any, args map[string]any) (any, error) {
		in, _ := args["input"].(map[string]any)
		c := from(ctx).caller
		if c.User == nil {
			return nil, engine.Errorf("FORBIDDEN", "You must be logged in to do that.")
		}
		id, _ := in["repositoryId"].(string)
		tmpl, err := a.repoByNodeID(ctx, id)
		if err != nil {
			return nil, err
		}
		ownerID, _ := in["ownerId"].(string)
		prefix, n, ok := decodeNodeID(ownerID)
		var owner *model.Account
		if ok && (prefix == "U" || prefix == "O") {
			if owner, err = a.d.Store.R().AccountByID(ctx, n); err != nil && !errors.Is(err, model.ErrNotFound) {
				return nil, err
			}
		}
		if owner == nil || (prefix == "O") != owner.IsOrg() {
			return nil, notFound("Could not resolve to a node with the global id of '%s'", ownerID)
		}
		gi := forks.GenerateInput{Owner: owner.Login}
		gi.Name, _ = in["name"].(string)
		gi.Description, _ = in["description"].(string)
		gi.IncludeAllBranches, _ = in["includeAllBranches"].(bool)
		v, _ := in["visibility"].(string)
		gi.Visibility = model.Visibility(strings.ToLower(v))
		r, err := svc.Generate(ctx, c, tmpl.v.Repo, tmpl.perm, gi)
		if err != nil {
			return nil, gqlError(err)
		}
		objs, err := a.reposByID(ctx, []int64{r.ID})
		if err != nil {
			return nil, err
		}
		return &payload{clientMutationID: in["clientMutationId"], issue: objs[r.ID]}, nil
	})
	a.field("CloneTemplateRepositoryPayload", "clientMutationId", func(_ context.Context, p any, _ map[string]any) (any, error) {
		return p.(*payload).clientMutationID, nil
	})
	a.field("CloneTemplateRepositoryPayload", "repository", func(_ context.Context, p any, _ map[string]any) (any, error) {
		if r, ok := p.(*payload).issue.(*repoObj); ok && r != nil {
			return r, nil
		}
		return nil, nil
	})

	a.schema.Resolve("Repository", "templateRepository", a.linkedRepos(func(r *model.Repo) int64 { return r.TemplateID }))
}

// linkedRepos resolves a Repository field that names another repository
// by id (0: none) in one batch for the page's repositories; a repository
// the viewer may not see is null.
func (a *API) linkedRepos(idOf func(*model.Repo) int64) func(context.Context, *engine.Batch) ([]any, error) {
	return func(ctx context.Context, b *engine.Batch) ([]any, error) {
		var ids []int64
		for _, p := range b.Parents {
			if id := idOf(p.(*repoObj).v.Repo); id != 0 {
				ids = append(ids, id)
			}
		}
		out := make([]any, len(b.Parents))
		if len(ids) == 0 {
			return out, nil
		}
		repos, err := a.reposByID(ctx, ids)
		if err != nil {
			return nil, err
		}
		for i, p := range b.Parents {
			if o := repos[idOf(p.(*repoObj).v.Repo)]; o != nil {
				out[i] = o
			}
		}
		return out, nil
	}
}
