package apitest

import (
	"context"
	"fmt"
	"os"
	"testing"

	"github.com/hubd/hubd/internal/actions"
)

// MainWithActionsWorker is the TestMain of packages whose tests run
// workflow jobs: the runner starts the test binary itself (Options.
// ActionsWorker, with a clean environment holding HUBD_ACTIONS_WORKER=1)
// as `hubd actions-worker` for each job.
func MainWithActionsWorker(m *testing.M) {
	if os.Getenv("HUBD_ACTIONS_WORKER") == "1" && len(os.Args) == 2 {
		if err := actions.Work(context.Background(), os.Args[1], os.Stdout); err != nil {
			fmt.Fprintln(os.Stderr, "worker:", err)
			os.Exit(1)
		}
		os.Exit(0)
	}
	os.Exit(m.Run())
}
