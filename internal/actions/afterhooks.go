package actions

import (
	"context"
	"io"
	"path/filepath"
)

// AfterHook sees a job's result while its work directory (jc.Dir: the
// checkout, tmp, toolcache, home) still exists, before the job is
// finished and the directory removed: custom images of hosted runners
// (internal/runners/images.go) capture a snapshot job's tool cache and
// home here. What it writes to log is part of the job's log; an error is
// logged there and fails nothing.
type AfterHook func(ctx context.Context, jc JobContext, res Result, log io.Writer) error

// afterHooks runs the executor's after hooks in order.
func (e *Executor) afterHooks(ctx context.Context, jc JobContext, res Result, log io.Writer) {
	for _, h := range e.AfterHooks {
		if err := h(ctx, jc, res, log); err != nil {
			log.Write([]byte(e.stamp("##[warning]" + err.Error() + "\n")))
		}
	}
}

// JobToolCache is a job's RUNNER_TOOL_CACHE inside its work directory
// dir: nektos/act's host executor sets it to tool_cache under its action
// cache directory, which the worker puts at dir/act (worker.go).
func JobToolCache(dir string) string { return filepath.Join(dir, "act", "tool_cache") }

// JobHome is a job's HOME inside its work directory dir (exec.go).
func JobHome(dir string) string { return filepath.Join(dir, "home") }
