// Command schemagen writes the GraphQL schema hubd serves: GitHub's own
// schema (npm @octokit/graphql-schema, schema.graphql) pruned to the fields
// hubd resolves, with GitHub's names, descriptions, arguments and types.
//
// The keep list (keep.txt) names what hubd resolves, one entry per line:
//
//	Type.field              the field with all its arguments
//	Type.field(a b)         the field with only the arguments a and b
//	Input.field             an input object field (an input object named by
//	                        no entry keeps all its fields)
//
// Enums keep all their values. Types reachable from kept fields and
// arguments are kept; an object or interface type reached that has no
// entry is an error, so the schema never promises a field hubd does not
// resolve. extra.graphql is appended as is: GitHub's fields that the npm
// schema lacks (gh asks for Issue.issueType).
//
// Usage: go run ./internal/graphql/schemagen -schema node_modules/@octokit/graphql-schema/schema.graphql
package main

import (
	"bufio"
	"bytes"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/vektah/gqlparser/v2"
	"github.com/vektah/gqlparser/v2/ast"
	"github.com/vektah/gqlparser/v2/formatter"
	"github.com/vektah/gqlparser/v2/parser"
)

func main() {
	src := flag.String("schema", "node_modules/@octokit/graphql-schema/schema.graphql", "GitHub's schema")
	dir := flag.String("dir", "internal/graphql", "directory of keep.txt, extra.graphql and the output schema.graphql")
	check := flag.Bool("check", false, "fail when schema.graphql differs from what would be written")
	flag.Parse()
	out, err := Generate(*src, *dir)
	if err != nil {
		fmt.Fprintln(os.Stderr, "schemagen:", err)
		os.Exit(1)
	}
	target := filepath.Join(*dir, "schema.graphql")
	if *check {
		have, _ := os.ReadFile(target)
		if !bytes.Equal(have, out) {
			fmt.Fprintln(os.Stderr, "schemagen: internal/graphql/schema.graphql is stale: run `make graphql-schema`")
			os.Exit(1)
		}
		return
	}
	if err := os.WriteFile(target, out, 0o644); err != nil {
		fmt.Fprintln(os.Stderr, "schemagen:", err)
		os.Exit(1)
	}
}

type keepField struct {
	args map[string]bool // nil: every argument
}

