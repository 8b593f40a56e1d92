package catalogue_test

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

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/emulation"
	"github.com/chromedp/chromedp"

	"github.com/hubd/hubd/internal/apitest"
	"github.com/hubd/hubd/internal/catalogue"
)

// chromium finds Debian's chromium (scripts/deps.sh installs it with apt).
// A missing browser fails the test: it is never skipped, never downloaded.
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

// browser starts a headless chromium with a fresh profile.
func browser(t *testing.T) context.Context {
	t.Helper()
	exe := chromium(t)
	parent, stop := context.WithTimeout(context.Background(), 3*time.Minute)
	t.Cleanup(stop)
	opts := append(chromedp.DefaultExecAllocatorOptions[:],
		chromedp.ExecPath(exe),
		chromedp.NoSandbox,
		chromedp.DisableGPU,
		chromedp.Flag("disable-background-networking", true),
		chromedp.Flag("disable-component-update", true),
		chromedp.Flag("disable-sync", true),
		chromedp.UserDataDir(filepath.Join(t.TempDir(), "profile")),
	)
	actx, cancelAlloc := chromedp.NewExecAllocator(parent, opts...)
	t.Cleanup(cancelAlloc)
	ctx, cancel := chromedp.NewContext(actx)
	t.Cleanup(cancel)
	if err := chromedp.Do(ctx); err != nil {
		t.Fatalf("start %s: %v", exe, err)
	}
	return ctx
}

// pageState is what the page shows, read with one script.
type pageState struct {
	Total   string            `json:"total"`
	Of      string            `json:"of"`
	Badges  map[string]string `json:"badges"`
	Colours map[string]string `json:"colours"`
	Rows    []struct {
		ID, Status, Label, Colour string
	} `json:"rows"`
	Cats []struct {
		Name   string   `json:"name"`
		Open   bool     `json:"open"`
		Count  string   `json:"count"`
		Badges []string `json:"badges"`
	} `json:"cats"`
	Tokens      map[string]string `json:"tokens"`
	Search      string            `json:"search"`
	ScrollWidth int               `json:"scrollWidth"`
	Rendered    int               `json:"rendered"` // rows the browser lays out (in open categories)
	Empty       bool              `json:"empty"`
}

const stateJS = `(() => {
  const shown = el => el.closest("[hidden]") === null;
  const bg = el => el ? getComputedStyle(el).backgroundColor : "";
  const keys = ["supported", "partial", "unsupported", "never"];
  const badge = s => document.querySelector('#summary-badges .b[data-status="' + s + '"]');
  const tok = k => [...document.querySelectorAll("td.k .tk")].find(x => x.textContent === k);
  return {
    total: document.getElementById("shown-total").textContent,
    of: document.getElementById("shown-of").textContent,
    badges: Object.fromEntries(keys.map(s => [s, badge(s).textContent])),
    colours: Object.fromEntries(keys.map(s => [s, bg(badge(s))])),
    rows: [...document.querySelectorAll("tr.op")].filter(shown).map(r => {
      const b = r.querySelector("td.st .b");
      return {ID: r.id.slice(3), Status: r.dataset.status, Label: b.textContent, Colour: bg(b)};
    }),
    cats: [...document.querySelectorAll("details.cat")].filter(shown).map(d => ({
      name: d.dataset.cat, open: d.open, count: d.querySelector("summary .ccount .n").textContent,
      badges: [...d.querySelectorAll("summary .badges .b")].filter(shown).map(b => b.textContent),
    })),
    tokens: {UAT: bg(tok("UAT")), IAT: bg(tok("IAT"))},
    search: location.search,
    scrollWidth: document.documentElement.scrollWidth,
    rendered: [...document.querySelectorAll("tr.op")].filter(r => r.checkVisibility()).length,
    empty: shown(document.getElementById("empty")),
  };
})()`

func state(t *testing.T, ctx context.Context) pageState {
	t.Helper()
	s, err := chromedp.Run(ctx, chromedp.Evaluate[pageState](stateJS))
	if err != nil {
		t.Fatalf("read page: %v", err)
	}
	return s
}

// setFilter changes a form control the way a person does, which fires the
// change event the page's script listens to.
func setFilter(t *testing.T, ctx context.Context, name, value string) {
	t.Helper()
	js := fmt.Sprintf(`(() => { const el = document.querySelector('#filters [name=%q]'); el.value = %q;
	  el.dispatchEvent(new Event(el.tagName === "SELECT" ? "change" : "input", {bubbles: true})); return true; })()`, name, value)
	if _, err := chromedp.Run(ctx, chromedp.Evaluate[bool](js)); err != nil {
		t.Fatalf("set %s=%s: %v", name, value, err)
	}
}

