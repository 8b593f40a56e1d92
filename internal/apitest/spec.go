package apitest

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/getkin/kin-openapi/openapi3filter"
	"github.com/getkin/kin-openapi/routers"

	"github.com/hubd/hubd/internal/catalogue"
)

// Specs are GitHub's descriptions, loaded once per test binary: ghec first,
// then ghes-3.19 for the operations only Enterprise Server has (the admin
// API). A missing package is a failure, never a skip: `make test` installs it.
//
// Parsing a description costs seconds of CPU in every test binary, so ghec
// is loaded up front and ghes-3.19 only when an operation is not in ghec
// (the answer is the same as loading both first: ghec is always asked first).
type Specs struct {
	flavours []*flavour
}

// flavour is one description, parsed on first use.
type flavour struct {
	name string
	once sync.Once
	doc  *openapi3.T
	err  error
}

func (f *flavour) load() (*openapi3.T, error) {
	f.once.Do(func() {
		path := filepath.Join(Root(), "node_modules", "@octokit", "openapi", "generated", f.name+".json")
		f.doc, f.err = openapi3.NewLoader().LoadFromFile(path)
		if f.err != nil {
			f.err = fmt.Errorf("load %s.json (run `make deps`): %w", f.name, f.err)
		}
	})
	return f.doc, f.err
}

var (
	specsOnce sync.Once
	specs     *Specs
	specsErr  error
)

// Root is the repository root (the directory holding go.mod).
func Root() string {
	dir, _ := os.Getwd()
	for d := dir; ; d = filepath.Dir(d) {
		if _, err := os.Stat(filepath.Join(d, "go.mod")); err == nil {
			return d
		}
		if filepath.Dir(d) == d {
			return dir
		}
	}
}

// LoadSpecs loads the descriptions (once; the second on first use).
func LoadSpecs() (*Specs, error) {
	specsOnce.Do(func() {
		s := &Specs{flavours: []*flavour{{name: "ghec"}, {name: "ghes-3.19"}}}
		if _, err := s.flavours[0].load(); err != nil {
			specsErr = err
			return
		}
		specs = s
	})
	return specs, specsErr
}

// Operation finds the operation of a method and spec path in the first
// flavour that has it. A description that fails to load (only a later one
// can, the first loaded in LoadSpecs) fails the test binary loudly: an
// operation must not look undescribed because its description is missing.
func (s *Specs) Operation(method, path string) (*openapi3.T, *openapi3.PathItem, *openapi3.Operation) {
	for _, f := range s.flavours {
		doc, err := f.load()
		if err != nil {
			panic("apitest: " + err.Error())
		}
		if item := doc.Paths.Find(path); item != nil {
			if op := item.GetOperation(method); op != nil {
				return doc, item, op
			}
		}
	}
	return nil, nil, nil
}

// Validate checks one response against its operation's schema. pattern is
// the route pattern ({name...} wildcards are the spec's {name}). It returns
// nil when the body is valid or the failure is allowlisted.
func (s *Specs) Validate(req *http.Request, pattern string, params map[string]string, status int, header http.Header, body []byte) error {
	method := req.Method
	if method == http.MethodHead {
		method = http.MethodGet
	}
	path := catalogue.SpecPath(pattern)
	doc, item, op := s.Operation(method, path)
	if op == nil {
		return fmt.Errorf("%s %s is not an operation of GitHub's description", method, path)
	}
	declared := op.Responses.Status(status) != nil || op.Responses.Default() != nil
	if !declared {
		// GitHub redirects every path below a renamed repository, though the
		// description declares 301 on few operations: such a redirect must
		// still carry GitHub's body.
		if status >= 400 || status == http.StatusMovedPermanently || status == http.StatusTemporaryRedirect {
			return validateErrorShape(body)
		}
		if status == http.StatusNotModified {
			return nil
		}
		return fmt.Errorf("%s %s: status %d is not declared by the description", method, path, status)
	}
	ct := header.Get("Content-Type")
	if len(body) == 0 || !strings.Contains(ct, "json") {
		return nil
	}
	in := &openapi3filter.ResponseValidationInput{
		RequestValidationInput: &openapi3filter.RequestValidationInput{
			Request:    req,
			PathParams: params,
			Route:      &routers.Route{Spec: doc, Path: path, PathItem: item, Method: method, Operation: op},
		},
		Status:  status,
		Header:  header,
		Body:    io.NopCloser(bytes.NewReader(body)),
		Options: &openapi3filter.Options{IncludeResponseStatus: true, MultiError: true},
	}
	in.Header = header.Clone()
	in.Header.Set("Content-Type", responseMediaType(op, status, req.Header.Get("Accept")))
	err := openapi3filter.ValidateResponse(context.Background(), in)
	if err == nil {
		return nil
	}
	return filterAllowed(op.OperationID, status, err)
}

// responseMediaType picks the declared content the body is checked against:
// the GitHub media type the client asked for when the operation declares
// one for it (application/vnd.github.object for contents, say), otherwise
// application/json.
func responseMediaType(op *openapi3.Operation, status int, accept string) string {
	ref := op.Responses.Status(status)
	if ref == nil || ref.Value == nil {
		return "application/json"
	}
	for _, part := range strings.Split(accept, ",") {
		t := strings.TrimSpace(strings.SplitN(part, ";", 2)[0])
		t = strings.TrimSuffix(t, "+json")
		t = strings.Replace(t, "application/vnd.github.v3.", "application/vnd.github.", 1)
		if t == "application/json" || !strings.HasPrefix(t, "application/vnd.github.") {
			continue
		}
		if _, ok := ref.Value.Content[t]; ok {
			return t
		}
		// The description names some with their version and format
		// (application/vnd.github.v3.star+json of GET /user/starred).
		if v3 := "application/vnd.github.v3." + strings.TrimPrefix(t, "application/vnd.github.") + "+json"; ref.Value.Content[v3] != nil {
			return v3
		}
	}
	if _, ok := ref.Value.Content["application/json"]; !ok {
		// SCIM's operations declare only application/scim+json.
		if _, ok := ref.Value.Content["application/scim+json"]; ok {
			return "application/scim+json"
		}
	}
	return "application/json"
}

func init() {
	// GitHub's object media types carry JSON.
	for _, ct := range []string{"application/vnd.github.object", "application/vnd.github.raw+json", "application/scim+json"} {
		openapi3filter.RegisterBodyDecoder(ct, openapi3filter.JSONBodyDecoder)
	}
}

// validateErrorShape checks an error body that the description does not
// declare for its status: GitHub's basic-error shape.
func validateErrorShape(body []byte) error {
	if !bytes.Contains(body, []byte(`"message"`)) || !bytes.Contains(body, []byte(`"documentation_url"`)) {
		return fmt.Errorf("error body is not GitHub's error JSON: %.200s", body)
	}
	return nil
}

// Declares reports whether the operation of a route pattern declares status.
func (s *Specs) Declares(method, pattern string, status int) bool {
	if method == http.MethodHead {
		method = http.MethodGet
	}
	_, _, op := s.Operation(method, catalogue.SpecPath(pattern))
	return op != nil && op.Responses.Status(status) != nil
}
