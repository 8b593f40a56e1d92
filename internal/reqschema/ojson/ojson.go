// Package ojson parses JSON into values that keep the order of object keys.
// The request validator needs the order twice: schemas list their
// properties in the order GitHub checks them, and GitHub's messages print a
// body's objects as the client wrote them.
package ojson

import (
	"encoding/json"
	"errors"
	"strings"
)

// A Value is nil (JSON null), bool, Number, string, []Value or *Object.
type Value = any

// Number is a JSON number as written, so that integers and floats stay
// apart (1 is an integer, 1.0 is not) and big integers keep every digit.
type Number string

// IsInt reports whether the literal is written as an integer.
func (n Number) IsInt() bool { return !strings.ContainsAny(string(n), ".eE") }

// Object is a JSON object; a key given twice keeps its last value, in the
// place it first appeared.
type Object struct {
	Keys []string
	Vals []Value
	// index finds keys once an object has more than smallObject of them,
	// so that a hostile body of many keys parses in linear time.
	index map[string]int
}

// smallObject is the size up to which a scan beats a map.
const smallObject = 16

// Get returns the value of key.
func (o *Object) Get(key string) (Value, bool) {
	if i, ok := o.find(key); ok {
		return o.Vals[i], true
	}
	return nil, false
}

func (o *Object) find(key string) (int, bool) {
	if o.index != nil {
		i, ok := o.index[key]
		return i, ok
	}
	for i, k := range o.Keys {
		if k == key {
			return i, true
		}
	}
	return 0, false
}

func (o *Object) set(key string, v Value) {
	if i, ok := o.find(key); ok {
		o.Vals[i] = v
		return
	}
	o.Keys = append(o.Keys, key)
	o.Vals = append(o.Vals, v)
	switch n := len(o.Keys); {
	case o.index != nil:
		o.index[key] = n - 1
	case n > smallObject:
		o.index = make(map[string]int, 2*n)
		for i, k := range o.Keys {
			o.index[k] = i
		}
	}
}

// ErrSyntax is returned for anything that is not one valid JSON value.
var ErrSyntax = errors.New("ojson: invalid JSON")

// Parse parses one JSON value.
func Parse(data []byte) (Value, error) {
	if !json.Valid(data) {
		return nil, ErrSyntax
	}
	p := parser{data: data}
	v, err := p.value()
	if err != nil {
		return nil, err
	}
	return v, nil
}

// parser walks input that json.Valid has accepted, so it only needs to
// tell the tokens apart.
type parser struct {
	data []byte
	pos  int
}

func (p *parser) skip() {
	for p.pos < len(p.data) {
		switch p.data[p.pos] {
		case ' ', '\t', '\n', '\r':
			p.pos++
		default:
			return
		}
	}
}

func (p *parser) value() (Value, error) {
	p.skip()
	if p.pos >= len(p.data) {
		return nil, ErrSyntax
	}
	switch c := p.data[p.pos]; {
	case c == '{':
		p.pos++
		// Request bodies are small objects: one allocation per slice.
		o := &Object{Keys: make([]string, 0, 8), Vals: make([]Value, 0, 8)}
		for {
			p.skip()
			if p.data[p.pos] == '}' {
				p.pos++
				return o, nil
			}
			if p.data[p.pos] == ',' {
				p.pos++
				p.skip()
			}
			k, err := p.str()
			if err != nil {
				return nil, err
			}
			p.skip()
			p.pos++ // ':'
			v, err := p.value()
			if err != nil {
				return nil, err
			}
			o.set(k, v)
			p.skip()
		}
	case c == '[':
		p.pos++
		a := []Value{}
		for {
			p.skip()
			if p.data[p.pos] == ']' {
				p.pos++
				return a, nil
			}
			if p.data[p.pos] == ',' {
				p.pos++
			}
			v, err := p.value()
			if err != nil {
				return nil, err
			}
			a = append(a, v)
		}
	case c == '"':
		return p.str()
	case c == 't':
		p.pos += 4
		return true, nil
	case c == 'f':
		p.pos += 5
		return false, nil
	case c == 'n':
		p.pos += 4
		return nil, nil
	default:
		start := p.pos
		for p.pos < len(p.data) && strings.IndexByte("+-0123456789.eE", p.data[p.pos]) >= 0 {
			p.pos++
		}
		return Number(p.data[start:p.pos]), nil
	}
}

func (p *parser) str() (string, error) {
	start := p.pos
	p.pos++ // opening quote
	escaped := false
	for p.data[p.pos] != '"' {
		if p.data[p.pos] == '\\' {
			escaped = true
			p.pos++
		}
		p.pos++
	}
	p.pos++
	raw := p.data[start:p.pos]
	if !escaped {
		return string(raw[1 : len(raw)-1]), nil
	}
	var s string
	if err := json.Unmarshal(raw, &s); err != nil {
		return "", ErrSyntax
	}
	return s, nil
}
