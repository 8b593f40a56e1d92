package web_test

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
)

// chromium finds Debian's chromium (scripts/deps.sh installs it). A
// missing browser fails the test: it is never skipped, never downloaded.
func chromium(t *testing.T) string {
	t.Helper()
	if p := os.Getenv("HUBD_CHROMIUM"); p != "" {
		return p
	}
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome-stable", "google-chrome"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	t.Fatal("chromium is not installed: run `bash scripts/deps.sh` (apt-get install chromium) or set HUBD_CHROMIUM")
	return ""
}

// TestPullRequestLoopInBrowser drives the loop in headless chromium as a
// person does, with the pages' forms (no script: the pages have none):
// mona signs in and opens a pull request from the compare page; she signs
// out and rita signs in, opens a comment form from a line number of the
// diff and approves with an inline comment; mona merges with squash and
// sees the linked issue closed. Screenshots at 1280 and 390 px go to
// $HUBD_SCREENSHOTS (or the test's temporary directory).
func TestPullRequestLoopInBrowser(t *testing.T) {
	l := newLoop(t)
	e := l.e
	l.collaborator(t)
	shots := os.Getenv("HUBD_SCREENSHOTS")
	if shots == "" {
		shots = t.TempDir()
	}
	os.MkdirAll(shots, 0o755)

	exe := chromium(t)
	parent, stop := context.WithTimeout(context.Background(), 10*time.Minute)
	defer stop()
	opts := append(chromedp.DefaultExecAllocatorOptions[:], chromedp.ExecPath(exe), chromedp.NoSandbox, chromedp.DisableGPU,
		chromedp.Flag("disable-background-networking", true), chromedp.Flag("disable-component-update", true),
		chromedp.Flag("disable-sync", true), chromedp.UserDataDir(filepath.Join(t.TempDir(), "profile")))
	actx, cancelAlloc := chromedp.NewExecAllocator(parent, opts...)
	defer cancelAlloc()
	ctx, cancel := chromedp.NewContext(actx)
	defer cancel()

	width := int64(1280)
	do := func(what string, steps ...chromedp.Action[chromedp.Void]) {
		t.Helper()
		if err := chromedp.Do(ctx, steps...); err != nil {
			t.Fatalf("%s: %v", what, err)
		}
	}
	// submit clicks a button that posts a form and waits for the page it
	// leads to.
	// follow clicks sel and waits until another page has loaded (the old
	// page's marker is gone).
	follow := func(what, sel string) {
		t.Helper()
		t.Log(what)
		// A script's click (a person's, as far as the page knows) returns
		// before the navigation it starts.
		js := fmt.Sprintf(`(() => { window.__old = true; document.querySelector(%q).click(); return true; })()`, sel)
		if _, err := chromedp.Run(ctx, chromedp.Evaluate[bool](js)); err != nil {
			t.Fatalf("%s: %v", what, err)
		}
		// Evaluations fail while the page changes: ask until the new one
		// answers.
		for deadline := time.Now().Add(2 * time.Minute); ; time.Sleep(50 * time.Millisecond) {
			done, err := chromedp.Run(ctx, chromedp.Evaluate[bool](`!window.__old && document.readyState === "complete"`))
			if err == nil && done {
				break
			}
			if time.Now().After(deadline) {
				t.Fatalf("%s: no new page (%v)", what, err)
			}
		}
	}
	submit := follow
	open := func(path string) {
		t.Helper()
		t.Log("open " + path)
		do("open "+path, chromedp.EmulateViewport(width, 900), chromedp.Navigate(e.URL+path))
	}
	eval := func(js string) string {
		t.Helper()
		s, err := chromedp.Run(ctx, chromedp.Evaluate[string](js))
		if err != nil {
			t.Fatalf("%s: %v", js, err)
		}
		return s
	}
	text := func() string { return eval(`document.body.innerText`) }
	shot := func(name string) {
		t.Helper()
		for _, w := range []int64{1280, 390} {
			do("viewport", chromedp.EmulateViewport(w, 900))
			b, err := chromedp.Run(ctx, chromedp.FullScreenshot(100))
			if err != nil {
				t.Fatalf("screenshot %s: %v", name, err)
			}
			if err := os.WriteFile(filepath.Join(shots, name+"-"+strconv.FormatInt(w, 10)+".png"), b, 0o644); err != nil {
				t.Fatal(err)
			}
			if w == 390 {
				// Nothing but the diff's own scroller may be wider than a phone.
				if sw := eval(`String(document.documentElement.scrollWidth)`); sw != "390" {
					t.Errorf("%s at 390 px: the page scrolls sideways (%s px)", name, sw)
				}
			}
		}
		do("viewport", chromedp.EmulateViewport(width, 900))
	}
	signIn := func(login string) {
		t.Helper()
		open("/login")
		do("sign in form", chromedp.SetValue(chromedp.CSS(`input[name=login]`), login), chromedp.SetValue(chromedp.CSS(`input[name=password]`), "correct horse battery"))
		submit("sign in", `button[type=submit]`)
		if !strings.Contains(text(), login) {
			t.Fatalf("signed in as %s, the header says:\n%s", login, text())
		}
	}
	signOut := func() {
		t.Helper()
		do("user menu", chromedp.Click(chromedp.CSS(`details.menu summary`)))
		submit("sign out", `details.menu button[type=submit]`)
		if !strings.Contains(text(), "Sign in") {
			t.Fatalf("signed out, the page says:\n%s", text())
		}
	}

	// mona opens the pull request from the compare page.
	signIn("mona")
	shot("home")
	open("/mona/app/compare/main...feature")
	do("describe", chromedp.SetValue(chromedp.CSS(`#pr-body`), "Fixes #1"))
	shot("compare")
	submit("create pull request", `form.open-pull button[type=submit]`)
	if loc := eval(`location.pathname`); loc != "/mona/app/pull/2" {
		t.Fatalf("after create: %s\n%s", loc, text())
	}
	if bg := eval(`getComputedStyle(document.querySelector("span.state")).backgroundColor`); bg != "rgb(31, 136, 61)" {
		t.Errorf("open state colour %s", bg)
	}
	signOut()

	// rita reviews from the diff.
	signIn("rita")
	open("/mona/app/pull/2/files")
	follow("line link", `a.ln[aria-label="Comment on new line 2"]`)
	do("inline comment", chromedp.SetValue(chromedp.CSS(`#line-comment-body`), "Louder is better."),
		chromedp.Click(chromedp.CSS(`form.line-comment input[value=APPROVE]`)))
	shot("files-comment")
	submit("add review comment", `form.line-comment button[type=submit]`)
	if got := text(); !strings.Contains(got, "Louder is better.") {
		t.Fatalf("the files page lacks rita's comment:\n%s", got)
	}
	signOut()

	// mona merges with squash.
	signIn("mona")
	open("/mona/app/pull/2")
	if got := text(); !strings.Contains(got, "approved these changes") || !strings.Contains(got, "Louder is better.") {
		t.Fatalf("the conversation lacks rita's review:\n%s", got)
	}
	do("squash", chromedp.Click(chromedp.CSS(`input[name=merge_method][value=squash]`)))
	shot("pull-open")
	submit("merge", `form[action$="/merge"] button[type=submit]`)
	if bg := eval(`getComputedStyle(document.querySelector("span.state")).backgroundColor`); bg != "rgb(130, 80, 223)" {
		t.Errorf("merged state colour %s\n%s", bg, text())
	}
	if got := text(); !strings.Contains(got, "Merged") || !strings.Contains(got, "successfully merged") {
		t.Fatalf("after merge:\n%s", got)
	}
	shot("pull-merged")
	e.RunJobs()
	open("/mona/app/issues/1")
	if got := text(); !strings.Contains(got, "Closed") {
		t.Fatalf("the linked issue is not closed:\n%s", got)
	}
	open("/mona/app/pulls?state=closed")
	shot("pulls")
}
