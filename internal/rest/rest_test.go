package rest

import (
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/hubd/hubd/internal/model"
)

type sample struct {
	Name    string      `json:"name"`
	Private bool        `json:"private"`
	Count   int         `json:"count"`
	Tags    []string    `json:"tags"`
	Bio     Opt[string] `json:"bio"`
}

func decode(body string) (sample, error) {
	var s sample
	r := httptest.NewRequest("POST", "/", strings.NewReader(body))
	return s, Decode(r, &s)
}

func TestDecode(t *testing.T) {
	for _, tc := range []struct {
		body   string
		status int
		msg    string
	}{
		{`{"name":"x"}`, 0, ""},
		{``, 0, ""},
		{`{"name":"x","unknown":[1,2]}`, 0, ""},
		{`{"name":`, 400, "Problems parsing JSON"},
		{`nope`, 400, "Problems parsing JSON"},
		{`[1]`, 400, "Body should be a JSON object"},
		{`"str"`, 400, "Body should be a JSON object"},
		{`null`, 400, "Body should be a JSON object"},
		{`{"name":5}`, 422, "Invalid request.\n\nFor 'properties/name', 5 is not a string."},
		{`{"private":"yes"}`, 422, "Invalid request.\n\nFor 'properties/private', \"yes\" is not a boolean."},
		{`{"count":"1"}`, 422, "Invalid request.\n\nFor 'properties/count', \"1\" is not an integer."},
		{`{"tags":"a"}`, 422, "Invalid request.\n\nFor 'properties/tags', \"a\" is not an array."},
		{`{"bio":3}`, 422, "Invalid request.\n\nFor 'properties/bio', 3 is not a string."},
	} {
		_, err := decode(tc.body)
		if tc.status == 0 {
			if err != nil {
				t.Errorf("%q: %v", tc.body, err)
			}
			continue
		}
		var he *model.HTTPError
		if !errors.As(err, &he) || he.Status != tc.status || he.Message != tc.msg {
			t.Errorf("%q: got %v, want %d %q", tc.body, err, tc.status, tc.msg)
		}
	}
}

func TestOpt(t *testing.T) {
	s, _ := decode(`{"bio":null}`)
	if !s.Bio.Set || !s.Bio.Null {
		t.Fatalf("null: %+v", s.Bio)
	}
	s, _ = decode(`{}`)
	if s.Bio.Set {
		t.Fatalf("absent: %+v", s.Bio)
	}
	s, _ = decode(`{"bio":"hi"}`)
	if v, ok := s.Bio.Get(); !ok || v != "hi" {
		t.Fatalf("value: %+v", s.Bio)
	}
}

func TestDecodeTooLarge(t *testing.T) {
	w := httptest.NewRecorder()
	r := httptest.NewRequest("POST", "/", strings.NewReader(`{"name":"`+strings.Repeat("x", 100)+`"}`))
	r.Body = http.MaxBytesReader(w, r.Body, 10)
	var s sample
	var he *model.HTTPError
	if err := Decode(r, &s); !errors.As(err, &he) || he.Status != 413 {
		t.Fatalf("got %v", err)
	}
}

func FuzzDecode(f *testing.F) {
	for _, s := range []string{`{"name":"x"}`, `[`, `{"count":1e99}`, `{"tags":[1]}`, `{"bio":null}`, "\x00"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, body string) {
		_, err := decode(body)
		if err == nil {
			return
		}
		var he *model.HTTPError
		if !errors.As(err, &he) || (he.Status != 400 && he.Status != 422) {
			t.Fatalf("%q: %v is not a 400 or 422", body, err)
		}
	})
}

func TestLink(t *testing.T) {
	r := httptest.NewRequest("GET", "/user/repos?per_page=2&page=2&sort=created", nil)
	w := httptest.NewRecorder()
	p := ParsePage(r)
	SetLink(w, r, "http://h/api/v3", p, 7)
	want := `<http://h/api/v3/user/repos?page=3&per_page=2&sort=created>; rel="next", ` +
		`<http://h/api/v3/user/repos?page=4&per_page=2&sort=created>; rel="last", ` +
		`<http://h/api/v3/user/repos?page=1&per_page=2&sort=created>; rel="prev", ` +
		`<http://h/api/v3/user/repos?page=1&per_page=2&sort=created>; rel="first"`
	if got := w.Header().Get("Link"); got != want {
		t.Fatalf("Link:\n got %s\nwant %s", got, want)
	}
	// A single page has no Link header.
	w = httptest.NewRecorder()
	SetLink(w, httptest.NewRequest("GET", "/x", nil), "http://h", ParsePage(httptest.NewRequest("GET", "/x", nil)), 3)
	if w.Header().Get("Link") != "" {
		t.Fatal("Link on a single page")
	}
}

func TestParsePage(t *testing.T) {
	for q, want := range map[string]Page{
		"":                      {1, 30},
		"?per_page=500":         {1, 100},
		"?page=0&per_page=0":    {1, 30},
		"?page=x&per_page=y":    {1, 30},
		"?page=3&per_page=10":   {3, 10},
		"?page=-2&per_page=-10": {1, 30},
	} {
		if got := ParsePage(httptest.NewRequest("GET", "/"+q, nil)); got != want {
			t.Errorf("%q: %+v, want %+v", q, got, want)
		}
	}
}

func TestParseAccept(t *testing.T) {
	for in, want := range map[string]string{
		"":                                          "github.v3; format=json",
		"application/json":                          "github.v3; format=json",
		"application/vnd.github+json":               "github.v3; format=json",
		"application/vnd.github.v3+json":            "github.v3; format=json",
		"application/vnd.github.raw+json":           "github.v3; param=raw; format=json",
		"application/vnd.github.v3.html+json":       "github.v3; param=html; format=json",
		"application/vnd.github.v3.diff":            "github.v3; param=diff; format=diff",
		"application/vnd.github.mercy-preview+json": "github.v3; format=json",
	} {
		if got := ParseAccept(in).Header(); got != want {
			t.Errorf("%q: %q, want %q", in, got, want)
		}
	}
}
