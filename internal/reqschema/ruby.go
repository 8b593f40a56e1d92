package reqschema

import (
	"fmt"
	"math"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/hubd/hubd/internal/reqschema/ojson"
)

// GitHub prints the offending value the way Ruby does: Value#inspect in
// "For 'x', V is not a T." (nil, "a string", {"k" => 1} as Ruby 3.4 prints
// hashes; GitHub's 422s have shown the spaces since 2025), Value#to_s in
// the enum and pattern messages (a string bare, nil as nothing).

// maxInspect bounds the value printed in a message; a 25 MB body must not
// come back in a 422.
const maxInspect = 1 << 10

func rubyInspect(v ojson.Value) string {
	var b strings.Builder
	inspect(&b, v)
	s := b.String()
	if len(s) > maxInspect {
		cut := maxInspect
		for cut > 0 && !utf8.RuneStart(s[cut]) {
			cut--
		}
		s = s[:cut] + "..."
	}
	return s
}

func rubyToS(v ojson.Value) string {
	switch x := v.(type) {
	case nil:
		return ""
	case string:
		if len(x) > maxInspect {
			return rubyInspect(v) // bounded; rare enough to not mind quotes
		}
		return x
	case ojson.Number:
		return rubyNumber(x)
	case bool:
		return strconv.FormatBool(x)
	}
	return rubyInspect(v)
}

func inspect(b *strings.Builder, v ojson.Value) {
	if b.Len() > maxInspect {
		return
	}
	switch x := v.(type) {
	case nil:
		b.WriteString("nil")
	case bool:
		b.WriteString(strconv.FormatBool(x))
	case ojson.Number:
		b.WriteString(rubyNumber(x))
	case string:
		inspectString(b, x)
	case []ojson.Value:
		b.WriteByte('[')
		for i, e := range x {
			if i > 0 {
				b.WriteString(", ")
			}
			inspect(b, e)
		}
		b.WriteByte(']')
	case *ojson.Object:
		b.WriteByte('{')
		for i, k := range x.Keys {
			if i > 0 {
				b.WriteString(", ")
			}
			inspectString(b, k)
			b.WriteString(" => ")
			inspect(b, x.Vals[i])
		}
		b.WriteByte('}')
	}
}

// inspectString quotes like Ruby's String#inspect on UTF-8 text.
func inspectString(b *strings.Builder, s string) {
	b.WriteByte('"')
	for i, r := range s {
		switch r {
		case '"':
			b.WriteString(`\"`)
		case '\\':
			b.WriteString(`\\`)
		case '\n':
			b.WriteString(`\n`)
		case '\t':
			b.WriteString(`\t`)
		case '\r':
			b.WriteString(`\r`)
		case '\f':
			b.WriteString(`\f`)
		case '\v':
			b.WriteString(`\v`)
		case '\b':
			b.WriteString(`\b`)
		case '\a':
			b.WriteString(`\a`)
		case 0x1b:
			b.WriteString(`\e`)
		case '#':
			// "#{", "#$" and "#@" would interpolate in a Ruby literal.
			if i+1 < len(s) && strings.IndexByte("{$@", s[i+1]) >= 0 {
				b.WriteString(`\#`)
			} else {
				b.WriteByte('#')
			}
		default:
			if r == utf8.RuneError || !unicode.IsPrint(r) && r != ' ' {
				if r > 0xffff {
					fmt.Fprintf(b, `\u{%X}`, r)
				} else {
					fmt.Fprintf(b, `\u%04X`, r)
				}
			} else {
				b.WriteRune(r)
			}
		}
	}
	b.WriteByte('"')
}

// rubyNumber prints an integer as written and a float as Ruby's Float#to_s
// does (1.0, 0.5, 1.0e+20, 1.5e-05).
func rubyNumber(n ojson.Number) string {
	if n.IsInt() {
		return string(n)
	}
	f, err := strconv.ParseFloat(string(n), 64)
	if err != nil || math.IsInf(f, 0) {
		return string(n)
	}
	abs := math.Abs(f)
	if f == 0 || abs >= 1e-4 && abs < 1e16 {
		s := strconv.FormatFloat(f, 'f', -1, 64)
		if !strings.Contains(s, ".") {
			s += ".0"
		}
		return s
	}
	s := strconv.FormatFloat(f, 'e', -1, 64) // 1e+20, 1.5e-05
	mant, exp, _ := strings.Cut(s, "e")
	if !strings.Contains(mant, ".") {
		mant += ".0"
	}
	return mant + "e" + exp
}

// Inspect prints a raw JSON value as GitHub's messages do (Ruby's
// inspect): nil, "text", {"k" => 1}. Invalid JSON is returned as is.
func Inspect(raw []byte) string {
	v, err := ojson.Parse(raw)
	if err != nil {
		return string(raw)
	}
	return rubyInspect(v)
}