// waitTotal waits until the page shows total operations.
func waitTotal(t *testing.T, ctx context.Context, total int) {
	t.Helper()
	want := catalogue.Thousands(total)
	wctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	if _, err := chromedp.Run(wctx, chromedp.Poll[bool](fmt.Sprintf(`document.getElementById("shown-total").textContent === %q`, want))); err != nil {
		t.Fatalf("the page never showed %s operations (shows %s): %v", want, state(t, ctx).Total, err)
	}
}

// only counts n operations, all in state s.
func only(s catalogue.Status, n int) catalogue.Counts {
	var c catalogue.Counts
	for i := 0; i < n; i++ {
		c.Add(s)
	}
	return c
}

// rgb is the computed-style form of a #rrggbb colour.
func rgb(hex string) string {
	v, _ := strconv.ParseUint(strings.TrimPrefix(hex, "#"), 16, 32)
	return fmt.Sprintf("rgb(%d, %d, %d)", v>>16, v>>8&0xff, v&0xff)
}

func screenshot(t *testing.T, ctx context.Context, name string) {
	dir := os.Getenv("HUBD_SCREENSHOTS")
	if dir == "" {
		return
	}
	b, err := chromedp.Run(ctx, chromedp.FullScreenshot(100))
	if err != nil {
		t.Errorf("screenshot %s: %v", name, err)
		return
	}
	os.MkdirAll(dir, 0o755)
	if err := os.WriteFile(filepath.Join(dir, name+".png"), b, 0o644); err != nil {
		t.Error(err)
	}
}

