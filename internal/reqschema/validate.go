package reqschema

import (
	"fmt"
	"math"
	"sort"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/hubd/hubd/internal/reqschema/ojson"
)

// verr is one failure; anyOf/oneOf failures carry each branch's failures,
// which GitHub prints on the lines after the branch header.
type verr struct {
	msg string
	sub [][]verr
}

func flatten(errs []verr, out *[]string) {
	for _, e := range errs {
		if len(*out) >= maxMessages {
			return
		}
		*out = append(*out, e.msg)
		for _, branch := range e.sub {
			flatten(branch, out)
		}
	}
}

// maxMessages bounds the failures reported for one body, and so the work
// and the size of the 422: a hostile array of a million wrong items must
// not make a million lines (one per item is GitHub's wording for a few).
const maxMessages = 50

// validate checks v against s, appending failures to errs. The keywords
// are checked in GitHub's order (combinators, enum, type, then the
// keywords of the value's kind) and every failure is collected, not only
// the first, as GitHub reports them all.
func validate(s *Schema, v ojson.Value, errs *[]verr) bool {
	if s.any {
		return true
	}
	if v == nil && s.nullable {
		// OpenAPI's nullable admits null whatever the other keywords say.
		return true
	}
	ok := true
	if len(s.allOf) > 0 {
		// Like GitHub: the first failing subschema stops the check.
		all := true
		for _, sub := range s.allOf {
			if !validate(sub, v, errs) {
				all = false
				break
			}
		}
		if !all {
			*errs = append(*errs, verr{msg: `Not all subschemas of "allOf" matched.`})
			ok = false
		}
	}
	if len(s.anyOf) > 0 && !branches(s, s.anyOf, "anyOf", v, errs) {
		ok = false
	}
	if s.enum != nil && !member(s.enum, v) {
		*errs = append(*errs, verr{msg: fmt.Sprintf("%s is not a member of %s.", rubyToS(v), rubyInspect(s.enum))})
		ok = false
	}
	if len(s.oneOf) > 0 && !branches(s, s.oneOf, "oneOf", v, errs) {
		ok = false
	}
	if s.not != nil {
		if validate(s.not, v, new([]verr)) {
			*errs = append(*errs, verr{msg: `Matched "not" subschema.`})
			ok = false
		}
	}
	if len(s.types) > 0 && !typeOK(s.types, v) {
		*errs = append(*errs, typeErr(s.frag, v, s.types))
		ok = false
	}

	switch x := v.(type) {
	case []ojson.Value:
		if s.items != nil {
			for _, e := range x {
				if !validate(s.items, e, errs) {
					ok = false
					if len(*errs) >= maxMessages {
						break // enough to tell the client what is wrong
					}
				}
			}
		}
		if s.maxItems >= 0 && len(x) > s.maxItems {
			*errs = append(*errs, verr{msg: fmt.Sprintf("No more than %d item%s allowed; %d %s supplied.", s.maxItems, plural(s.maxItems, " is", "s are"), len(x), plural(len(x), "was", "were"))})
			ok = false
		}
		if s.minItems >= 0 && len(x) < s.minItems {
			*errs = append(*errs, verr{msg: fmt.Sprintf("%d item%s required; only %d %s supplied.", s.minItems, plural(s.minItems, "", "s"), len(x), plural(len(x), "was", "were"))})
			ok = false
		}
		if s.unique && !unique(x) {
			*errs = append(*errs, verr{msg: "Duplicate items are not allowed."})
			ok = false
		}
	case ojson.Number:
		f, err := strconv.ParseFloat(string(x), 64)
		if err == nil {
			if s.max != nil && (f > s.max.v || s.exMax && f == s.max.v) {
				*errs = append(*errs, verr{msg: fmt.Sprintf("%s must be less than%s %s.", rubyToS(x), orEqual(!s.exMax), s.max.lit)})
				ok = false
			}
			if s.min != nil && (f < s.min.v || s.exMin && f == s.min.v) {
				*errs = append(*errs, verr{msg: fmt.Sprintf("%s must be greater than%s %s.", rubyToS(x), orEqual(!s.exMin), s.min.lit)})
				ok = false
			}
			if s.multipleOf != nil && s.multipleOf.v != 0 && math.Mod(f, s.multipleOf.v) != 0 {
				*errs = append(*errs, verr{msg: fmt.Sprintf("%s is not a multiple of %s.", rubyToS(x), s.multipleOf.lit)})
				ok = false
			}
		}
	case *ojson.Object:
		if s.noExtra || s.extra != nil {
			var extra []string
			for _, k := range x.Keys {
				if _, known := s.propIdx[k]; !known {
					extra = append(extra, k)
				}
			}
			if s.noExtra && len(extra) > 0 {
				sort.Strings(extra)
				verb := "is not a permitted key."
				if len(extra) > 1 {
					verb = "are not permitted keys."
				}
				shown := extra
				if len(shown) > maxMessages {
					shown = shown[:maxMessages] // the message stays bounded
				}
				*errs = append(*errs, verr{msg: `"` + strings.Join(shown, `", "`) + `" ` + verb})
				ok = false
			}
			if s.extra != nil {
				for _, k := range extra {
					e, _ := x.Get(k)
					if !validate(s.extra, e, errs) {
						ok = false
						if len(*errs) >= maxMessages {
							break
						}
					}
				}
			}
		}
		if s.maxProps >= 0 && len(x.Keys) > s.maxProps {
			*errs = append(*errs, verr{msg: fmt.Sprintf("No more than %d propert%s allowed; %d %s supplied.", s.maxProps, plural(s.maxProps, "y is", "ies are"), len(x.Keys), plural(len(x.Keys), "was", "were"))})
			ok = false
		}
		if s.minProps >= 0 && len(x.Keys) < s.minProps {
			*errs = append(*errs, verr{msg: fmt.Sprintf("At least %d propert%s required; %d %s supplied.", s.minProps, plural(s.minProps, "y is", "ies are"), len(x.Keys), plural(len(x.Keys), "was", "were"))})
			ok = false
		}
		for _, p := range s.props {
			if e, present := x.Get(p.name); present && !validate(p.schema, e, errs) {
				ok = false
			}
		}
		if len(s.required) > 0 {
			var missing []string
			for _, r := range s.required {
				if _, present := x.Get(r); !present {
					missing = append(missing, r)
				}
			}
			if len(missing) > 0 {
				sort.Strings(missing)
				*errs = append(*errs, verr{msg: `"` + strings.Join(missing, `", "`) + `" ` + plural(len(missing), "wasn't", "weren't") + " supplied."})
				ok = false
			}
		}
	case string:
		n := -1
		if s.maxLen >= 0 || s.minLen >= 0 {
			n = utf8.RuneCountInString(x) // Ruby counts characters
		}
		if s.maxLen >= 0 && n > s.maxLen {
			*errs = append(*errs, verr{msg: fmt.Sprintf("Only %d character%s allowed; %d %s supplied.", s.maxLen, plural(s.maxLen, " is", "s are"), n, plural(n, "was", "were"))})
			ok = false
		}
		if s.minLen >= 0 && n < s.minLen {
			*errs = append(*errs, verr{msg: fmt.Sprintf("At least %d character%s required; only %d %s supplied.", s.minLen, plural(s.minLen, " is", "s are"), n, plural(n, "was", "were"))})
			ok = false
		}
		if s.re != nil && !s.re.MatchString(x) {
			*errs = append(*errs, verr{msg: fmt.Sprintf("%s does not match /%s/.", x, strings.ReplaceAll(s.pattern, "/", `\/`))})
			ok = false
		}
	}
	return ok
}

