package environments

import (
	"context"
	"errors"
	"fmt"
	"path"
	"strings"

	"github.com/hubd/hubd/internal/actions"
	"github.com/hubd/hubd/internal/model"
	"github.com/hubd/hubd/internal/store"
)

// JobHook is the actions executor's spec hook for jobs that name an
// environment: the environment is created when missing (as GitHub does),
// and a ref its deployment branch policy does not admit fails the job
// with GitHub's message. Wait timers and required reviewers hold jobs
// back before they are queued (Gate, gates.go).
func (s *Service) JobHook(ctx context.Context, jc actions.JobContext, spec *actions.Spec) error {
	name, _ := actions.JobEnvironment(jc.Run.Source, jc.Job.Key)
	if name == "" {
		return nil
	}
	env, err := s.Ensure(ctx, jc.Repo, jc.Run.TriggeringActorID, name)
	if err != nil {
		return err
	}
	ok, err := s.admits(ctx, s.Store.R(), env, jc.Run.Ref)
	if err != nil {
		return err
	}
	if !ok {
		kind, short := "Branch", strings.TrimPrefix(jc.Run.Ref, "refs/heads/")
		if strings.HasPrefix(jc.Run.Ref, "refs/tags/") {
			kind, short = "Tag", strings.TrimPrefix(jc.Run.Ref, "refs/tags/")
		}
		return fmt.Errorf("%s \"%s\" is not allowed to deploy to %s due to environment protection rules.", kind, short, env.Name)
	}
	return nil
}

// admits reports whether a ref may deploy to an environment: any ref
// without a branch policy; protected branches only; or a branch or tag
// matching one of the custom name patterns (wildcards do not match "/").
func (s *Service) admits(ctx context.Context, q store.Q, env *model.Environment, ref string) (bool, error) {
	branch, isBranch := strings.CutPrefix(ref, "refs/heads/")
	tag, isTag := strings.CutPrefix(ref, "refs/tags/")
	switch env.BranchPolicy {
	case "":
		return true, nil
	case model.BranchPolicyProtected:
		if !isBranch {
			return false, nil
		}
		_, err := q.BranchProtection(ctx, env.RepoID, branch)
		if errors.Is(err, model.ErrNotFound) {
			return false, nil
		}
		return err == nil, err
	}
	list, _, err := q.BranchPolicies(ctx, env.ID, 1<<30, 0)
	if err != nil {
		return false, err
	}
	for _, p := range list {
		name, typ := branch, "branch"
		if isTag {
			name, typ = tag, "tag"
		}
		if (isBranch || isTag) && p.Type == typ {
			if ok, _ := path.Match(p.Name, name); ok {
				return true, nil
			}
		}
	}
	return false, nil
}
