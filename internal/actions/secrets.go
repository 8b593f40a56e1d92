package actions

import (
	"context"
	"fmt"

	"github.com/hubd/hubd/internal/model"
)

// SecretValues gives the plain values of the Actions secrets a job of the
// repository may see, by name (internal/secrets: the repository's own
// over the organization's it may use).
type SecretValues func(ctx context.Context, app string, repo *model.Repo) (map[string]string, error)

// SecretsHook is the spec hook that puts a job's secrets into its spec,
// where `${{ secrets.NAME }}` finds them and the worker masks them in the
// log. As on GitHub, runs of pull requests from forks get none but
// GITHUB_TOKEN (pull_request_target runs in the base repository's context
// and gets them).
//
// envValues, when set, gives the secrets of the environment a job names
// (`environment:`), which win over the repository's and organization's.
func SecretsHook(values SecretValues, envValues func(ctx context.Context, app string, repo *model.Repo, env string) (map[string]string, error)) SpecHook {
	return func(ctx context.Context, jc JobContext, spec *Spec) error {
		if fromFork(jc.Repo, jc.Run.Event, spec.Payload) {
			return nil
		}
		v, err := values(ctx, "actions", jc.Repo)
		if err != nil {
			return fmt.Errorf("secrets: %w", err)
		}
		if name, _ := JobEnvironment(jc.Run.Source, jc.Job.Key); name != "" && envValues != nil {
			ev, err := envValues(ctx, "actions", jc.Repo, name)
			if err != nil {
				return fmt.Errorf("secrets: %w", err)
			}
			for k, val := range ev {
				v[k] = val
			}
		}
		if spec.Secrets == nil {
			spec.Secrets = map[string]string{}
		}
		for name, value := range v {
			if name != "GITHUB_TOKEN" {
				spec.Secrets[name] = value
			}
		}
		return nil
	}
}

// FromFork reports whether a run is a fork's pull request's (fromFork of
// its event payload): it gets no secrets, a read-only GITHUB_TOKEN and no
// OIDC token.
func FromFork(repo *model.Repo, run *model.WorkflowRun) bool {
	return fromFork(repo, run.Event, run.EventPayload)
}

// fromFork reports whether a run's event is a pull request whose head is
// not in the repository itself; when the payload does not say where the
// head is, the run is treated as a fork's (secrets withheld).
func fromFork(repo *model.Repo, event string, payload map[string]any) bool {
	switch event {
	case "pull_request", "pull_request_review", "pull_request_review_comment":
	default:
		return false
	}
	pr, _ := payload["pull_request"].(map[string]any)
	head, _ := pr["head"].(map[string]any)
	hr, _ := head["repo"].(map[string]any)
	switch id := hr["id"].(type) {
	case int64:
		return id != repo.ID
	case float64:
		return int64(id) != repo.ID
	case int:
		return int64(id) != repo.ID
	}
	if name, ok := hr["full_name"].(string); ok {
		return name != repo.FullName()
	}
	return true
}
