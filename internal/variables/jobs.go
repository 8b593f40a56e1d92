package variables

import (
	"context"
	"errors"
	"strconv"

	"github.com/hubd/hubd/internal/actions"
	"github.com/hubd/hubd/internal/model"
)

func itoa(n int64) string { return strconv.FormatInt(n, 10) }

// JobHook is the actions executor's spec hook that gives a job its vars
// context: the Actions variables of its repository, its organization and
// the environment it names (created by the environments hook before).
func (s *Service) JobHook(ctx context.Context, jc actions.JobContext, spec *actions.Spec) error {
	envID := int64(0)
	if name, _ := actions.JobEnvironment(jc.Run.Source, jc.Job.Key); name != "" {
		env, err := s.Store.R().Environment(ctx, jc.Repo.ID, name)
		switch {
		case err == nil:
			envID = env.ID
		case !errors.Is(err, model.ErrNotFound):
			return err
		}
	}
	vars, err := s.ForRun(ctx, model.VariablesActions, jc.Repo, envID)
	if err != nil {
		return err
	}
	spec.Vars = vars
	return nil
}
