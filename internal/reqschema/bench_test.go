package reqschema

import (
	"encoding/json"
	"testing"

	"github.com/hubd/hubd/internal/reqschema/ojson"
)

var issueBody = []byte(`{"title":"Found a bug","body":"I'm having a problem with this.\n\nSteps:\n1. run it\n2. watch it fail","assignees":["octocat","hubot"],"milestone":1,"labels":["bug","needs triage"]}`)

// BenchmarkValidateIssueCreate is what the server adds to a request:
// parse the body into ordered values and check it against issues/create.
func BenchmarkValidateIssueCreate(b *testing.B) {
	body := For("issues/create")
	if body == nil {
		b.Fatal("no schema")
	}
	b.ReportAllocs()
	for b.Loop() {
		v, err := ojson.Parse(issueBody)
		if err != nil {
			b.Fatal(err)
		}
		if errs := body.Validate(v); errs != nil {
			b.Fatal(errs)
		}
	}
}

// BenchmarkDecodeIssueCreate is the handler's own decoding, for scale.
func BenchmarkDecodeIssueCreate(b *testing.B) {
	type req struct {
		Title     any             `json:"title"`
		Body      *string         `json:"body"`
		Assignees []string        `json:"assignees"`
		Milestone json.RawMessage `json:"milestone"`
		Labels    []any           `json:"labels"`
	}
	b.ReportAllocs()
	for b.Loop() {
		var r req
		if err := json.Unmarshal(issueBody, &r); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkCompileIssueCreate is the one-time cost per operation.
func BenchmarkCompileIssueCreate(b *testing.B) {
	For("issues/create") // loads the index
	b.ReportAllocs()
	for b.Loop() {
		if _, err := Compile("issues/create"); err != nil {
			b.Fatal(err)
		}
	}
}
