package markdown

import (
	"context"
	"errors"
	"strings"
	"sync"
	"testing"
)

// seesSecret is a reader who may see octo/secret and its issue 2.
type seesSecret struct{ fakeResolver }

func (s *seesSecret) Repo(ctx context.Context, full string) (string, bool, error) {
	if strings.EqualFold(full, "octo/secret") {
		return "octo/secret", true, nil
	}
	return s.fakeResolver.Repo(ctx, full)
}

func (s *seesSecret) Issue(ctx context.Context, full string, n int64) (bool, bool, error) {
	if full == "octo/secret" && n == 2 {
		return false, true, nil
	}
	return s.fakeResolver.Issue(ctx, full, n)
}

// TestCacheKeepsReadersApart: the cache holds documents before their
// references are resolved, so one reader's private links never reach
// another, in either order, and each render still asks the resolver.
func TestCacheKeepsReadersApart(t *testing.T) {
	src := "octo/secret#2 and octo/hello#1 " + t.Name()
	private := `href="https://hub.example/octo/secret/issues/2"`
	public := `href="https://hub.example/octo/hello/issues/1"`
	for i, order := range [][]bool{{true, false, true}, {false, true, false}} {
		src := src + itoa(int64(i+1)) // a fresh document for each order
		for _, insider := range order {
			var res Resolver = &fakeResolver{}
			if insider {
				res = &seesSecret{}
			}
			out, err := Render(context.Background(), src, Options{Comment: true, Web: "https://hub.example", Resolver: res})
			if err != nil {
				t.Fatal(err)
			}
			if strings.Contains(out, private) != insider || !strings.Contains(out, public) {
				t.Fatalf("insider %v: %s", insider, out)
			}
		}
	}
	// Options that change the document are in the key.
	for _, o := range []Options{{}, {Comment: true}, {Comment: true, Resolver: &fakeResolver{}}, {Comment: true, Resolver: &fakeResolver{}, Context: "octo/hello"}} {
		want, err := renderUncached(context.Background(), "a\nb #1 @mona", o)
		if err != nil {
			t.Fatal(err)
		}
		for range 2 {
			if got, _ := Render(context.Background(), "a\nb #1 @mona", o); got != want {
				t.Fatalf("%+v: cached %q, want %q", o, got, want)
			}
		}
	}
}

func TestCacheIsBounded(t *testing.T) {
	c := newLRU(64 << 10)
	for i := range 1000 {
		src := strings.Repeat("x", 1000) + itoa(int64(i))
		o := Options{}
		p, err := prepare(context.Background(), src, &o)
		if err != nil {
			t.Fatal(err)
		}
		c.put(keyOf(src, &o), p)
		if c.used > c.max {
			t.Fatalf("%d bytes used of %d", c.used, c.max)
		}
	}
	if n := c.len(); n == 0 || n > 64 {
		t.Fatalf("%d entries", n)
	}
	// The most recent is kept, the first is gone.
	last := strings.Repeat("x", 1000) + "999"
	if c.get(keyOf(last, &Options{})) == nil || c.get(keyOf(strings.Repeat("x", 1000)+"0", &Options{})) != nil {
		t.Fatal("not least recently used")
	}
	// A document too large to share the cache is not kept.
	big := strings.Repeat("y", 64<<10)
	p, _ := prepare(context.Background(), big, &Options{})
	c.put(keyOf(big, &Options{}), p)
	if c.get(keyOf(big, &Options{})) != nil {
		t.Fatal("huge document cached")
	}
}

// TestRenderStopsWithItsRequest: a cancelled context stops rendering and
// leaves nothing in the cache.
func TestRenderStopsWithItsRequest(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	src := "# " + t.Name() + "\n\n" + doc20k()
	for _, o := range []Options{{}, commentOptions} {
		if _, err := Render(ctx, src, o); !errors.Is(err, context.Canceled) {
			t.Fatalf("%+v: err %v", o, err)
		}
		if cache.get(keyOf(src, &o)) != nil {
			t.Fatal("a cancelled render was cached")
		}
	}
	// The scan checks too, between tokens of a long document.
	o := Options{Comment: true, Resolver: &fakeResolver{}}
	if _, err := scan(ctx, []byte(strings.Repeat("<p>@mona</p>", 5000)), &o); !errors.Is(err, context.Canceled) {
		t.Fatalf("scan: %v", err)
	}
}

// TestCacheConcurrent renders shared and distinct documents from many
// goroutines (run with -race): each gets what rendering alone gives.
func TestCacheConcurrent(t *testing.T) {
	docs := []string{"# shared\n\n@mona #1 " + t.Name(), "*one* " + t.Name(), "two @mona " + t.Name()}
	want := make([]string, len(docs))
	for i, d := range docs {
		var err error
		if want[i], err = renderUncached(context.Background(), d, commentOptions); err != nil {
			t.Fatal(err)
		}
	}
	var wg sync.WaitGroup
	errs := make(chan string, 64)
	for g := range 8 {
		wg.Go(func() {
			for i := range 50 {
				k := (g + i) % len(docs)
				got, err := Render(context.Background(), docs[k], Options{Comment: true, Context: "octo/hello", Resolver: &fakeResolver{}})
				if err != nil || got != want[k] {
					errs <- got
					return
				}
			}
		})
	}
	wg.Wait()
	close(errs)
	for e := range errs {
		t.Fatalf("concurrent render gave %q", e)
	}
}