// TestCataloguePageInBrowser drives the page in headless chromium: it loads
// it, checks the counts and the badge colours, filters by status, token and
// free text, and checks the counts again, at desktop and phone widths.
func TestCataloguePageInBrowser(t *testing.T) {
	e := apitest.New(t)
	want := expected(e)
	ctx := browser(t)
	load := func(width, height int64, query string) {
		t.Helper()
		err := chromedp.Do(ctx,
			chromedp.EmulateViewport(width, height),
			chromedp.Navigate(e.URL+"/catalogue"+query),
			chromedp.Poll[chromedp.Void](`document.body.dataset.ready === "1"`),
		)
		if err != nil {
			t.Fatalf("load /catalogue%s: %v", query, err)
		}
	}
	checkSummary := func(when string, s pageState, c catalogue.Counts) {
		t.Helper()
		if s.Total != catalogue.Thousands(c.Total) {
			t.Errorf("%s: total %q, want %d", when, s.Total, c.Total)
		}
		for _, st := range catalogue.Statuses {
			if got, w := s.Badges[string(st)], catalogue.Badge(st, c.Of(st)); got != w {
				t.Errorf("%s: summary badge %q, want %q", when, got, w)
			}
			if got, w := s.Colours[string(st)], rgb(catalogue.Colours[st.Colour()].Bg); got != w {
				t.Errorf("%s: %s badge colour %s, want %s (%s)", when, st, got, w, st.Colour())
			}
		}
	}
	checkRows := func(when string, s pageState, st catalogue.Status, n int) {
		t.Helper()
		if len(s.Rows) != n || s.Rendered != n {
			t.Errorf("%s: %d rows shown, %d laid out, want %d", when, len(s.Rows), s.Rendered, n)
		}
		for _, r := range s.Rows {
			if r.Status != string(st) || r.Label != st.Label() || r.Colour != rgb(catalogue.Colours[st.Colour()].Bg) {
				t.Errorf("%s: row %s shows %s %q in %s", when, r.ID, r.Status, r.Label, r.Colour)
			}
		}
	}

	for _, vp := range []struct {
		name          string
		width, height int64
	}{{"desktop", 1280, 900}, {"phone", 390, 844}} {
		t.Run(vp.name, func(t *testing.T) {
			load(vp.width, vp.height, "")
			s := state(t, ctx)
			checkSummary("unfiltered", s, want.Summary)
			if len(s.Rows) != want.Summary.Total || len(s.Cats) != len(want.Categories) {
				t.Errorf("unfiltered: %d rows in %d categories, want %d in %d", len(s.Rows), len(s.Cats), want.Summary.Total, len(want.Categories))
			}
			for _, c := range s.Cats {
				if c.Open {
					t.Errorf("unfiltered: category %s is open", c.Name)
				}
			}
			if s.Rendered != 0 {
				t.Errorf("unfiltered: %d rows laid out in closed categories", s.Rendered)
			}
			if s.Tokens["UAT"] != rgb(catalogue.Colours["blue"].Bg) || s.Tokens["IAT"] != rgb(catalogue.Colours["purple"].Bg) {
				t.Errorf("token badges: UAT %s (want blue), IAT %s (want purple)", s.Tokens["UAT"], s.Tokens["IAT"])
			}
			if s.ScrollWidth > int(vp.width) {
				t.Errorf("the page is %dpx wide in a %dpx viewport", s.ScrollWidth, vp.width)
			}
			screenshot(t, ctx, vp.name+"-all")

			// Filter by status: every count follows.
			for _, st := range []catalogue.Status{catalogue.Never, catalogue.Supported} {
				setFilter(t, ctx, "status", string(st))
				n := want.Summary.Of(st)
				waitTotal(t, ctx, n)
				s = state(t, ctx)
				when := "status=" + string(st)
				checkSummary(when, s, only(st, n))
				checkRows(when, s, st, n)
				if !strings.Contains(s.Search, "status="+string(st)) {
					t.Errorf("%s: the URL is %q", when, s.Search)
				}
				if !strings.Contains(s.Of, "of "+catalogue.Thousands(want.Summary.Total)) {
					t.Errorf("%s: %q", when, s.Of)
				}
				cats := map[string]catalogue.Group{}
				for _, c := range want.Categories {
					cats[c.Name] = c
				}
				sum := 0
				for _, c := range s.Cats {
					k := cats[c.Name].Summary.Of(st)
					sum += k
					if !c.Open || c.Count != catalogue.Thousands(k) || len(c.Badges) != 1 || c.Badges[0] != catalogue.Badge(st, k) {
						t.Errorf("%s: category %s open=%v count=%s badges=%v, want open with %d", when, c.Name, c.Open, c.Count, c.Badges, k)
					}
				}
				if sum != n {
					t.Errorf("%s: categories hold %d operations, want %d", when, sum, n)
				}
				screenshot(t, ctx, vp.name+"-"+string(st))
			}
			found := false
			for _, r := range s.Rows {
				found = found || r.ID == "users/get-authenticated"
			}
			if !found {
				t.Error("status=supported: GET /user is not shown")
			}

			// Free text narrows the selection further; nothing matches shows
			// the empty state.
			setFilter(t, ctx, "q", "users/get-authenticated") // "get-authenticated" alone also finds apps/get-authenticated
			waitTotal(t, ctx, 1)
			if s = state(t, ctx); len(s.Rows) != 1 || s.Rows[0].ID != "users/get-authenticated" {
				t.Errorf("status=supported q=users/get-authenticated: rows %+v", s.Rows)
			}
			setFilter(t, ctx, "q", "no-such-operation")
			waitTotal(t, ctx, 0)
			if s = state(t, ctx); !s.Empty || len(s.Cats) != 0 {
				t.Errorf("no match: empty=%v, %d categories shown", s.Empty, len(s.Cats))
			}

			// Token kind.
			setFilter(t, ctx, "q", "")
			setFilter(t, ctx, "status", "")
			setFilter(t, ctx, "token", "none")
			waitTotal(t, ctx, want.Tokens.None)

			// Category.
			setFilter(t, ctx, "token", "")
			setFilter(t, ctx, "category", "users")
			for _, c := range want.Categories {
				if c.Name == "users" {
					waitTotal(t, ctx, c.Summary.Total)
				}
			}
			if s = state(t, ctx); len(s.Cats) != 1 || s.Cats[0].Name != "users" || !strings.Contains(s.Search, "category=users") {
				t.Errorf("category=users: categories %+v, URL %q", s.Cats, s.Search)
			}

			// Reset shows everything again, with the categories closed.
			if _, err := chromedp.Run(ctx, chromedp.Evaluate[bool](`(document.querySelector("a.reset").click(), true)`)); err != nil {
				t.Fatal(err)
			}
			waitTotal(t, ctx, want.Summary.Total)
			s = state(t, ctx)
			checkSummary("after reset", s, want.Summary)
			if s.Search != "" {
				t.Errorf("after reset the URL has %q", s.Search)
			}
		})
	}

	// Without JavaScript the URL's filter is applied by the server and the
	// page shows the same thing.
	t.Run("no javascript", func(t *testing.T) {
		if err := chromedp.Do(ctx, chromedp.Func(func(ctx context.Context, tg *chromedp.Target) error {
			_, err := cdp.Call(ctx, tg, emulation.SetScriptExecutionDisabled, emulation.SetScriptExecutionDisabledParams{Value: true})
			return err
		})); err != nil {
			t.Fatal(err)
		}
		err := chromedp.Do(ctx, chromedp.EmulateViewport(1280, 900), chromedp.Navigate(e.URL+"/catalogue?status=never"))
		if err != nil {
			t.Fatal(err)
		}
		s := state(t, ctx)
		n := want.Summary.Never
		checkSummary("no js, status=never", s, only(catalogue.Never, n))
		checkRows("no js, status=never", s, catalogue.Never, n)
	})
}
