package apitest

import (
	"context"
	"fmt"
	"os"
	"testing"

	"github.com/hubd/hubd/internal/actions"
)

// Main is a test binary's TestMain when its tests run workflows: the
// runner starts the test binary itself as `hubd actions-worker` (with
// HUBD_ACTIONS_WORKER=1 and the job's file), so the binary doubles as the
// worker; otherwise it runs the tests. Pass Options.ActionsWorker
// []string{os.Executable()} to use it.
func Main(m *testing.M) {
	if os.Getenv("HUBD_ACTIONS_WORKER") == "1" && len(os.Args) == 2 {
		if err := actions.Work(context.Background(), os.Args[1], os.Stdout); err != nil {
			fmt.Fprintln(os.Stderr, "worker:", err)
			os.Exit(1)
		}
		os.Exit(0)
	}
	os.Exit(m.Run())
}
