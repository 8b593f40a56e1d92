package rest

import (
	"errors"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/hubd/hubd/internal/model"
)

// TestDecodeTypeWording checks the wording of wrong types the schema
// check leaves to Decode: nested fields name their own property, array
// elements are 'items', and values print as GitHub (Ruby) prints them.
func TestDecodeTypeWording(t *testing.T) {
	type inner struct {
		Name string `json:"name"`
	}
	type body struct {
		Author inner    `json:"author"`
		Tags   []string `json:"tags"`
		Count  int      `json:"count"`
		Obj    string   `json:"obj"`
	}
	for _, tc := range []struct{ body, msg string }{
		{`{"author":{"name":5}}`, "Invalid request.\n\nFor 'properties/name', 5 is not a string."},
		{`{"tags":["a",1]}`, "Invalid request.\n\nFor 'items', 1 is not a string."},
		{`{"count":1.5}`, "Invalid request.\n\nFor 'properties/count', 1.5 is not an integer."},
		{`{"obj":{"a":[1,null]}}`, "Invalid request.\n\nFor 'properties/obj', {\"a\" => [1, nil]} is not a string."},
	} {
		var b body
		r := httptest.NewRequest("POST", "/", strings.NewReader(tc.body))
		err := Decode(r, &b)
		var he *model.HTTPError
		if !errors.As(err, &he) || he.Status != 422 || he.Message != tc.msg {
			t.Errorf("%s: got %v, want 422 %q", tc.body, err, tc.msg)
		}
	}
}
