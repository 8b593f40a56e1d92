package graphql

import (
	"context"
	"errors"

	"github.com/hubd/hubd/internal/graphql/engine"
)

// registerRepoProjects: hubd has no classic projects, so a repository's
// projects are empty (gh repo view asks for them); its projectsV2 are the
// Projects (v2) projects linked to it (projects_values.go).
func (a *API) registerRepoProjects() {
	a.connectionTypes("ProjectConnection", "ProjectEdge")
	a.connectionTypes("ProjectV2Connection", "ProjectV2Edge")
	for _, f := range []string{"projects"} {
		a.schema.Resolve("Repository", f, engine.EachBatch(func(_ context.Context, _ any, b *engine.Batch) (any, error) {
			if _, err := pageWindow(b.Args, f, engine.SelectsItems(b.Field.SelectionSet)); err != nil {
				return nil, err
			}
			return &connection{}, nil
		}))
	}
	a.noProjects("Project", "number", "body", "resourcePath", "closed", "state", "url")
}

// noProjects resolves fields of a project type hubd never returns (it has
// no projects): asked of a value, they are an error.
func (a *API) noProjects(typ string, fields ...string) {
	for _, f := range fields {
		a.field(typ, f, func(context.Context, any, map[string]any) (any, error) {
			return nil, errors.New("graphql: hubd has no projects")
		})
	}
}
