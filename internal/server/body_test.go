package server

import (
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/hubd/hubd/internal/model"
	"github.com/hubd/hubd/internal/rest"
)

// TestCheckBody covers which requests the schema check looks at and what
// it answers at once; TestBodiesOverHTTP (reqschema) runs it end to end.
func TestCheckBody(t *testing.T) {
	route := func(op string, ext bool) *rest.Route { return &rest.Route{OperationID: op, Extension: ext} }
	for _, tc := range []struct {
		name, method, body string
		rt                 *rest.Route
		status             int  // answered at once (0: no)
		held               bool // 422 held for the handler's read
	}{
		{"valid", "POST", `{"title":"x"}`, route("issues/create", false), 0, false},
		{"invalid is held", "POST", `{}`, route("issues/create", false), 0, true},
		{"empty required body is {}", "POST", ``, route("issues/create", false), 0, true},
		{"empty optional body is not checked", "PUT", ``, route("issues/lock", false), 0, false},
		{"extension routes have no schema", "POST", `{}`, route("issues/create", true), 0, false},
		{"GET is not checked", "GET", `{`, route("issues/create", false), 0, false},
		{"text bodies are not checked", "POST", `# hi`, route("markdown/render-raw", false), 0, false},
		{"unknown operation", "POST", `{`, route("hubd/nothing", false), 0, false},
		{"malformed", "POST", `{"title":`, route("issues/create", false), 400, false},
		{"not an object", "POST", `[1]`, route("issues/create", false), 400, false},
		{"array where the schema takes one", "POST", `["bug"]`, route("issues/add-labels", false), 0, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := httptest.NewRequest(tc.method, "/", strings.NewReader(tc.body))
			held, err := checkBody(r, tc.rt)
			var he *model.HTTPError
			switch {
			case tc.status != 0:
				if !errors.As(err, &he) || he.Status != tc.status {
					t.Fatalf("got %v, want %d", err, tc.status)
				}
				return
			case err != nil:
				t.Fatalf("unexpected %v", err)
			}
			if (held != nil) != tc.held {
				t.Fatalf("held %v, want %v", held, tc.held)
			}
			b, err := io.ReadAll(r.Body)
			if tc.held {
				if !errors.As(err, &he) || he.Status != 422 || !held.read {
					t.Fatalf("read: %v", err)
				}
				return
			}
			if err != nil || string(b) != tc.body {
				t.Fatalf("handler reads %q %v, want the same bytes", b, err)
			}
		})
	}
}

func TestCheckBodyTooLarge(t *testing.T) {
	w := httptest.NewRecorder()
	r := httptest.NewRequest("POST", "/", strings.NewReader(`{"title":"`+strings.Repeat("x", 100)+`"}`))
	r.Body = http.MaxBytesReader(w, r.Body, 10)
	var he *model.HTTPError
	if _, err := checkBody(r, &rest.Route{OperationID: "issues/create"}); !errors.As(err, &he) || he.Status != 413 {
		t.Fatalf("got %v", err)
	}
}

// TestHandleHeld: a handler that refuses before reading keeps its answer;
// one that reads gets the schema's 422 whatever it returns.
func TestHandleHeld(t *testing.T) {
	notFound := &rest.Route{OperationID: "issues/create", Handler: func(w http.ResponseWriter, r *http.Request) error { return model.ErrNotFound }}
	reads := &rest.Route{OperationID: "issues/create", Handler: func(w http.ResponseWriter, r *http.Request) error {
		_, err := io.ReadAll(r.Body)
		if err != nil {
			return model.BadRequest("Problems parsing JSON") // a handler's own mapping
		}
		return nil
	}}
	r := httptest.NewRequest("POST", "/", strings.NewReader(`{}`))
	if err := handle(notFound, httptest.NewRecorder(), r); !errors.Is(err, model.ErrNotFound) {
		t.Errorf("refusal before reading: %v", err)
	}
	r = httptest.NewRequest("POST", "/", strings.NewReader(`{}`))
	var he *model.HTTPError
	if err := handle(reads, httptest.NewRecorder(), r); !errors.As(err, &he) || he.Status != 422 || he.Message != "Invalid request.\n\n\"title\" wasn't supplied." {
		t.Errorf("after reading: %v", err)
	}
}
