package markdown

import (
	"context"
	"strings"
	"testing"
)

// renderUncached renders as Render does, without the cache.
func renderUncached(ctx context.Context, src string, o Options) (string, error) {
	p, err := prepare(ctx, src, &o)
	if err != nil {
		return "", err
	}
	return p.finish(ctx, &o)
}

// benchRender reports, besides wall time, the CPU time per document (GC
// included), which a busy machine inflates less.
func benchRender(b *testing.B, src string, o Options, cached bool) {
	b.SetBytes(int64(len(src)))
	render := renderUncached
	if cached {
		render = Render
	}
	b.ReportAllocs()
	start, n := cpuTime(), 0
	for b.Loop() {
		if _, err := render(context.Background(), src, o); err != nil {
			b.Fatal(err)
		}
		n++
	}
	cpu := cpuTime() - start
	b.ReportMetric(float64(cpu.Nanoseconds())/float64(n), "cpu-ns/op")
	b.ReportMetric(float64(len(src))*float64(n)/cpu.Seconds()/1e6, "cpu-MB/s")
}

var commentOptions = Options{Comment: true, Context: "octo/hello", Resolver: &fakeResolver{}}

func BenchmarkRenderDocument20KB(b *testing.B) { benchRender(b, doc20k(), Options{}, false) }

func BenchmarkRenderComment20KB(b *testing.B) { benchRender(b, doc20k(), commentOptions, false) }

// The cache spares all but resolving and linking references.
func BenchmarkRenderComment20KBCached(b *testing.B) { benchRender(b, doc20k(), commentOptions, true) }

func BenchmarkRenderDocument20KBCached(b *testing.B) { benchRender(b, doc20k(), Options{}, true) }

// BenchmarkPathological64KB renders each pathological input of 64 KB (the
// largest issue or comment body) as a comment.
func BenchmarkPathological64KB(b *testing.B) {
	for _, p := range pathological(64 << 10) {
		b.Run(p.name, func(b *testing.B) { benchRender(b, p.src, commentOptions, false) })
	}
}

// BenchmarkRender1MB measures time and allocations on 1 MB documents: an
// ordinary one and some of the worst pathological ones.
func BenchmarkRender1MB(b *testing.B) {
	doc := strings.Repeat(doc20k(), 52)
	b.Run("document", func(b *testing.B) { benchRender(b, doc, Options{}, false) })
	b.Run("comment", func(b *testing.B) { benchRender(b, doc, commentOptions, false) })
	for _, p := range pathological(1 << 20) {
		switch p.name {
		case "nested-quotes", "link-open", "brackets-nested", "table-rows", "link-definition-huge", "backtick-runs", "task-lists":
			b.Run(p.name, func(b *testing.B) { benchRender(b, p.src, commentOptions, false) })
		}
	}
}
