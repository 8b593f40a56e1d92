package reqschema

import (
	"strings"
	"testing"

	"github.com/hubd/hubd/internal/reqschema/ojson"
)

func mustBuild(t *testing.T, schema string) *Body {
	t.Helper()
	v, err := ojson.Parse([]byte(schema))
	if err != nil {
		t.Fatalf("schema %s: %v", schema, err)
	}
	root, err := build(v, "#")
	if err != nil {
		t.Fatal(err)
	}
	return &Body{Required: true, root: root}
}

// TestKeywords checks each keyword with GitHub's wording.
func TestKeywords(t *testing.T) {
	cases := []struct {
		name, schema, body string
		want               []string // nil: valid
	}{
		{"type string", `{"properties":{"a":{"type":"string"}}}`, `{"a":1}`, []string{"For 'properties/a', 1 is not a string."}},
		{"type integer rejects float", `{"properties":{"a":{"type":"integer"}}}`, `{"a":1.0}`, []string{"For 'properties/a', 1.0 is not an integer."}},
		{"type integer rejects string", `{"properties":{"issue":{"type":"integer"}}}`, `{"issue":"517"}`, []string{`For 'properties/issue', "517" is not an integer.`}},
		{"type number accepts integer", `{"properties":{"a":{"type":"number"}}}`, `{"a":3}`, nil},
		{"type boolean", `{"properties":{"a":{"type":"boolean"}}}`, `{"a":"true"}`, []string{`For 'properties/a', "true" is not a boolean.`}},
		{"type array null", `{"properties":{"labels":{"type":"array"}}}`, `{"labels":null}`, []string{"For 'properties/labels', nil is not an array."}},
		{"type object", `{"properties":{"a":{"type":"object"}}}`, `{"a":[1,"x"]}`, []string{`For 'properties/a', [1, "x"] is not an object.`}},
		{"nullable accepts null", `{"properties":{"a":{"type":"integer","nullable":true}}}`, `{"a":null}`, nil},
		{"nullable names null", `{"properties":{"milestone":{"type":"integer","nullable":true}}}`, `{"milestone":"x"}`, []string{`For 'properties/milestone', "x" is not an integer or null.`}},
		{"three types", `{"properties":{"a":{"type":["string","integer","null"]}}}`, `{"a":true}`, []string{"For 'properties/a', true is not a string, integer, or null."}},
		{"required one", `{"required":["title"]}`, `{}`, []string{`"title" wasn't supplied.`}},
		{"required several sorted", `{"required":["title","body"]}`, `{"x":1}`, []string{`"body", "title" weren't supplied.`}},
		{"enum", `{"properties":{"state":{"type":"string","enum":["open","closed"]}}}`, `{"state":"merged"}`, []string{`merged is not a member of ["open", "closed"].`}},
		{"enum null prints empty", `{"properties":{"state":{"enum":["open","closed"]}}}`, `{"state":null}`, []string{` is not a member of ["open", "closed"].`}},
		{"additionalProperties false one", `{"properties":{"a":{}},"additionalProperties":false}`, `{"a":1,"per_page":2}`, []string{`"per_page" is not a permitted key.`}},
		{"additionalProperties false several", `{"properties":{"a":{}},"additionalProperties":false}`, `{"z":1,"b":2}`, []string{`"b", "z" are not permitted keys.`}},
		{"additionalProperties schema", `{"additionalProperties":{"type":"string"}}`, `{"k":1}`, []string{"For 'additionalProperties', 1 is not a string."}},
		{"items", `{"properties":{"assignees":{"type":"array","items":{"type":"string"}}}}`, `{"assignees":["a",2]}`, []string{"For 'items', 2 is not a string."}},
		{"nested properties", `{"properties":{"author":{"type":"object","properties":{"name":{"type":"string"}},"required":["name","email"]}}}`, `{"author":{"name":5}}`,
			[]string{"For 'properties/name', 5 is not a string.", `"email" wasn't supplied.`}},
		{"oneOf of types collapses", `{"properties":{"labels":{"type":"array","items":{"oneOf":[{"type":"string"},{"type":"object","properties":{"name":{"type":"string"}}}]}}}}`,
			`{"labels":[null]}`, []string{"For 'items', nil is not a string or object."}},
		{"oneOf branch failures", `{"properties":{"a":{"oneOf":[{"type":"object","required":["x"]},{"type":"object","required":["y"]}]}}}`, `{"a":{}}`,
			[]string{`No subschema in "oneOf" matched.`, `"x" wasn't supplied.`, `"y" wasn't supplied.`}},
		{"oneOf overlapping matches", `{"oneOf":[{"type":"object"},{"type":"object"}]}`, `{}`, nil},
		{"anyOf", `{"anyOf":[{"type":"array"},{"type":"object","properties":{"labels":{"type":"array"}}}]}`, `{"labels":{"labels":["x"]}}`,
			[]string{`No subschema in "anyOf" matched.`, `For 'anyOf/0', {"labels" => {"labels" => ["x"]}} is not an array.`, `For 'properties/labels', {"labels" => ["x"]} is not an array.`}},
		{"allOf", `{"allOf":[{"properties":{"a":{"type":"string"}}},{"required":["b"]}]}`, `{"a":1}`,
			[]string{"For 'properties/a', 1 is not a string.", `Not all subschemas of "allOf" matched.`}},
		{"allOf fragment", `{"properties":{"a":{"allOf":[{"type":"string"}]}}}`, `{"a":1}`,
			[]string{"For 'allOf/0', 1 is not a string.", `Not all subschemas of "allOf" matched.`}},
		{"not", `{"properties":{"a":{"not":{"type":"string"}}}}`, `{"a":"x"}`, []string{`Matched "not" subschema.`}},
		{"minimum", `{"properties":{"n":{"type":"integer","minimum":1}}}`, `{"n":0}`, []string{"0 must be greater than or equal to 1."}},
		{"maximum", `{"properties":{"n":{"type":"integer","maximum":100}}}`, `{"n":101}`, []string{"101 must be less than or equal to 100."}},
		{"exclusive maximum", `{"properties":{"n":{"type":"number","maximum":1,"exclusiveMaximum":true}}}`, `{"n":1}`, []string{"1 must be less than 1."}},
		{"minLength", `{"properties":{"s":{"type":"string","minLength":1}}}`, `{"s":""}`, []string{"At least 1 character is required; only 0 were supplied."}},
		{"maxLength counts characters", `{"properties":{"s":{"type":"string","maxLength":2}}}`, `{"s":"ééé"}`, []string{"Only 2 characters are allowed; 3 were supplied."}},
		{"maxLength ok", `{"properties":{"s":{"type":"string","maxLength":3}}}`, `{"s":"ééé"}`, nil},
		{"minItems", `{"properties":{"l":{"type":"array","minItems":1}}}`, `{"l":[]}`, []string{"1 item required; only 0 were supplied."}},
		{"maxItems", `{"properties":{"l":{"type":"array","maxItems":2}}}`, `{"l":[1,2,3]}`, []string{"No more than 2 items are allowed; 3 were supplied."}},
		{"maxItems one", `{"properties":{"l":{"type":"array","maxItems":1}}}`, `{"l":[1,2]}`, []string{"No more than 1 item is allowed; 2 were supplied."}},
		{"uniqueItems", `{"properties":{"l":{"type":"array","uniqueItems":true}}}`, `{"l":[1,1.0]}`, []string{"Duplicate items are not allowed."}},
		{"pattern", `{"properties":{"c":{"type":"string","pattern":"^[0-9a-f]{6}$"}}}`, `{"c":"red"}`, []string{"red does not match /^[0-9a-f]{6}$/."}},
		{"pattern RE2 cannot compile is skipped", `{"properties":{"c":{"type":"string","pattern":"^(?!x).*$"}}}`, `{"c":"xyz"}`, nil},
		{"maxProperties", `{"properties":{"o":{"type":"object","maxProperties":1}}}`, `{"o":{"a":1,"b":2}}`, []string{"No more than 1 property is allowed; 2 were supplied."}},
		{"several failures in schema order", `{"properties":{"title":{"type":"string"},"labels":{"type":"array"}},"required":["title"]}`, `{"labels":null}`,
			[]string{"For 'properties/labels', nil is not an array.", `"title" wasn't supplied.`}},
		{"inspect escapes", `{"properties":{"a":{"type":"integer"}}}`, `{"a":"q\"\n#{x}"}`, []string{`For 'properties/a', "q\"\n\#{x}" is not an integer.`}},
		{"inspect float exponent", `{"properties":{"a":{"type":"integer"}}}`, `{"a":1e20}`, []string{"For 'properties/a', 1.0e+20 is not an integer."}},
		{"empty schema", `{}`, `{"anything":[1]}`, nil},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			b := mustBuild(t, c.schema)
			v, err := ojson.Parse([]byte(c.body))
			if err != nil {
				t.Fatal(err)
			}
			got := b.Validate(v)
			if strings.Join(got, "\n") != strings.Join(c.want, "\n") || (got == nil) != (c.want == nil) {
				t.Errorf("got  %q\nwant %q", got, c.want)
			}
		})
	}
}

