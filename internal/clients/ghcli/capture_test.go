//go:build ghgraphql

// TestGhCapture is a tool more than a test: it runs gh commands against a
// hubd whose /api/graphql is a recorder answering every query with a
// GraphQL error — except gh's feature detection (__type lookups), answered
// from GitHub's published schema so that gh goes on to its real query — and
// writes the GraphQL queries gh sent to
// internal/graphql/testdata/gh-queries/ (a .graphql and a .json of
// variables per query, README.md listing every request of every command),
// plus fields.md, the field lists of gh's query builder read from gh's
// source in the module cache. Run it with
//
//	go test -tags ghgraphql -run TestGhCapture ./internal/clients/ghcli/
//
// It keeps the build tag when TestGhGraphQL joins the suite.

package ghcli_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"

	"github.com/hubd/hubd/internal/apitest"
	"github.com/hubd/hubd/internal/clients/ghcli"
)

// captureMessage is the error the recorder answers with.
const captureMessage = "hubd capture: this GraphQL request was recorded, not answered"

// captured is one gh command of the capture: name is the file name stem,
// dir where it runs ("" for the clone of mona/hello).
type captured struct {
	name string
	args []string
	dir  string
}

var captureCommands = []captured{
	{name: "auth-login", args: []string{"auth", "login", "--hostname", ghcli.Host, "--with-token", "--insecure-storage", "--git-protocol", "https"}, dir: "home"},
	{name: "repo-view", args: []string{"repo", "view"}},
	{name: "repo-list", args: []string{"repo", "list"}},
	{name: "repo-clone", args: []string{"repo", "clone", "mona/hello", "hello-clone"}, dir: "home"},
	{name: "issue-list", args: []string{"issue", "list"}},
	{name: "issue-view", args: []string{"issue", "view", "1"}},
	{name: "issue-create", args: []string{"issue", "create", "--title", "Made by gh", "--body", "gh issue create wrote this"}},
	{name: "issue-status", args: []string{"issue", "status"}},
	{name: "pr-list", args: []string{"pr", "list"}},
	{name: "pr-view", args: []string{"pr", "view", "4"}},
	{name: "pr-create", args: []string{"pr", "create", "--title", "A topic", "--body", "From gh pr create", "--base", "main", "--head", "topic"}},
	{name: "pr-status", args: []string{"pr", "status"}},
	{name: "pr-checkout", args: []string{"pr", "checkout", "4"}},
	{name: "label-list", args: []string{"label", "list"}},
	{name: "search-issues", args: []string{"search", "issues", "x"}},
	{name: "org-list", args: []string{"org", "list"}},
}

