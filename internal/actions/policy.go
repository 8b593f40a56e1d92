package actions

import (
	"context"
	"strings"

	"github.com/hubd/hubd/internal/model"
	"gopkg.in/yaml.v3"
)

// What the Actions policies (internal/actionspolicy) and the OIDC token
// endpoint read of a job's workflow, and the hooks through which the
// policies reach runs (Service.Enabled, Executor.DefaultPermissions).

// EnabledFunc reports whether Actions may run in a repository: a push to
// a repository where it may not starts no run.
type EnabledFunc func(ctx context.Context, repo *model.Repo) (bool, error)

// enabled runs the Enabled hook (none: enabled).
func (s *Service) enabled(ctx context.Context, repo *model.Repo) (bool, error) {
	if s.Enabled == nil {
		return true, nil
	}
	return s.Enabled(ctx, repo)
}

// defaultPermissions is the GITHUB_TOKEN's level for a workflow without
// permissions: ("read" unless the DefaultPermissions hook says "write").
func (e *Executor) defaultPermissions(ctx context.Context, repo *model.Repo) (string, error) {
	if e.DefaultPermissions == nil {
		return "read", nil
	}
	return e.DefaultPermissions(ctx, repo)
}

// JobUses lists the uses: of a job: its steps' actions, or the reusable
// workflow the job calls.
func JobUses(path, source, jobKey string) ([]string, error) {
	w, err := parseWorkflow(path, []byte(source))
	if err != nil {
		return nil, err
	}
	j := w.wf.Jobs[jobKey]
	if j == nil {
		return nil, nil
	}
	var out []string
	if j.Uses != "" {
		out = append(out, j.Uses)
	}
	for _, s := range j.Steps {
		if s != nil && s.Uses != "" {
			out = append(out, s.Uses)
		}
	}
	return out, nil
}

// IDTokenWritable reports whether a job may request an OIDC token: its
// permissions: (or else its workflow's) grant id-token: write (write-all
// does too).
func IDTokenWritable(path, source, jobKey string) bool {
	var doc struct {
		Permissions yaml.Node `yaml:"permissions"`
		Jobs        map[string]struct {
			Permissions yaml.Node `yaml:"permissions"`
		} `yaml:"jobs"`
	}
	if yaml.Unmarshal([]byte(source), &doc) != nil {
		return false
	}
	n := doc.Permissions
	if j, ok := doc.Jobs[jobKey]; ok && j.Permissions.Kind != 0 {
		n = j.Permissions
	}
	switch n.Kind {
	case yaml.ScalarNode:
		return strings.TrimSpace(n.Value) == "write-all"
	case yaml.MappingNode:
		var m map[string]string
		_ = n.Decode(&m)
		return m["id-token"] == "write"
	}
	return false
}
