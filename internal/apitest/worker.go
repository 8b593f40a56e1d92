package apitest

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/hubd/hubd/internal/actions"
)

// MainWithActionsWorker is the TestMain of packages whose tests run
// workflow jobs: the runner starts the test binary itself (Options.
// ActionsWorker, with a clean environment holding HUBD_ACTIONS_WORKER=1)
// as `hubd actions-worker` for each job, the job's spec on its standard
// input.
func MainWithActionsWorker(m *testing.M) {
	if os.Getenv("HUBD_ACTIONS_WORKER") == "1" && len(os.Args) == 1 {
		if err := actions.Work(context.Background(), os.Stdin, os.Stdout); err != nil {
			fmt.Fprintln(os.Stderr, "worker:", err)
			os.Exit(1)
		}
		os.Exit(0)
	}
	code := m.Run()
	if workerCopy.path != "" {
		os.RemoveAll(filepath.Dir(workerCopy.path))
	}
	os.Exit(code)
}
