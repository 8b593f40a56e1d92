package hookstest

import (
	"strings"
	"testing"
)

// The validator must reject what GitHub's schema rejects, or the payload
// checks of the webhook tests prove nothing.
func TestValidateRejects(t *testing.T) {
	s, err := Load()
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct{ event, body, want string }{
		{"issues", `{"action":"opened"}`, "issue"},
		{"issues", `{"action":"opened","issue":{"id":"x"},"repository":{},"sender":{}}`, ""},
		{"push", `{"ref":1}`, ""},
		{"ping", `{"zen":5}`, "zen"},
		{"nosuch", `{}`, "no schema"},
	} {
		err := s.Validate(c.event, []byte(c.body))
		if err == nil {
			t.Errorf("%s %s validated", c.event, c.body)
			continue
		}
		if c.want != "" && !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s %s: %v, want mention of %q", c.event, c.body, err, c.want)
		}
	}
	if err := s.Validate("ping", []byte(`{"zen":"Design for failure.","hook_id":1}`)); err != nil {
		t.Errorf("a minimal ping: %v", err)
	}
}
