// Package idebench measures the browser IDE of codespaces
// (internal/codespaces/ide), run by bench/codespaces-ide.sh: the time from
// Start to code-server answering and to a workbench in chromium listing the
// workspace, and the memory of IDES idle code-servers, each after a browser
// opened its workbench and went away (code-server keeps the session's
// extension host for a reconnection), added up as PSS (what they cost
// together: shared pages split between their users) and RSS, and the
// machine's MemAvailable before and after.
package idebench

import (
	"bufio"
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/hubd/hubd/internal/codespaces/ide"
)

func BenchmarkIdleIDEs(b *testing.B) {
	n := 10
	if v, err := strconv.Atoi(os.Getenv("IDES")); err == nil && v > 0 {
		n = v
	}
	if _, err := os.Stat(ide.DefaultBinary()); err != nil {
		b.Fatalf("code-server is not installed at %s: run bash scripts/deps.sh", ide.DefaultBinary())
	}
	browserExe, err := exec.LookPath("chromium")
	if err != nil {
		b.Fatal("chromium is not installed: run bash scripts/deps.sh")
	}
	for b.Loop() {
		grace := ide.DefaultReconnectionGrace
		if v, err := strconv.Atoi(os.Getenv("GRACE")); err == nil && v > 0 {
			grace = time.Duration(v) * time.Second
		}
		m := ide.New(ide.Options{ReconnectionGrace: grace})
		defer m.StopAll()
		mux := http.NewServeMux()
		mux.Handle(ide.PathPrefix, m.Handler(func(r *http.Request, name string) (bool, bool) { return true, m.Running(name) }))
		srv := httptest.NewServer(mux)
		defer srv.Close()

		availBefore := memAvailable()
		var ready, loaded []time.Duration
		for i := range n {
			dir := b.TempDir()
			for _, f := range []string{"README.md", "main.go", "docs/guide.md"} {
				os.MkdirAll(filepath.Join(dir, filepath.Dir(f)), 0o755)
				os.WriteFile(filepath.Join(dir, f), []byte(f+"\n"), 0o644)
			}
			name := fmt.Sprintf("cs-%d", i)
			began := time.Now()
			if err := m.Start(context.Background(), name, dir, nil); err != nil {
				b.Fatal(err)
			}
			ready = append(ready, time.Since(began))
			if err := openWorkbench(browserExe, srv.URL+ide.PathPrefix+name+"/", b.TempDir()); err != nil {
				b.Fatalf("%s: %v", name, err)
			}
			loaded = append(loaded, time.Since(began))
		}
		measure := func(when string) {
			var pss, rss int64
			procs := 0
			for i := range n {
				mem, ok := m.Memory(fmt.Sprintf("cs-%d", i))
				if !ok {
					b.Fatalf("cs-%d does not run", i)
				}
				pss += mem.PSS
				rss += mem.RSS
				procs += mem.Processes
			}
			b.Logf("%d idle IDEs %s: %d processes, PSS %d MiB (%d MiB each), RSS %d MiB; MemAvailable fell %d MiB",
				n, when, procs, pss>>20, pss>>20/int64(n), rss>>20, (availBefore-memAvailable())>>20)
			b.ReportMetric(float64(pss>>20), "MiB-PSS-"+strings.Fields(when)[0])
			mem, _ := m.Memory("cs-0")
			for _, p := range mem.Each {
				b.Logf("  cs-0 pid %d PSS %d MiB RSS %d MiB: %.160s", p.Pid, p.PSS>>20, p.RSS>>20, p.Command)
			}
		}
		time.Sleep(10 * time.Second) // settle: idle
		measure("within the reconnection grace")
		if grace <= time.Minute {
			time.Sleep(grace + 10*time.Second)
			measure("after the reconnection grace (" + grace.String() + ")")
		}
		b.Logf("Start -> code-server answering: %v; Start -> workbench listing the files: %v", ready, loaded)
		b.ReportMetric(float64(loaded[0].Milliseconds()), "ms-first-workbench")
		m.StopAll()
	}
}

// openWorkbench loads the workbench in a fresh headless chromium until its
// explorer lists README.md, then closes the browser.
func openWorkbench(exe, url, profile string) error {
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	opts := append(chromedp.DefaultExecAllocatorOptions[:], chromedp.ExecPath(exe), chromedp.NoSandbox, chromedp.DisableGPU,
		chromedp.Flag("disable-background-networking", true), chromedp.UserDataDir(profile))
	actx, cancelAlloc := chromedp.NewExecAllocator(ctx, opts...)
	defer cancelAlloc()
	bctx, cancelB := chromedp.NewContext(actx)
	defer cancelB()
	if err := chromedp.Do(bctx, chromedp.Navigate(url)); err != nil {
		return err
	}
	_, err := chromedp.Run(bctx, chromedp.Poll[bool](`[...document.querySelectorAll('.explorer-folders-view .monaco-list-row .label-name')].some(e => e.textContent.trim() === 'README.md')`,
		chromedp.WithPollingTimeout(2*time.Minute)))
	return err
}

// memAvailable is /proc/meminfo's MemAvailable in bytes.
func memAvailable() int64 {
	f, err := os.Open("/proc/meminfo")
	if err != nil {
		return 0
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if v, ok := strings.CutPrefix(sc.Text(), "MemAvailable:"); ok {
			kb, _ := strconv.ParseInt(strings.Fields(v)[0], 10, 64)
			return kb << 10
		}
	}
	return 0
}