func TestGhCapture(t *testing.T) {
	outDir := filepath.Join(apitest.Root(), "internal", "graphql", "testdata", "gh-queries")
	e := apitest.New(t)
	w := newWorld(t, e)
	types, err := loadSchemaTypes()
	if err != nil {
		t.Fatal(err)
	}
	recorder := http.HandlerFunc(func(rw http.ResponseWriter, r *http.Request) {
		rw.Header().Set("Content-Type", "application/json; charset=utf-8")
		var q ghcli.GraphQL
		json.NewDecoder(r.Body).Decode(&q)
		if data, ok := introspect(types, q.Query); ok {
			json.NewEncoder(rw).Encode(map[string]any{"data": data})
			return
		}
		json.NewEncoder(rw).Encode(map[string]any{"data": nil, "errors": []any{map[string]any{"type": "CAPTURED", "message": captureMessage}}})
	})
	g := ghcli.Start(t, e, ghcli.Options{GraphQL: recorder})
	g.LoginAs("mona", w.tok)

	// The clone gh resolves its repository from (origin), made with git and
	// gh's credential helper since gh repo clone asks GraphQL first; it has
	// the pushed branch topic for gh pr create, and main checked out.
	g.Must("auth", "setup-git", "--hostname", ghcli.Host)
	g.Git(g.Home, "clone", "https://hubd.test/mona/hello.git")
	clone := filepath.Join(g.Home, "hello")
	g.Git(clone, "checkout", "-b", "topic")
	if err := os.WriteFile(filepath.Join(clone, "topic.txt"), []byte("a topic\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	g.Git(clone, "add", "topic.txt")
	g.Git(clone, "commit", "-m", "Add topic")
	g.Git(clone, "push", "origin", "topic")
	g.Git(clone, "checkout", "main")

	if err := os.MkdirAll(outDir, 0o755); err != nil {
		t.Fatal(err)
	}
	old, _ := filepath.Glob(filepath.Join(outDir, "*"))
	for _, f := range old {
		if err := os.Remove(f); err != nil {
			t.Fatal(err)
		}
	}

	var index strings.Builder
	fmt.Fprintf(&index, `# GraphQL queries gh %s sends

Written by TestGhCapture (internal/clients/ghcli/capture_test.go, build tag ghgraphql): each
command below ran against hubd with /api/graphql replaced by a recorder that answers every query
with `+"`"+`{"data":null,"errors":[{"type":"CAPTURED","message":"%s"}]}`+"`"+`, so a command stops
at its first query that needs data. gh's feature detection (queries made only of
`+"`"+`__type(name: ...){fields|enumValues(includeDeprecated: true){name}}`+"`"+`) is answered from GitHub's
published schema (@octokit/graphql-schema's schema.json, github.com's schema), so gh goes on to the
query it builds when every field exists; hubd's own introspection decides what gh asks of it
(detection queries gh sends at once are listed in name order). gh's answer cache was emptied before
each command. REST requests went to hubd itself. Data: user mona (token
scopes %s) with the repository mona/hello (issues 1 and 2 open, 1 labelled bug, 3 closed, pull
request 4 from branch feature, pushed branch topic), the organization acme. Commands ran in a clone
of mona/hello (origin https://hubd.test/mona/hello.git) on main unless marked "home". Regenerate:

    go test -tags ghgraphql -run TestGhCapture ./internal/clients/ghcli/

fields.md lists the field sets of gh's query builder.

`, ghcli.Version, captureMessage, apitest.AllScopes)

	for _, c := range captureCommands {
		dir, where := clone, "clone"
		if c.dir == "home" {
			dir, where = g.Home, "home"
		}
		stdin := ""
		if c.args[0] == "auth" {
			stdin = w.tok + "\n"
		}
		// gh caches answers (feature detection for a day): each command
		// starts without, so it sends every query it needs.
		if err := os.RemoveAll(filepath.Join(g.Home, ".cache")); err != nil {
			t.Fatal(err)
		}
		r := g.RunIn(dir, stdin, c.args...)
		if len(r.Requests) == 0 {
			t.Errorf("gh %s made no request:\n%s", strings.Join(c.args, " "), r)
		}
		// gh sends some feature detection queries at once (gh pr status):
		// a run of them is put in name order, so the files do not depend on
		// which arrived first.
		reqs := r.Requests
		isDetection := func(rq ghcli.Request) bool {
			_, ok := introspect(types, graphQLText(rq))
			return ok
		}
		for i := 0; i < len(reqs); {
			j := i
			for j < len(reqs) && isDetection(reqs[j]) {
				j++
			}
			if j == i {
				i++
				continue
			}
			sort.SliceStable(reqs[i:j], func(a, b int) bool {
				return operationName(reqs[i+a].GraphQL) < operationName(reqs[i+b].GraphQL)
			})
			i = j
		}
		var queries []ghcli.Request
		for _, rq := range reqs {
			if rq.GraphQL != nil {
				queries = append(queries, rq)
			}
		}
		fmt.Fprintf(&index, "## gh %s (%s)\n\nexit %d", strings.Join(c.args, " "), where, r.Code)
		if msg := firstLine(r.Stderr); msg != "" {
			fmt.Fprintf(&index, ": `%s`", msg)
		}
		index.WriteString("\n\n")
		qn := 0
		for _, rq := range reqs {
			if rq.GraphQL == nil {
				fmt.Fprintf(&index, "- %s %s → %d\n", rq.Method, rq.Path, rq.Status)
				continue
			}
			qn++
			stem := c.name
			if len(queries) > 1 {
				stem = fmt.Sprintf("%s.%d", c.name, qn)
			}
			writeQuery(t, outDir, stem, c, qn, len(queries), rq.GraphQL)
			answer := "error"
			if _, ok := introspect(types, rq.GraphQL.Query); ok {
				answer = "answered from the schema"
			}
			fmt.Fprintf(&index, "- POST /api/graphql (%s): %s `%s.graphql`\n", answer, operationName(rq.GraphQL), stem)
		}
		index.WriteString("\n")
	}
	if err := os.WriteFile(filepath.Join(outDir, "README.md"), []byte(index.String()), 0o644); err != nil {
		t.Fatal(err)
	}

	fields, err := ghFields()
	if err != nil {
		t.Fatalf("fields.md: %v", err)
	}
	if err := os.WriteFile(filepath.Join(outDir, "fields.md"), []byte(fields), 0o644); err != nil {
		t.Fatal(err)
	}
	n, _ := filepath.Glob(filepath.Join(outDir, "*.graphql"))
	if len(n) == 0 {
		t.Fatal("gh sent no GraphQL query at all")
	}
	t.Logf("wrote %d queries to %s", len(n), outDir)
}

// schemaType is a type of GitHub's published GraphQL schema: its field and
// enum value names.
type schemaType struct {
	Fields     []struct{ Name string } `json:"fields"`
	EnumValues []struct{ Name string } `json:"enumValues"`
}

func loadSchemaTypes() (map[string]schemaType, error) {
	path := filepath.Join(apitest.Root(), "node_modules", "@octokit", "graphql-schema", "schema.json")
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("GitHub's GraphQL schema (run `make deps`): %v", err)
	}
	var doc struct {
		Schema struct {
			Types []struct {
				Name string `json:"name"`
				schemaType
			} `json:"types"`
		} `json:"__schema"`
	}
	if err := json.Unmarshal(b, &doc); err != nil {
		return nil, fmt.Errorf("%s: %v", path, err)
	}
	m := map[string]schemaType{}
	for _, t := range doc.Schema.Types {
		m[t.Name] = t.schemaType
	}
	if len(m) == 0 {
		return nil, fmt.Errorf("%s: no types", path)
	}
	return m, nil
}

var typeLookupRE = regexp.MustCompile(`(\w+)\s*:\s*__type\(name:\s*"(\w+)"\)\s*\{\s*(fields|enumValues)\(includeDeprecated:\s*true\)\s*\{\s*name\s*\}\s*\}`)

// introspect answers a query made only of gh's feature detection lookups
// (alias: __type(name: "T"){fields(includeDeprecated: true){name}}, or
// enumValues); ok is false for any other query.
func introspect(types map[string]schemaType, query string) (data map[string]any, ok bool) {
	open, end := strings.Index(query, "{"), strings.LastIndex(query, "}")
	if open < 0 || end <= open {
		return nil, false
	}
	body := query[open+1 : end]
	ms := typeLookupRE.FindAllStringSubmatch(body, -1)
	rest := strings.Trim(typeLookupRE.ReplaceAllString(body, ""), " ,\n\t")
	if len(ms) == 0 || rest != "" {
		return nil, false
	}
	data = map[string]any{}
	for _, m := range ms {
		t, found := types[m[2]]
		if !found {
			data[m[1]] = nil
			continue
		}
		src := t.Fields
		if m[3] == "enumValues" {
			src = t.EnumValues
		}
		names := []map[string]string{}
		for _, f := range src {
			names = append(names, map[string]string{"name": f.Name})
		}
		data[m[1]] = map[string]any{m[3]: names}
	}
	return data, true
}

func graphQLText(rq ghcli.Request) string {
	if rq.GraphQL == nil {
		return ""
	}
	return rq.GraphQL.Query
}

func firstLine(s string) string {
	s, _, _ = strings.Cut(strings.TrimSpace(s), "\n")
	return strings.TrimSpace(s)
}

var opNameRE = regexp.MustCompile(`\b(query|mutation|subscription)\s+([A-Za-z_][A-Za-z0-9_]*)`)

// operationName is the request's operation name, or the one its document
// declares, or "anonymous query".
func operationName(q *ghcli.GraphQL) string {
	if q.OperationName != "" {
		return q.OperationName
	}
	if m := opNameRE.FindStringSubmatch(q.Query); m != nil {
		return m[2]
	}
	return "anonymous query"
}

func writeQuery(t *testing.T, dir, stem string, c captured, n, of int, q *ghcli.GraphQL) {
	t.Helper()
	var b strings.Builder
	fmt.Fprintf(&b, "# gh %s: gh %s, query %d of %d (%s)\n", ghcli.Version, strings.Join(c.args, " "), n, of, operationName(q))
	b.WriteString(strings.TrimSpace(q.Query))
	b.WriteString("\n")
	if err := os.WriteFile(filepath.Join(dir, stem+".graphql"), []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	vars := []byte("{}")
	if len(q.Variables) > 0 && string(q.Variables) != "null" {
		var buf bytes.Buffer
		if err := json.Indent(&buf, q.Variables, "", "  "); err != nil {
			t.Fatalf("variables of %s: %v", stem, err)
		}
		vars = buf.Bytes()
	}
	if err := os.WriteFile(filepath.Join(dir, stem+".json"), append(vars, '\n'), 0o644); err != nil {
		t.Fatal(err)
	}
}
