// Command gen writes schemas.json.gz: for every operation of GitHub's
// description that takes an application/json request body, that body's
// schema with every $ref resolved and only the keywords the validator
// checks (descriptions and examples dropped), keyed by operationId. ghec
// comes first; ghes-3.19 adds the operations only it has (the admin API).
//
//	go run ./internal/reqschema/gen -spec node_modules/@octokit/openapi/generated -out internal/reqschema/schemas.json.gz
package main

import (
	"bytes"
	"compress/gzip"
	"encoding/json"
	"flag"
	"fmt"
	"log"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/hubd/hubd/internal/reqschema/ojson"
)

// kept are the schema keywords the validator uses; everything else
// (description, example, format, readOnly, ...) is dropped.
var kept = map[string]bool{
	"type": true, "nullable": true, "properties": true, "required": true,
	"additionalProperties": true, "items": true, "enum": true,
	"oneOf": true, "anyOf": true, "allOf": true, "not": true,
	"minimum": true, "maximum": true, "exclusiveMinimum": true, "exclusiveMaximum": true,
	"multipleOf": true, "minLength": true, "maxLength": true, "pattern": true,
	"minItems": true, "maxItems": true, "uniqueItems": true,
	"minProperties": true, "maxProperties": true,
}

// schemaChild says how a kept keyword's value holds subschemas.
var schemaChild = map[string]string{
	"properties": "map", "additionalProperties": "one", "items": "one", "not": "one",
	"oneOf": "list", "anyOf": "list", "allOf": "list",
}

type spec struct {
	root   *ojson.Object
	cycles int
}

func main() {
	specDir := flag.String("spec", "node_modules/@octokit/openapi/generated", "directory of the generated descriptions")
	out := flag.String("out", "internal/reqschema/schemas.json.gz", "output file")
	flag.Parse()

	ops := map[string][]byte{}
	for _, name := range []string{"ghec", "ghes-3.19"} {
		b, err := os.ReadFile(filepath.Join(*specDir, name+".json"))
		if err != nil {
			log.Fatal(err)
		}
		v, err := ojson.Parse(b)
		if err != nil {
			log.Fatalf("%s: %v", name, err)
		}
		s := &spec{root: v.(*ojson.Object)}
		paths := obj(get(s.root, "paths"))
		for i, path := range paths.Keys {
			item := obj(paths.Vals[i])
			for j, method := range item.Keys {
				switch method {
				case "post", "put", "patch", "delete":
				default:
					continue
				}
				op := obj(item.Vals[j])
				id, _ := get(op, "operationId").(string)
				if id == "" || ops[id] != nil {
					continue
				}
				rb := obj(s.deref(get(op, "requestBody")))
				if rb == nil {
					continue
				}
				media := obj(get(obj(get(rb, "content")), "application/json"))
				if media == nil {
					continue
				}
				schema := get(media, "schema")
				if schema == nil {
					continue
				}
				var buf bytes.Buffer
				required, _ := get(rb, "required").(bool)
				fmt.Fprintf(&buf, `{"required":%t,"schema":`, required)
				s.write(&buf, schema, map[string]bool{})
				buf.WriteString("}")
				ops[id] = buf.Bytes()
				_ = path
			}
		}
		if s.cycles > 0 {
			log.Printf("%s: %d recursive references written as {}", name, s.cycles)
		}
	}

	ids := make([]string, 0, len(ops))
	for id := range ops {
		ids = append(ids, id)
	}
	sort.Strings(ids)
	var raw bytes.Buffer
	raw.WriteString("{\n")
	for i, id := range ids {
		if i > 0 {
			raw.WriteString(",\n")
		}
		k, _ := json.Marshal(id)
		raw.Write(k)
		raw.WriteString(":")
		raw.Write(ops[id])
	}
	raw.WriteString("\n}\n")
	if !json.Valid(raw.Bytes()) {
		log.Fatal("gen: produced invalid JSON")
	}

	var gz bytes.Buffer
	zw, _ := gzip.NewWriterLevel(&gz, gzip.BestCompression)
	zw.Write(raw.Bytes())
	if err := zw.Close(); err != nil {
		log.Fatal(err)
	}
	if err := os.WriteFile(*out, gz.Bytes(), 0o644); err != nil {
		log.Fatal(err)
	}
	log.Printf("%d operations, %d bytes of JSON, %d bytes gzipped", len(ids), raw.Len(), gz.Len())
}

