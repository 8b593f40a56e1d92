package search

import (
	"strings"
	"testing"

	"github.com/hubd/hubd/internal/store"
)

// show writes a parsed node compactly: and(...), or(...), not(...),
// key:value, "term".
func show(n *node) string {
	switch n.op {
	case opTerm:
		return `"` + n.text + `"`
	case opQual:
		return n.key + ":" + n.value
	case opTrue:
		return "true"
	}
	name := map[op]string{opAnd: "and", opOr: "or", opNot: "not"}[n.op]
	var kids []string
	for _, k := range n.kids {
		kids = append(kids, show(k))
	}
	return name + "(" + strings.Join(kids, " ") + ")"
}

func TestParse(t *testing.T) {
	known := func(k string) bool { return k == "label" || k == "repo" || k == "is" }
	for _, tc := range []struct{ q, want string }{
		{`crash`, `"crash"`},
		{`crash startup`, `and("crash" "startup")`},
		{`"hello world" label:"help wanted"`, `and("hello world" label:"help wanted")`},
		{`-label:bug`, `not(label:bug)`},
		{`NOT foo`, `not("foo")`},
		{`-foo`, `not("foo")`},
		{`a OR b c`, `or("a" and("b" "c"))`},
		{`(repo:a/b OR repo:c/d) is:open`, `and(or(repo:a/b repo:c/d) is:open)`},
		{`( crash ) label:bug`, `and("crash" label:bug)`},
		{`foo:bar`, `"foo:bar"`},
		{`label:`, `"label:"`},
		{`a AND b`, `and("a" "b")`},
		{`((a)`, `"a"`},
		{`a))`, `"a"`},
		{`OR a`, `"a"`},
		{`a OR`, `"a"`},
		{`NOT`, `"NOT"`},
		{`foo(bar)`, `"foo(bar)"`},
		{`"unterminated phrase`, `"unterminated phrase"`},
		{`label:"a b")`, `label:"a b"`},
		{``, `and()`},
	} {
		n, _ := parse(tc.q, known)
		if got := show(n); got != tc.want {
			t.Errorf("parse(%q) = %s, want %s", tc.q, got, tc.want)
		}
	}
	_, p := parse("a OR b AND c NOT d", known)
	if p.ops != 3 {
		t.Errorf("operators = %d, want 3", p.ops)
	}
}

func TestSplitList(t *testing.T) {
	got := splitList(`bug,"help wanted",,x`)
	if strings.Join(got, "|") != "bug|help wanted|x" {
		t.Errorf("splitList = %q", got)
	}
}

func TestRanges(t *testing.T) {
	day := int64(86400)
	d := func(s string) int64 { b, _ := date(s); return b.start }
	for _, tc := range []struct {
		v      string
		lo, hi *int64
	}{
		{"5", p(5), p(6)},
		{">5", p(6), nil},
		{">=5", p(5), nil},
		{"<5", nil, p(5)},
		{"<=5", nil, p(6)},
		{"2..4", p(2), p(5)},
		{"*..4", nil, p(5)},
		{"2..*", p(2), nil},
	} {
		r, err := countRange(tc.v)
		if err != nil || !same(r.Lo, tc.lo) || !same(r.Hi, tc.hi) {
			t.Errorf("countRange(%q) = %v %v, %v", tc.v, show64(r.Lo), show64(r.Hi), err)
		}
	}
	r, err := dateRange(">2016-04-29")
	if err != nil || *r.Lo != d("2016-04-29")+day || r.Hi != nil {
		t.Errorf("dateRange(>day) = %v, %v", r, err)
	}
	r, err = dateRange("2017-01-01T01:00:00+07:00..2017-03-01T15:30:15Z")
	if err != nil || *r.Lo != d("2016-12-31")+18*3600 || *r.Hi != d("2017-03-01")+15*3600+30*60+16 {
		t.Errorf("dateRange(times) = %v %v, %v", show64(r.Lo), show64(r.Hi), err)
	}
	if _, err := dateRange(">blah"); err == nil || !strings.Contains(err.Error(), "validation") {
		t.Errorf("dateRange(>blah) = %v", err)
	}
	if _, err := countRange("many"); err != errNotQualifier {
		t.Errorf("countRange(many) = %v", err)
	}
	if c, _ := constRange(">0", 0); c.Op != store.CondFalse {
		t.Errorf("followers:>0 holds for nothing")
	}
}

func p(v int64) *int64 { return &v }

func same(a, b *int64) bool { return a == nil && b == nil || a != nil && b != nil && *a == *b }

func show64(v *int64) any {
	if v == nil {
		return "nil"
	}
	return *v
}