// branches checks oneOf/anyOf. At least one branch must match: the
// description's oneOfs often overlap (two object shapes that share
// optional keys), and real clients send bodies that fit both, so hubd does
// not enforce "exactly one".
//
// When the value's kind fits no branch's type at all, GitHub names the
// types in one line ("For 'items', nil is not a string or object."), since
// its own schemas write such unions as a type list; otherwise it prints
// the header and each branch's failures.
func branches(s *Schema, list []*Schema, kw string, v ojson.Value, errs *[]verr) bool {
	var subs [][]verr
	for _, b := range list {
		var be []verr
		if validate(b, v, &be) {
			return true
		}
		subs = append(subs, be)
	}
	if union, ok := typeUnion(list); ok && !typeOK(union, v) {
		*errs = append(*errs, typeErr(s.frag, v, union))
		return false
	}
	*errs = append(*errs, verr{msg: `No subschema in "` + kw + `" matched.`, sub: subs})
	return false
}

// typeUnion is the union of the branches' types when every branch
// declares some.
func typeUnion(list []*Schema) ([]string, bool) {
	var out []string
	seen := map[string]bool{}
	for _, b := range list {
		if len(b.types) == 0 {
			return nil, false
		}
		for _, t := range b.types {
			if !seen[t] {
				seen[t] = true
				out = append(out, t)
			}
		}
	}
	return out, true
}

