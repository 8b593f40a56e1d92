//go:build ghgraphql

package ghcli_test

import (
	"encoding/json"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"

	"github.com/hubd/hubd/internal/clients/ghcli"
)

// fields.md of the capture (TestGhCapture): the field lists of gh's query
// builder, read from gh's source in the module cache with go/parser.

// ghModuleDir is gh's module directory in the module cache (scripts/deps.sh
// downloads it to build gh).
func ghModuleDir() (string, error) {
	cmd := exec.Command("go", "mod", "download", "-json", "github.com/cli/cli/v2@v"+ghcli.Version)
	cmd.Dir = os.TempDir()
	out, err := cmd.Output()
	if err != nil {
		return "", fmt.Errorf("go mod download gh (run `make deps`): %v", err)
	}
	var m struct{ Dir string }
	if err := json.Unmarshal(out, &m); err != nil || m.Dir == "" {
		return "", fmt.Errorf("go mod download gh: no directory in %s", out)
	}
	return m.Dir, nil
}

// ghSource reads Go files of gh's source.
type ghSource struct {
	dir   string
	fset  *token.FileSet
	files map[string]*ast.File
}

func (s *ghSource) file(rel string) (*ast.File, error) {
	if f, ok := s.files[rel]; ok {
		return f, nil
	}
	f, err := parser.ParseFile(s.fset, filepath.Join(s.dir, rel), nil, 0)
	if err != nil {
		return nil, err
	}
	s.files[rel] = f
	return f, nil
}

// value finds what name is assigned in f (a file or a function): a var, or
// the first `name := ...`.
func value(f ast.Node, name string) ast.Expr {
	var found ast.Expr
	ast.Inspect(f, func(n ast.Node) bool {
		if found != nil {
			return false
		}
		switch n := n.(type) {
		case *ast.ValueSpec:
			for i, id := range n.Names {
				if id.Name == name && i < len(n.Values) {
					found = n.Values[i]
				}
			}
		case *ast.AssignStmt:
			if n.Tok == token.DEFINE {
				for i, l := range n.Lhs {
					if id, ok := l.(*ast.Ident); ok && id.Name == name && i < len(n.Rhs) {
						found = n.Rhs[i]
					}
				}
			}
		}
		return true
	})
	return found
}

// stringList evaluates a []string{...} literal or append(list, ...) in f.
func stringList(f *ast.File, x ast.Expr) ([]string, error) {
	switch x := x.(type) {
	case *ast.CompositeLit:
		var out []string
		for _, el := range x.Elts {
			lit, ok := el.(*ast.BasicLit)
			if !ok || lit.Kind != token.STRING {
				return nil, fmt.Errorf("not a string literal: %T", el)
			}
			s, err := strconv.Unquote(lit.Value)
			if err != nil {
				return nil, err
			}
			out = append(out, s)
		}
		return out, nil
	case *ast.Ident:
		v := value(f, x.Name)
		if v == nil {
			return nil, fmt.Errorf("%s not found", x.Name)
		}
		return stringList(f, v)
	case *ast.CallExpr:
		if fn, ok := x.Fun.(*ast.Ident); ok && fn.Name == "append" {
			var out []string
			for _, a := range x.Args {
				if lit, ok := a.(*ast.BasicLit); ok && lit.Kind == token.STRING {
					s, err := strconv.Unquote(lit.Value)
					if err != nil {
						return nil, err
					}
					out = append(out, s)
					continue
				}
				l, err := stringList(f, a)
				if err != nil {
					return nil, err
				}
				out = append(out, l...)
			}
			return out, nil
		}
	}
	return nil, fmt.Errorf("cannot evaluate %T", x)
}

// list evaluates the string list name in rel, inside the function fn when
// fn is not "".
func (s *ghSource) list(rel, fn, name string) ([]string, error) {
	f, err := s.file(rel)
	if err != nil {
		return nil, err
	}
	var scope ast.Node = f
	if fn != "" {
		for _, d := range f.Decls {
			if fd, ok := d.(*ast.FuncDecl); ok && fd.Name.Name == fn {
				scope = fd
			}
		}
		if scope == ast.Node(f) {
			return nil, fmt.Errorf("%s: no function %s", rel, fn)
		}
	}
	v := value(scope, name)
	if v == nil {
		return nil, fmt.Errorf("%s: %s not found", rel, name)
	}
	l, err := stringList(f, v)
	if err != nil {
		return nil, fmt.Errorf("%s: %s: %v", rel, name, err)
	}
	return l, nil
}

// squeeze drops newlines and tabs, as gh's shortenQuery does.
func squeeze(s string) string { return strings.NewReplacer("\n", "", "\t", "").Replace(s) }

var verbRE = regexp.MustCompile(`%(\[\d+\])?s`)

