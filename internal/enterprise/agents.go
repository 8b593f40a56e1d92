package enterprise

import (
	"context"
	"errors"
	"path"
	"strings"

	"github.com/hubd/hubd/internal/gitrepo"
	"github.com/hubd/hubd/internal/model"
	"github.com/hubd/hubd/internal/store"
)

// AgentsRepo is the repository of the source organization that holds the
// custom agents, in agents/*.md.
const AgentsRepo = ".github-private"

// AgentsSource is the configured source: the organization and its
// .github-private repository (both nil when none is set, or when the
// repository is gone).
type AgentsSource struct {
	Org  *model.Account
	Repo *model.Repo
}

// Agent is one custom agent: agents/<name>.md.
type Agent struct {
	Name, Path string
}

func (s *Service) source(ctx context.Context, q store.Q, orgID int64) (AgentsSource, error) {
	org, err := q.AccountByID(ctx, orgID)
	if err != nil {
		return AgentsSource{}, err
	}
	if !org.IsOrg() {
		return AgentsSource{}, model.ErrNotFound
	}
	v, err := q.RepoByName(ctx, org.Login, AgentsRepo, 0)
	if errors.Is(err, model.ErrNotFound) {
		return AgentsSource{Org: org}, nil
	}
	if err != nil {
		return AgentsSource{}, err
	}
	return AgentsSource{Org: org, Repo: v.Repo}, nil
}

// GetAgentsSource is the configured source (zero when none).
func (s *Service) GetAgentsSource(ctx context.Context) (AgentsSource, error) {
	q := s.st.R()
	id, err := q.CustomAgentsSource(ctx)
	if err != nil || id == 0 {
		return AgentsSource{}, err
	}
	return s.source(ctx, q, id)
}

// SetAgentsSource makes an organization the source; it must have a
// .github-private repository. createRuleset (GitHub's default) is refused:
// hubd's rulesets cannot restrict file paths.
func (s *Service) SetAgentsSource(ctx context.Context, actorID, orgID int64, createRuleset bool) (AgentsSource, error) {
	if createRuleset {
		return AgentsSource{}, model.Custom("CustomAgentsSource", "create_ruleset",
			"create_ruleset is not supported: hubd's rulesets cannot protect file paths; send create_ruleset false")
	}
	src, err := s.source(ctx, s.st.R(), orgID)
	if errors.Is(err, model.ErrNotFound) {
		return AgentsSource{}, model.Custom("CustomAgentsSource", "organization_id", "organization not found")
	}
	if err != nil {
		return AgentsSource{}, err
	}
	if src.Repo == nil {
		return AgentsSource{}, model.Custom("CustomAgentsSource", "organization_id",
			"the organization has no "+AgentsRepo+" repository")
	}
	err = s.st.Tx(ctx, func(tx store.Q) error {
		if err := tx.SetCustomAgentsSource(ctx, orgID); err != nil {
			return err
		}
		return tx.AppendEvent(ctx, "custom_agents_source.set", actorID, 0, orgID, map[string]any{"organization_id": orgID})
	})
	return src, err
}

// RemoveAgentsSource clears the source (the repository stays).
func (s *Service) RemoveAgentsSource(ctx context.Context, actorID int64) error {
	return s.st.Tx(ctx, func(tx store.Q) error {
		if err := tx.SetCustomAgentsSource(ctx, 0); err != nil {
			return err
		}
		return tx.AppendEvent(ctx, "custom_agents_source.removed", actorID, 0, 0, map[string]any{})
	})
}

// Agents are the agents/*.md files of the source repository's default
// branch, by path; nil (and no error) when no source is set.
func (s *Service) Agents(ctx context.Context, git *gitrepo.Manager) (AgentsSource, []Agent, error) {
	src, err := s.GetAgentsSource(ctx)
	if err != nil || src.Repo == nil {
		return src, nil, err
	}
	r := git.Open(src.Repo.ID)
	head, err := r.ResolveRef(ctx, "refs/heads/"+src.Repo.DefaultBranch)
	if err != nil {
		return src, []Agent{}, nil // an empty repository defines none
	}
	c, err := r.Commit(ctx, head)
	if err != nil {
		return src, nil, err
	}
	out := []Agent{}
	err = r.LsTree(ctx, c.Tree, true, func(e gitrepo.LsTreeEntry) bool {
		if e.Type == "blob" && path.Dir(e.Path) == "agents" && strings.HasSuffix(e.Path, ".md") {
			out = append(out, Agent{Name: strings.TrimSuffix(path.Base(e.Path), ".md"), Path: e.Path})
		}
		return true
	})
	return src, out, err
}