func TestMessage(t *testing.T) {
	got := Message([]string{"For 'properties/labels', nil is not an array.", `"title" wasn't supplied.`})
	want := "Invalid request.\n\nFor 'properties/labels', nil is not an array.\n\"title\" wasn't supplied."
	if got != want {
		t.Errorf("got %q", got)
	}
}

func TestAcceptsNonObject(t *testing.T) {
	for schema, want := range map[string]bool{
		`{"type":"object","properties":{"a":{}}}`:                         false,
		`{"properties":{"a":{}}}`:                                         false,
		`{"oneOf":[{"type":"object"},{"type":"array"}]}`:                  true,
		`{"oneOf":[{"type":"object"},{"type":"object","nullable":true}]}`: true,
		`{}`: true,
	} {
		if got := mustBuild(t, schema).AcceptsNonObject(); got != want {
			t.Errorf("%s: got %v", schema, got)
		}
	}
}

// TestEmbedded compiles every operation's embedded schema and checks the
// ones the issue tests rely on.
func TestEmbedded(t *testing.T) {
	ids, err := Operations()
	if err != nil {
		t.Fatal(err)
	}
	if len(ids) < 400 {
		t.Fatalf("only %d operations with a JSON body", len(ids))
	}
	for _, id := range ids {
		if _, err := Compile(id); err != nil {
			t.Errorf("%s: %v", id, err)
		}
	}
	b := For("issues/create")
	if b == nil || !b.Required {
		t.Fatal("issues/create: no required body schema")
	}
	v, _ := ojson.Parse([]byte(`{"labels":null}`))
	got := Message(b.Validate(v))
	want := "Invalid request.\n\nFor 'properties/labels', nil is not an array.\n\"title\" wasn't supplied."
	if got != want {
		t.Errorf("issues/create: got %q", got)
	}
	if For("markdown/render-raw") != nil {
		t.Error("markdown/render-raw takes text/plain: it must have no JSON schema")
	}
	if For("no/such-operation") != nil {
		t.Error("unknown operation has a schema")
	}
}

