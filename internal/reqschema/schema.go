package reqschema

import (
	"fmt"
	"math"
	"regexp"
	"strconv"

	"github.com/hubd/hubd/internal/reqschema/ojson"
)

// Schema is one compiled (sub)schema.
type Schema struct {
	// frag is how GitHub names the schema in "For '...'" messages: the
	// step from its parent ("properties/labels", "items", "oneOf/1"), not
	// the whole path.
	frag     string
	types    []string // declared order; "null" appended when nullable
	nullable bool
	any      bool // {}: no keyword at all

	props    []prop
	propIdx  map[string]int
	required []string
	// additionalProperties: noExtra for false, extra for a schema.
	noExtra  bool
	extra    *Schema
	minProps int
	maxProps int

	items    *Schema
	minItems int
	maxItems int
	unique   bool

	enum []ojson.Value

	oneOf, anyOf, allOf []*Schema
	not                 *Schema

	min, max       *limit
	exMin, exMax   bool
	multipleOf     *limit
	minLen, maxLen int
	pattern        string
	re             *regexp.Regexp // nil when the pattern is not RE2 syntax
}

type prop struct {
	name   string
	schema *Schema
}

// limit is a numeric keyword: its value, and its literal for messages.
type limit struct {
	v   float64
	lit string
}

func build(v ojson.Value, frag string) (*Schema, error) {
	s := &Schema{frag: frag, minProps: -1, maxProps: -1, minItems: -1, maxItems: -1, minLen: -1, maxLen: -1}
	o, ok := v.(*ojson.Object)
	if !ok {
		return nil, fmt.Errorf("schema at %s is not an object", frag)
	}
	s.any = len(o.Keys) == 0
	var err error
	for i, k := range o.Keys {
		val := o.Vals[i]
		switch k {
		case "type":
			switch t := val.(type) {
			case string:
				s.types = []string{t}
			case []ojson.Value:
				for _, e := range t {
					if str, ok := e.(string); ok {
						s.types = append(s.types, str)
					}
				}
			}
		case "nullable":
			s.nullable, _ = val.(bool)
		case "properties":
			po, _ := val.(*ojson.Object)
			if po == nil {
				continue
			}
			s.propIdx = map[string]int{}
			for j, name := range po.Keys {
				sub, err := build(po.Vals[j], "properties/"+name)
				if err != nil {
					return nil, err
				}
				s.propIdx[name] = len(s.props)
				s.props = append(s.props, prop{name, sub})
			}
		case "required":
			for _, e := range asList(val) {
				if str, ok := e.(string); ok {
					s.required = append(s.required, str)
				}
			}
		case "additionalProperties":
			switch a := val.(type) {
			case bool:
				s.noExtra = !a
			case *ojson.Object:
				if s.extra, err = build(a, "additionalProperties"); err != nil {
					return nil, err
				}
			}
		case "items":
			if s.items, err = build(val, "items"); err != nil {
				return nil, err
			}
		case "not":
			if s.not, err = build(val, "not"); err != nil {
				return nil, err
			}
		case "oneOf", "anyOf", "allOf":
			var list []*Schema
			for j, e := range asList(val) {
				sub, err := build(e, fmt.Sprintf("%s/%d", k, j))
				if err != nil {
					return nil, err
				}
				list = append(list, sub)
			}
			switch k {
			case "oneOf":
				s.oneOf = list
			case "anyOf":
				s.anyOf = list
			default:
				s.allOf = list
			}
		case "enum":
			s.enum = asList(val)
		case "minimum":
			s.min = asLimit(val)
		case "maximum":
			s.max = asLimit(val)
		case "exclusiveMinimum":
			s.exMin, _ = val.(bool)
		case "exclusiveMaximum":
			s.exMax, _ = val.(bool)
		case "multipleOf":
			s.multipleOf = asLimit(val)
		case "minLength":
			s.minLen = asInt(val)
		case "maxLength":
			s.maxLen = asInt(val)
		case "minItems":
			s.minItems = asInt(val)
		case "maxItems":
			s.maxItems = asInt(val)
		case "minProperties":
			s.minProps = asInt(val)
		case "maxProperties":
			s.maxProps = asInt(val)
		case "uniqueItems":
			s.unique, _ = val.(bool)
		case "pattern":
			s.pattern, _ = val.(string)
			// GitHub's patterns are written for Ruby/JavaScript; the few
			// that RE2 cannot compile (look-arounds, back-references) are
			// not checked rather than failing every request.
			s.re, _ = regexp.Compile(s.pattern)
		}
	}
	if s.nullable && len(s.types) > 0 {
		s.types = append(s.types, "null")
	}
	return s, nil
}

func asList(v ojson.Value) []ojson.Value {
	l, _ := v.([]ojson.Value)
	return l
}

func asLimit(v ojson.Value) *limit {
	n, ok := v.(ojson.Number)
	if !ok {
		return nil
	}
	f, err := strconv.ParseFloat(string(n), 64)
	if err != nil {
		return nil
	}
	return &limit{v: f, lit: string(n)}
}

func asInt(v ojson.Value) int {
	l := asLimit(v)
	if l == nil || l.v < 0 || l.v > math.MaxInt32 {
		return -1
	}
	return int(l.v)
}

// acceptsNonObject reports whether some non-object value could satisfy
// the schema's type constraints.
func (s *Schema) acceptsNonObject() bool {
	if s.nullable {
		return true
	}
	for _, t := range s.types {
		if t != "object" {
			return true
		}
	}
	if len(s.types) == 0 && len(s.props) == 0 && len(s.oneOf) == 0 && len(s.anyOf) == 0 && len(s.allOf) == 0 {
		return true
	}
	for _, list := range [][]*Schema{s.oneOf, s.anyOf} {
		for _, b := range list {
			if b.acceptsNonObject() {
				return true
			}
		}
	}
	return false
}

// walk finds a subschema by a path of fragments such as
// "properties/labels/items/oneOf/0" (overrides use it).
func (s *Schema) walk(segs []string) *Schema {
	if len(segs) == 0 {
		return s
	}
	switch segs[0] {
	case "properties":
		if len(segs) < 2 {
			return nil
		}
		i, ok := s.propIdx[segs[1]]
		if !ok {
			return nil
		}
		return s.props[i].schema.walk(segs[2:])
	case "items":
		if s.items == nil {
			return nil
		}
		return s.items.walk(segs[1:])
	case "additionalProperties":
		if s.extra == nil {
			return nil
		}
		return s.extra.walk(segs[1:])
	case "oneOf", "anyOf", "allOf":
		if len(segs) < 2 {
			return nil
		}
		list := map[string][]*Schema{"oneOf": s.oneOf, "anyOf": s.anyOf, "allOf": s.allOf}[segs[0]]
		i, err := strconv.Atoi(segs[1])
		if err != nil || i < 0 || i >= len(list) {
			return nil
		}
		return list[i].walk(segs[2:])
	}
	return nil
}