func typeOK(types []string, v ojson.Value) bool {
	for _, t := range types {
		switch x := v.(type) {
		case nil:
			if t == "null" {
				return true
			}
		case bool:
			if t == "boolean" {
				return true
			}
		case string:
			if t == "string" {
				return true
			}
		case ojson.Number:
			if t == "number" || t == "integer" && x.IsInt() {
				return true
			}
		case []ojson.Value:
			if t == "array" {
				return true
			}
		case *ojson.Object:
			if t == "object" {
				return true
			}
		}
	}
	return false
}

func typeErr(frag string, v ojson.Value, types []string) verr {
	return verr{msg: fmt.Sprintf("For '%s', %s is not %s.", frag, rubyInspect(v), toList(types))}
}

// toList joins type names as GitHub does: "an integer or null",
// "a string, integer, or null".
func toList(types []string) string {
	var s string
	switch len(types) {
	case 1:
		s = types[0]
	case 2:
		s = types[0] + " or " + types[1]
	default:
		s = strings.Join(types[:len(types)-1], ", ") + ", or " + types[len(types)-1]
	}
	if strings.ContainsRune("aeiou", rune(s[0])) {
		return "an " + s
	}
	return "a " + s
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

func orEqual(inclusive bool) string {
	if inclusive {
		return " or equal to"
	}
	return ""
}

func member(enum []ojson.Value, v ojson.Value) bool {
	for _, e := range enum {
		if equal(e, v) {
			return true
		}
	}
	return false
}

func unique(list []ojson.Value) bool {
	if len(list) > 32 {
		// Pairwise comparison is quadratic: long arrays are compared by a
		// canonical form in which equal values (1 and 1.0 too) coincide.
		seen := make(map[string]bool, len(list))
		var b strings.Builder
		for _, v := range list {
			b.Reset()
			canon(&b, v)
			if seen[b.String()] {
				return false
			}
			seen[b.String()] = true
		}
		return true
	}
	for i := range list {
		for j := i + 1; j < len(list); j++ {
			if equal(list[i], list[j]) {
				return false
			}
		}
	}
	return true
}

// equal compares JSON values as Ruby compares the parsed data (1 == 1.0).
func equal(a, b ojson.Value) bool {
	switch x := a.(type) {
	case nil:
		return b == nil
	case bool:
		y, ok := b.(bool)
		return ok && x == y
	case string:
		y, ok := b.(string)
		return ok && x == y
	case ojson.Number:
		y, ok := b.(ojson.Number)
		if !ok {
			return false
		}
		if x == y {
			return true
		}
		fx, e1 := strconv.ParseFloat(string(x), 64)
		fy, e2 := strconv.ParseFloat(string(y), 64)
		return e1 == nil && e2 == nil && fx == fy
	case []ojson.Value:
		y, ok := b.([]ojson.Value)
		if !ok || len(x) != len(y) {
			return false
		}
		for i := range x {
			if !equal(x[i], y[i]) {
				return false
			}
		}
		return true
	case *ojson.Object:
		y, ok := b.(*ojson.Object)
		if !ok || len(x.Keys) != len(y.Keys) {
			return false
		}
		for i, k := range x.Keys {
			yv, ok := y.Get(k)
			if !ok || !equal(x.Vals[i], yv) {
				return false
			}
		}
		return true
	}
	return false
}

// canon writes a form of v in which values equal() calls equal coincide:
// numbers by their float value, objects with their keys sorted.
func canon(b *strings.Builder, v ojson.Value) {
	switch x := v.(type) {
	case nil:
		b.WriteString("n")
	case bool:
		if x {
			b.WriteString("t")
		} else {
			b.WriteString("f")
		}
	case string:
		b.WriteString(strconv.Quote(x))
	case ojson.Number:
		if f, err := strconv.ParseFloat(string(x), 64); err == nil {
			b.WriteString("#" + strconv.FormatFloat(f, 'g', -1, 64))
		} else {
			b.WriteString("#" + string(x))
		}
	case []ojson.Value:
		b.WriteString("[")
		for _, e := range x {
			canon(b, e)
			b.WriteString(",")
		}
		b.WriteString("]")
	case *ojson.Object:
		idx := make([]int, len(x.Keys))
		for i := range idx {
			idx[i] = i
		}
		sort.Slice(idx, func(i, j int) bool { return x.Keys[idx[i]] < x.Keys[idx[j]] })
		b.WriteString("{")
		for _, i := range idx {
			b.WriteString(strconv.Quote(x.Keys[i]) + ":")
			canon(b, x.Vals[i])
			b.WriteString(",")
		}
		b.WriteString("}")
	}
}
