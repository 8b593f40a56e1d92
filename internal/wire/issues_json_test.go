package wire

import (
	"bytes"
	"encoding/json"
	"reflect"
	"testing"
)

var tricky = []string{
	"plain", `quote" back\slash`, "<tag>&amp;", "line\nbreak\ttab\r\x01\x1f\b\f", "\u2028sep\u2029",
	"ünïcødé ✓ 🎉", string([]byte{0xff, 'a', 0xc3}), "", "http://h/api/v3/repos/o/r/issues/1",
}

// fill sets every field reachable from v: strings from tricky, numbers and
// booleans from seed, pointers allocated unless nilPtrs, slices of two
// elements unless empty. Pointers to empty structs (always null in hubd's
// shapes) and interfaces stay nil.
func fill(v reflect.Value, seed *int, nilPtrs, empty bool, depth int) {
	*seed++
	switch v.Kind() {
	case reflect.String:
		v.SetString(tricky[*seed%len(tricky)])
	case reflect.Int, reflect.Int64, reflect.Int32:
		v.SetInt(int64(*seed * 7919))
	case reflect.Float64:
		v.SetFloat(float64(*seed) / 4)
	case reflect.Bool:
		v.SetBool(*seed%2 == 0)
	case reflect.Pointer:
		if nilPtrs || depth > 6 || (v.Type().Elem().Kind() == reflect.Struct && v.Type().Elem().NumField() == 0) {
			return
		}
		p := reflect.New(v.Type().Elem())
		fill(p.Elem(), seed, nilPtrs, empty, depth+1)
		v.Set(p)
	case reflect.Slice:
		if empty {
			v.Set(reflect.MakeSlice(v.Type(), 0, 0))
			return
		}
		s := reflect.MakeSlice(v.Type(), 2, 2)
		for i := 0; i < 2; i++ {
			fill(s.Index(i), seed, nilPtrs, empty, depth+1)
		}
		v.Set(s)
	case reflect.Map:
		if v.Type().Key().Kind() == reflect.String && v.Type().Elem().Kind() == reflect.Interface {
			v.Set(reflect.ValueOf(map[string]any{"k": "<v>"}))
		}
	case reflect.Struct:
		for i := 0; i < v.NumField(); i++ {
			if v.Type().Field(i).IsExported() {
				fill(v.Field(i), seed, nilPtrs, empty, depth+1)
			}
		}
	}
}

func encodeStd(t *testing.T, v any) []byte {
	t.Helper()
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// AppendIssues writes exactly what encoding/json writes, for every field
// of the issue shape (a field added to the shape without its appender
// fails here).
func TestAppendIssuesMatchesEncodingJSON(t *testing.T) {
	for _, tc := range []struct {
		name           string
		nilPtrs, empty bool
		present        bool
	}{
		{"full", false, false, true},
		{"nil pointers", true, false, false},
		{"empty slices", false, true, true},
		{"absent optional fields", false, false, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			seed := 0
			list := make([]Issue, 3)
			for i := range list {
				fill(reflect.ValueOf(&list[i]).Elem(), &seed, tc.nilPtrs, tc.empty, 0)
				if !tc.present {
					list[i].Body.Raw.Present = false
					list[i].ClosedBy.Present = false
				}
			}
			// A shared user, as IssueWriter.User hands out.
			u := SimpleUser{Login: "mona", ID: 1, Type: "User"}
			list[1].User, list[2].User = &u, &u
			w := &IssueWriter{}
			got := w.AppendIssues(nil, list)
			want := encodeStd(t, list)
			if !bytes.Equal(got, want) {
				i := 0
				for i < len(got) && i < len(want) && got[i] == want[i] {
					i++
				}
				t.Fatalf("differ at byte %d:\n got %.300s\nwant %.300s", i, got[max(0, i-100):], want[max(0, i-100):])
			}
		})
	}
	if got := (&IssueWriter{}).AppendIssues(nil, []Issue{}); string(got) != "[]\n" {
		t.Fatalf("empty list %q", got)
	}
}