// selection evaluates what a case of gh's query builder appends: a string,
// a shortenQuery variable, or a call of a builder function (whose template
// is shown with empty arguments).
func selection(f *ast.File, x ast.Expr) (string, error) {
	switch x := x.(type) {
	case *ast.BasicLit:
		return strconv.Unquote(x.Value)
	case *ast.Ident:
		v := value(f, x.Name)
		if v == nil {
			return "", fmt.Errorf("%s not found", x.Name)
		}
		return selection(f, v)
	case *ast.CallExpr:
		fn, ok := x.Fun.(*ast.Ident)
		if !ok {
			return "", fmt.Errorf("cannot evaluate call %T", x.Fun)
		}
		if fn.Name == "shortenQuery" && len(x.Args) == 1 {
			s, err := selection(f, x.Args[0])
			return squeeze(s), err
		}
		for _, a := range x.Args {
			if lit, ok := a.(*ast.BasicLit); !ok || lit.Value != `""` {
				return "", fmt.Errorf("call of %s with arguments", fn.Name)
			}
		}
		var tmpl string
		for _, d := range f.Decls {
			fd, ok := d.(*ast.FuncDecl)
			if !ok || fd.Name.Name != fn.Name {
				continue
			}
			ast.Inspect(fd.Body, func(n ast.Node) bool {
				c, ok := n.(*ast.CallExpr)
				if ok && tmpl == "" {
					if id, ok := c.Fun.(*ast.Ident); ok && id.Name == "shortenQuery" && len(c.Args) == 1 {
						if lit, ok := c.Args[0].(*ast.BasicLit); ok {
							s, _ := strconv.Unquote(lit.Value)
							tmpl = squeeze(s)
						}
					}
				}
				return tmpl == ""
			})
		}
		if tmpl == "" {
			return "", fmt.Errorf("no template in %s", fn.Name)
		}
		return verbRE.ReplaceAllString(tmpl, ""), nil
	}
	return "", fmt.Errorf("cannot evaluate %T", x)
}

// switchTable reads the field switch of a gh query builder function: field
// name to the selection it appends, in source order.
func (s *ghSource) switchTable(rel, fn string) (names []string, sel map[string]string, err error) {
	f, err := s.file(rel)
	if err != nil {
		return nil, nil, err
	}
	sel = map[string]string{}
	for _, d := range f.Decls {
		fd, ok := d.(*ast.FuncDecl)
		if !ok || fd.Name.Name != fn {
			continue
		}
		ast.Inspect(fd.Body, func(n ast.Node) bool {
			cc, ok := n.(*ast.CaseClause)
			if !ok || err != nil || len(cc.List) == 0 || len(cc.Body) == 0 {
				return err == nil
			}
			as, ok := cc.Body[0].(*ast.AssignStmt)
			if !ok || len(as.Rhs) != 1 {
				return true
			}
			call, ok := as.Rhs[0].(*ast.CallExpr)
			if !ok || len(call.Args) != 2 {
				return true
			}
			var v string
			if v, err = selection(f, call.Args[1]); err != nil {
				err = fmt.Errorf("%s: %v", fn, err)
				return false
			}
			for _, c := range cc.List {
				lit, ok := c.(*ast.BasicLit)
				if !ok {
					continue
				}
				name, _ := strconv.Unquote(lit.Value)
				names = append(names, name)
				sel[name] = v
			}
			return true
		})
	}
	if err == nil && len(names) == 0 {
		err = fmt.Errorf("%s: no field switch in %s", rel, fn)
	}
	return names, sel, err
}