func obj(v ojson.Value) *ojson.Object {
	o, _ := v.(*ojson.Object)
	return o
}

func get(o *ojson.Object, key string) ojson.Value {
	if o == nil {
		return nil
	}
	v, _ := o.Get(key)
	return v
}

// deref follows $ref chains inside the document.
func (s *spec) deref(v ojson.Value) ojson.Value {
	for i := 0; i < 32; i++ {
		ref, ok := get(obj(v), "$ref").(string)
		if !ok {
			return v
		}
		v = s.pointer(ref)
	}
	log.Fatalf("gen: $ref chain too long")
	return nil
}

func (s *spec) pointer(ref string) ojson.Value {
	if !strings.HasPrefix(ref, "#/") {
		log.Fatalf("gen: external $ref %q", ref)
	}
	var cur ojson.Value = s.root
	for _, part := range strings.Split(ref[2:], "/") {
		part = strings.ReplaceAll(strings.ReplaceAll(part, "~1", "/"), "~0", "~")
		next, ok := obj(cur).Get(part)
		if !ok {
			log.Fatalf("gen: unresolved $ref %q", ref)
		}
		cur = next
	}
	return cur
}

// write emits a schema with references inlined. A reference back to a
// schema being written (recursion) becomes {}: it accepts anything, which
// is the safe side for a validator.
func (s *spec) write(buf *bytes.Buffer, v ojson.Value, open map[string]bool) {
	if ref, ok := get(obj(v), "$ref").(string); ok {
		if open[ref] {
			s.cycles++
			buf.WriteString("{}")
			return
		}
		open[ref] = true
		s.write(buf, s.pointer(ref), open)
		delete(open, ref)
		return
	}
	o := obj(v)
	if o == nil {
		// additionalProperties: true/false
		b, _ := json.Marshal(v)
		buf.Write(b)
		return
	}
	buf.WriteString("{")
	n := 0
	for i, k := range o.Keys {
		if !kept[k] {
			continue
		}
		if n > 0 {
			buf.WriteString(",")
		}
		n++
		kb, _ := json.Marshal(k)
		buf.Write(kb)
		buf.WriteString(":")
		val := o.Vals[i]
		switch schemaChild[k] {
		case "one":
			s.write(buf, val, open)
		case "list":
			buf.WriteString("[")
			for j, sub := range val.([]ojson.Value) {
				if j > 0 {
					buf.WriteString(",")
				}
				s.write(buf, sub, open)
			}
			buf.WriteString("]")
		case "map":
			props := obj(val)
			buf.WriteString("{")
			for j, name := range props.Keys {
				if j > 0 {
					buf.WriteString(",")
				}
				nb, _ := json.Marshal(name)
				buf.Write(nb)
				buf.WriteString(":")
				s.write(buf, props.Vals[j], open)
			}
			buf.WriteString("}")
		default:
			writeValue(buf, val)
		}
	}
	buf.WriteString("}")
}

// writeValue writes a plain JSON value (enum lists, numbers, ...) in order.
func writeValue(buf *bytes.Buffer, v ojson.Value) {
	switch x := v.(type) {
	case *ojson.Object:
		buf.WriteString("{")
		for i, k := range x.Keys {
			if i > 0 {
				buf.WriteString(",")
			}
			kb, _ := json.Marshal(k)
			buf.Write(kb)
			buf.WriteString(":")
			writeValue(buf, x.Vals[i])
		}
		buf.WriteString("}")
	case []ojson.Value:
		buf.WriteString("[")
		for i, e := range x {
			if i > 0 {
				buf.WriteString(",")
			}
			writeValue(buf, e)
		}
		buf.WriteString("]")
	case ojson.Number:
		buf.WriteString(string(x))
	default:
		b, _ := json.Marshal(x)
		buf.Write(b)
	}
}