func TestOverridesResolve(t *testing.T) {
	if _, err := Operations(); err != nil {
		t.Fatal(err)
	}
	for _, o := range overrides {
		if o.Reason == "" {
			t.Errorf("%s %s: no reason", o.OperationID, o.At)
		}
		if _, ok := index[o.OperationID]; !ok {
			t.Errorf("%s: no such operation with a JSON body", o.OperationID)
		}
		if o.Fix == Skip {
			continue
		}
		if _, err := Compile(o.OperationID); err != nil {
			t.Error(err)
		}
	}
}

func TestParseOrder(t *testing.T) {
	v, err := ojson.Parse([]byte(` {"b":1,"a":[true,null,"x\u00e9"],"b":2} `))
	if err != nil {
		t.Fatal(err)
	}
	if got := rubyInspect(v); got != `{"b" => 2, "a" => [true, nil, "xé"]}` {
		t.Errorf("got %s", got)
	}
	for _, bad := range []string{``, `{`, `{"a":}`, `[1,]`, `nul`, `{} {}`} {
		if _, err := ojson.Parse([]byte(bad)); err == nil {
			t.Errorf("%q parsed", bad)
		}
	}
}

// TestConcurrentFor compiles and validates from many goroutines at once
// (run with -race).
func TestConcurrentFor(t *testing.T) {
	ids := []string{"issues/create", "issues/update", "git/create-tree", "repos/create-for-authenticated-user"}
	done := make(chan *Body, 4*len(ids))
	for i := 0; i < 4; i++ {
		for _, id := range ids {
			go func() {
				b := For(id)
				if b != nil {
					v, _ := ojson.Parse([]byte(`{"title":1}`))
					b.Validate(v)
				}
				done <- b
			}()
		}
	}
	seen := map[*Body]bool{}
	for i := 0; i < 4*len(ids); i++ {
		if b := <-done; b != nil {
			seen[b] = true
		}
	}
	if len(seen) != len(ids) {
		t.Errorf("%d distinct compiled bodies, want one per operation (%d)", len(seen), len(ids))
	}
}