// ghFields writes fields.md from gh's source.
func ghFields() (string, error) {
	dir, err := ghModuleDir()
	if err != nil {
		return "", err
	}
	src := &ghSource{dir: dir, fset: token.NewFileSet(), files: map[string]*ast.File{}}
	const qb = "api/query_builder.go"
	issueFields, err := src.list(qb, "", "IssueFields")
	if err != nil {
		return "", err
	}
	prFields, err := src.list(qb, "", "PullRequestFields")
	if err != nil {
		return "", err
	}
	issueOnly, err := src.list(qb, "", "issueOnlyFields")
	if err != nil {
		return "", err
	}
	repoFields, err := src.list(qb, "", "RepositoryFields")
	if err != nil {
		return "", err
	}
	issueNames, issueSel, err := src.switchTable(qb, "IssueGraphQL")
	if err != nil {
		return "", err
	}
	repoNames, repoSel, err := src.switchTable(qb, "RepositoryGraphQL")
	if err != nil {
		return "", err
	}

	var b strings.Builder
	fmt.Fprintf(&b, `# Fields gh %s asks GraphQL for

Written by TestGhCapture (internal/clients/ghcli/capture_test.go, build tag ghgraphql) from gh's
source in the Go module cache (github.com/cli/cli/v2@v%s): api/query_builder.go and the commands'
field lists in pkg/cmd. gh builds the selection of an issue, pull request or repository from a list
of field names; `+"`--json`"+` accepts the names of the sets below. The queries gh actually sent are
the .graphql files beside this one.

`, ghcli.Version, ghcli.Version)

	b.WriteString("## Issues and pull requests\n\n")
	fmt.Fprintf(&b, "`api.IssueFields` (gh issue ... `--json`): %s\n\n", codeList(issueFields))
	fmt.Fprintf(&b, "`api.PullRequestFields` (gh pr ... `--json`): %s\n\n", codeList(prFields))
	fmt.Fprintf(&b, "Issue-only fields, which `api.PullRequestGraphQL` drops before building: %s\n\n", codeList(issueOnly))
	b.WriteString("What `api.IssueGraphQL` selects for a field name (a name not in the table selects itself; ")
	b.WriteString("builder functions are shown with an empty `after` cursor):\n\n| field | selection |\n| --- | --- |\n")
	for _, n := range issueNames {
		fmt.Fprintf(&b, "| `%s` | `%s` |\n", n, issueSel[n])
	}
	b.WriteString("\n## Repositories\n\n")
	fmt.Fprintf(&b, "`api.RepositoryFields` (gh repo ... `--json`): %s\n\n", codeList(repoFields))
	b.WriteString("What `api.RepositoryGraphQL` selects for a field name (a name not in the table selects itself):\n\n| field | selection |\n| --- | --- |\n")
	for _, n := range repoNames {
		fmt.Fprintf(&b, "| `%s` | `%s` |\n", n, repoSel[n])
	}

	build := func(fields []string, sel map[string]string, drop []string) string {
		var q []string
		for _, f := range fields {
			if contains(drop, f) {
				continue
			}
			if s, ok := sel[f]; ok {
				q = append(q, s)
			} else {
				q = append(q, f)
			}
		}
		return strings.Join(q, ",")
	}
	b.WriteString("\n## The commands' field lists\n\nThe selection is what the builder makes of the list.\n")
	for _, c := range []struct {
		title, rel, fn, name, kind string
	}{
		{"gh issue list", "pkg/cmd/issue/list/list.go", "", "defaultFields", "issue"},
		{"gh issue view", "pkg/cmd/issue/view/view.go", "", "defaultFields", "issue"},
		{"gh issue status", "pkg/cmd/issue/status/status.go", "", "defaultFields", "issue"},
		{"gh issue edit (lookup)", "pkg/cmd/issue/edit/edit.go", "editRun", "lookupFields", "issue"},
		{"gh pr list", "pkg/cmd/pr/list/list.go", "", "defaultFields", "pr"},
		{"gh pr view", "pkg/cmd/pr/view/view.go", "", "defaultFields", "pr"},
		{"gh pr status (fragment pr; mergeable and one statusCheckRollup variant are added)", "pkg/cmd/pr/status/http.go", "pullRequestFragment", "fields", "pr"},
		{"gh pr status (fragment prWithReviews adds)", "pkg/cmd/pr/status/http.go", "pullRequestFragment", "reviewFields", "pr"},
		{"gh pr checks (--json names)", "pkg/cmd/pr/checks/checks.go", "", "prCheckFields", ""},
		{"gh repo list", "pkg/cmd/repo/list/list.go", "", "defaultFields", "repo"},
		{"gh repo view", "pkg/cmd/repo/view/view.go", "", "defaultFields", "repo"},
		{"gh label list", "pkg/cmd/label/http.go", "", "defaultFields", ""},
		{"gh label (--json names)", "pkg/cmd/label/shared.go", "", "labelFields", ""},
	} {
		l, err := src.list(c.rel, c.fn, c.name)
		if err != nil {
			return "", err
		}
		fmt.Fprintf(&b, "\n### %s\n\n`%s` in %s: %s\n", c.title, c.name, c.rel, codeList(l))
		switch c.kind {
		case "issue":
			fmt.Fprintf(&b, "\n```graphql\n%s\n```\n", build(l, issueSel, nil))
		case "pr":
			fmt.Fprintf(&b, "\n```graphql\n%s\n```\n", build(l, issueSel, issueOnly))
		case "repo":
			fmt.Fprintf(&b, "\n```graphql\n%s\n```\n", build(l, repoSel, nil))
		}
	}
	return b.String(), nil
}

func codeList(l []string) string {
	q := make([]string, len(l))
	for i, s := range l {
		q[i] = "`" + s + "`"
	}
	return strings.Join(q, ", ")
}

func contains(l []string, s string) bool {
	for _, x := range l {
		if x == s {
			return true
		}
	}
	return false
}
