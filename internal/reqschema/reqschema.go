// Package reqschema validates request bodies against the schema of their
// operation in GitHub's description, before any handler runs, and words the
// failures as GitHub does ("Invalid request.\n\n\"title\" wasn't
// supplied."). The schemas are data: gen extracts them from the description
// into schemas.json.gz (a few tens of kilobytes), so a new operation is
// covered without code, and the binary never loads the description itself.
// Each operation's schema is compiled the first time a request needs it.
package reqschema

//go:generate go run ./gen -spec ../../node_modules/@octokit/openapi/generated -out schemas.json.gz

import (
	"bytes"
	"compress/gzip"
	_ "embed"
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"sync"

	"github.com/hubd/hubd/internal/reqschema/ojson"
)

//go:embed schemas.json.gz
var packed []byte

type entry struct {
	Required bool            `json:"required"`
	Schema   json.RawMessage `json:"schema"`
}

var (
	indexOnce sync.Once
	index     map[string]entry
	indexErr  error
	compiled  sync.Map // operationId -> *Body (nil *Body: no JSON body)
)

func loadIndex() {
	zr, err := gzip.NewReader(bytes.NewReader(packed))
	if err != nil {
		indexErr = err
		return
	}
	raw, err := io.ReadAll(zr)
	if err != nil {
		indexErr = err
		return
	}
	indexErr = json.Unmarshal(raw, &index)
}

// Body is the request body of one operation.
type Body struct {
	// Required is the description's requestBody.required: an operation
	// whose body is optional accepts an empty one without validation.
	Required bool
	root     *Schema
}

// For returns the JSON request body of an operation, or nil when the
// operation takes none (or only non-JSON bodies, or an override turns
// validation off). It compiles the schema once; concurrent callers are
// safe.
func For(operationID string) *Body {
	if b, ok := compiled.Load(operationID); ok {
		return b.(*Body)
	}
	b, err := compile(operationID)
	if err != nil {
		// The embedded data is generated and checked by the tests; a
		// schema that does not compile must not take the API down.
		b = nil
	}
	actual, _ := compiled.LoadOrStore(operationID, b)
	return actual.(*Body)
}

func compile(operationID string) (*Body, error) {
	indexOnce.Do(loadIndex)
	if indexErr != nil {
		return nil, indexErr
	}
	e, ok := index[operationID]
	if !ok {
		return nil, nil
	}
	if skipped(operationID) {
		return nil, nil
	}
	v, err := ojson.Parse(e.Schema)
	if err != nil {
		return nil, fmt.Errorf("reqschema: %s: %w", operationID, err)
	}
	root, err := build(v, "#")
	if err != nil {
		return nil, fmt.Errorf("reqschema: %s: %w", operationID, err)
	}
	if err := applyOverrides(operationID, root); err != nil {
		return nil, err
	}
	return &Body{Required: e.Required, root: root}, nil
}

// Operations lists the operationIds that have a JSON body schema.
func Operations() ([]string, error) {
	indexOnce.Do(loadIndex)
	if indexErr != nil {
		return nil, indexErr
	}
	ids := make([]string, 0, len(index))
	for id := range index {
		ids = append(ids, id)
	}
	return ids, nil
}

// Compile compiles an operation's schema without caching, reporting errors
// (for tests that check every embedded schema).
func Compile(operationID string) (*Body, error) { return compile(operationID) }

// Validate checks a parsed body and returns GitHub's messages, one per
// failure, or nil when the body is valid.
func (b *Body) Validate(v ojson.Value) []string {
	var errs []verr
	if validate(b.root, v, &errs) {
		return nil
	}
	var out []string
	flatten(errs, &out)
	return out
}

// AcceptsNonObject reports whether the body may be something other than a
// JSON object (add-labels takes an array or a string, for instance); when
// it may not, GitHub answers a non-object body 400 "Body should be a JSON
// object" rather than validating it.
func (b *Body) AcceptsNonObject() bool { return b.root.acceptsNonObject() }

// Message is GitHub's 422 message for the failures Validate returned.
func Message(errs []string) string {
	return "Invalid request.\n\n" + strings.Join(errs, "\n")
}
