package reqschema

import (
	"fmt"
	"strings"
	"testing"

	"github.com/hubd/hubd/internal/reqschema/ojson"
)

// Hostile bodies: the report stays bounded however many items or keys
// fail, and uniqueItems and key lookups stay linear on long inputs.
func TestHostileBodiesStayBounded(t *testing.T) {
	many := func(n int, item string) string {
		return strings.TrimSuffix(strings.Repeat(item+",", n), ",")
	}
	b := mustBuild(t, `{"properties":{"l":{"type":"array","items":{"type":"string"}}},"additionalProperties":false}`)
	v, err := ojson.Parse([]byte(`{"l":[` + many(100000, "1") + `]}`))
	if err != nil {
		t.Fatal(err)
	}
	errs := b.Validate(v)
	if len(errs) != maxMessages || errs[0] != "For 'items', 1 is not a string." {
		t.Fatalf("%d messages, first %q", len(errs), errs[0])
	}
	if msg := Message(errs); len(msg) > 4096 {
		t.Fatalf("message of %d bytes", len(msg))
	}
	var keys strings.Builder
	keys.WriteString(`{"l":[]`)
	for i := 0; i < 50000; i++ {
		fmt.Fprintf(&keys, `,"k%d":1`, i)
	}
	keys.WriteString(`}`)
	v, err = ojson.Parse([]byte(keys.String()))
	if err != nil {
		t.Fatal(err)
	}
	if o := v.(*ojson.Object); len(o.Keys) != 50001 {
		t.Fatalf("%d keys", len(o.Keys))
	} else if got, ok := o.Get("k49999"); !ok || got != ojson.Number("1") {
		t.Fatalf("k49999 = %v %v", got, ok)
	}
	errs = b.Validate(v)
	if len(errs) != 1 || strings.Count(errs[0], `"k`) != maxMessages || !strings.HasSuffix(errs[0], "are not permitted keys.") {
		t.Fatalf("extra keys: %d messages, %.200q", len(errs), errs)
	}
	// A key given twice keeps its last value in its first place, with and
	// without the index.
	v, _ = ojson.Parse([]byte(`{"a":1,` + many(20, `"x":0`) + `,"a":2}`))
	if o := v.(*ojson.Object); len(o.Keys) != 2 || o.Keys[0] != "a" || o.Vals[0] != ojson.Number("2") {
		t.Fatalf("duplicate keys: %v %v", o.Keys, o.Vals)
	}

	u := mustBuild(t, `{"properties":{"l":{"type":"array","uniqueItems":true}}}`)
	long := many(40000, `"x"`)
	for _, c := range []struct {
		body string
		ok   bool
	}{
		{`{"l":[` + strings.Replace(long, `"x"`, `1`, 1) + `]}`, false},              // the other "x"s repeat
		{`{"l":[` + numbers(5000) + `,1.0]}`, false},                                 // 1 == 1.0
		{`{"l":[` + numbers(5000) + `,{"b":1,"a":[2]},{"a":[2.0],"b":1.0}]}`, false}, // equal objects
		{`{"l":[` + numbers(5000) + `,{"b":1,"a":[2]},{"a":[3],"b":1}]}`, true},      // different objects
		{`{"l":[` + numbers(5000) + `,"1"]}`, true},                                  // a string is no number
	} {
		v, err := ojson.Parse([]byte(c.body))
		if err != nil {
			t.Fatal(err)
		}
		if got := u.Validate(v) == nil; got != c.ok {
			t.Errorf("unique %.60s...: valid %v, want %v", c.body, got, c.ok)
		}
	}
}

func numbers(n int) string {
	var b strings.Builder
	for i := 1; i <= n; i++ {
		if i > 1 {
			b.WriteString(",")
		}
		fmt.Fprint(&b, i)
	}
	return b.String()
}