// Generate prunes the schema at src with dir/keep.txt and dir/extra.graphql.
func Generate(src, dir string) ([]byte, error) {
	raw, err := os.ReadFile(src)
	if err != nil {
		return nil, err
	}
	doc, err := parser.ParseSchema(&ast.Source{Name: "github.graphql", Input: string(raw)})
	if err != nil {
		return nil, err
	}
	keep, err := readKeep(filepath.Join(dir, "keep.txt"))
	if err != nil {
		return nil, err
	}
	extra, err := os.ReadFile(filepath.Join(dir, "extra.graphql"))
	if err != nil && !os.IsNotExist(err) {
		return nil, err
	}
	defs := map[string]*ast.Definition{}
	for _, d := range doc.Definitions {
		// GitHub's published schema defines some fields twice
		// (EnterpriseOwnerInfo.repositoryDeployKeySetting): keep the first.
		seen := map[string]bool{}
		var fields ast.FieldList
		for _, f := range d.Fields {
			if !seen[f.Name] {
				seen[f.Name] = true
				fields = append(fields, f)
			}
		}
		d.Fields = fields
		defs[d.Name] = d
	}
	for tf := range keep {
		t, f, _ := strings.Cut(tf, ".")
		d := defs[t]
		if d == nil {
			return nil, fmt.Errorf("keep.txt: no type %s", t)
		}
		if d.Fields.ForName(f) == nil {
			return nil, fmt.Errorf("keep.txt: no field %s", tf)
		}
		for a := range keep[tf].args {
			if d.Fields.ForName(f).Arguments.ForName(a) == nil {
				return nil, fmt.Errorf("keep.txt: %s has no argument %s", tf, a)
			}
		}
	}
	byType := map[string]bool{}
	for tf := range keep {
		t, _, _ := strings.Cut(tf, ".")
		byType[t] = true
	}

	kept := map[string]bool{}
	var visit func(name string) error
	var missing []string
	visit = func(name string) error {
		if kept[name] || builtin[name] {
			return nil
		}
		d := defs[name]
		if d == nil {
			return fmt.Errorf("type %s is referenced but not defined", name)
		}
		kept[name] = true
		switch d.Kind {
		case ast.Object, ast.Interface:
			if !byType[name] {
				missing = append(missing, name)
			}
			for _, f := range d.Fields {
				k, ok := keep[name+"."+f.Name]
				if !ok {
					continue
				}
				if err := visit(f.Type.Name()); err != nil {
					return err
				}
				for _, a := range f.Arguments {
					if k.args == nil || k.args[a.Name] {
						if err := visit(a.Type.Name()); err != nil {
							return err
						}
					}
				}
			}
		case ast.InputObject:
			for _, f := range d.Fields {
				if !byType[name] || keep[name+"."+f.Name] != nil {
					if err := visit(f.Type.Name()); err != nil {
						return err
					}
				}
			}
		}
		return nil
	}
	for tf := range keep {
		t, _, _ := strings.Cut(tf, ".")
		if err := visit(t); err != nil {
			return nil, err
		}
	}
	// Union members and interface implementations that are kept anyway.
	if len(missing) > 0 {
		sort.Strings(missing)
		return nil, fmt.Errorf("types reached without a keep.txt entry (say which fields hubd resolves): %s", strings.Join(missing, ", "))
	}

	var outDefs ast.DefinitionList
	for _, d := range doc.Definitions {
		if !kept[d.Name] {
			continue
		}
		d.Directives = keepDirectives(d.Directives)
		switch d.Kind {
		case ast.Object, ast.Interface, ast.InputObject:
			var fields ast.FieldList
			for _, f := range d.Fields {
				k, ok := keep[d.Name+"."+f.Name]
				if d.Kind == ast.InputObject && !byType[d.Name] {
					ok, k = true, &keepField{}
				}
				if !ok {
					if d.Kind == ast.InputObject && f.Type.NonNull && f.DefaultValue == nil {
						return nil, fmt.Errorf("%s.%s is required: keep it", d.Name, f.Name)
					}
					continue
				}
				var args ast.ArgumentDefinitionList
				for _, a := range f.Arguments {
					if k.args == nil || k.args[a.Name] {
						a.Directives = keepDirectives(a.Directives)
						args = append(args, a)
					} else if a.Type.NonNull && a.DefaultValue == nil {
						return nil, fmt.Errorf("%s.%s(%s) is required: keep it", d.Name, f.Name, a.Name)
					}
				}
				f.Arguments = args
				f.Directives = keepDirectives(f.Directives)
				fields = append(fields, f)
			}
			d.Fields = fields
			var ifaces []string
			for _, i := range d.Interfaces {
				if kept[i] {
					ifaces = append(ifaces, i)
				}
			}
			d.Interfaces = ifaces
		case ast.Union:
			var types []string
			for _, t := range d.Types {
				if kept[t] {
					types = append(types, t)
				}
			}
			d.Types = types
		case ast.Enum:
			for _, v := range d.EnumValues {
				v.Directives = keepDirectives(v.Directives)
			}
		}
		outDefs = append(outDefs, d)
	}
	// Every kept object implementing a kept interface must resolve the
	// interface's kept fields, or the schema would not load.
	for _, d := range outDefs {
		for _, i := range d.Interfaces {
			for _, f := range defs[i].Fields {
				if d.Fields.ForName(f.Name) == nil {
					return nil, fmt.Errorf("%s implements %s but keeps no %s.%s", d.Name, i, d.Name, f.Name)
				}
			}
		}
	}
	pruned := &ast.SchemaDocument{Schema: doc.Schema, Definitions: outDefs}
	var buf bytes.Buffer
	buf.WriteString("# GitHub's GraphQL schema (npm @octokit/graphql-schema 15.26.1), pruned to\n# what hubd resolves. Generated by `make graphql-schema`: do not edit.\n\n")
	formatter.NewFormatter(&buf).FormatSchemaDocument(pruned)
	if len(extra) > 0 {
		buf.WriteString("\n")
		buf.Write(extra)
	}
	// The result must load as a schema.
	if _, err := gqlparser.LoadSchema(&ast.Source{Name: "schema.graphql", Input: buf.String()}); err != nil {
		return nil, fmt.Errorf("pruned schema does not load: %v", err)
	}
	return buf.Bytes(), nil
}

var builtin = map[string]bool{"String": true, "Int": true, "Float": true, "Boolean": true, "ID": true}

// keepDirectives drops GitHub's private directives (@preview,
// @possibleTypes, @requiredCapabilities); @deprecated stays.
func keepDirectives(l ast.DirectiveList) ast.DirectiveList {
	var out ast.DirectiveList
	for _, d := range l {
		if d.Name == "deprecated" {
			out = append(out, d)
		}
	}
	return out
}

func readKeep(path string) (map[string]*keepField, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	keep := map[string]*keepField{}
	sc := bufio.NewScanner(f)
	n := 0
	for sc.Scan() {
		n++
		line := sc.Text()
		if i := strings.IndexByte(line, '#'); i >= 0 {
			line = line[:i]
		}
		for _, entry := range splitEntries(line) {
			name, args, hasArgs := strings.Cut(entry, "(")
			if !strings.Contains(name, ".") {
				return nil, fmt.Errorf("%s:%d: %q is not Type.field", path, n, entry)
			}
			k := &keepField{}
			if hasArgs {
				k.args = map[string]bool{}
				for _, a := range strings.Fields(strings.TrimSuffix(args, ")")) {
					k.args[a] = true
				}
			}
			if keep[name] != nil {
				return nil, fmt.Errorf("%s:%d: %s twice", path, n, name)
			}
			keep[name] = k
		}
	}
	return keep, sc.Err()
}

// splitEntries splits a line into entries at spaces outside parentheses;
// "Type.a Type.b(x y)" is two entries.
func splitEntries(line string) []string {
	var out []string
	depth, start := 0, -1
	for i, r := range line {
		switch {
		case r == '(':
			depth++
		case r == ')':
			depth--
		case (r == ' ' || r == '\t') && depth == 0:
			if start >= 0 {
				out = append(out, line[start:i])
				start = -1
			}
			continue
		}
		if start < 0 {
			start = i
		}
	}
	if start >= 0 {
		out = append(out, line[start:])
	}
	return out
}
