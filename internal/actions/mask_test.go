package actions

import (
	"encoding/base64"
	"strings"
	"testing"
)

// TestSecretMasks: a value's base64 form is masked wherever the value sits
// in the encoded text, and each line of a multi-line value is masked.
func TestSecretMasks(t *testing.T) {
	const v = "s3cr3t-value"
	masks := SecretMasks(map[string]string{"A": v, "B": "line-one\nline-two\n"})
	for pre := range 6 {
		for post := range 3 {
			enc := base64.StdEncoding.EncodeToString([]byte(strings.Repeat("x", pre) + v + strings.Repeat("y", post)))
			if got := Mask(enc, masks); !strings.Contains(got, "***") {
				t.Errorf("prefix %d suffix %d: %s unmasked", pre, post, enc)
			}
		}
	}
	if got := Mask("a line-two b line-one", masks); got != "a *** b ***" {
		t.Errorf("lines: %q", got)
	}
	if got := Mask("nothing here", masks); got != "nothing here" {
		t.Errorf("plain text: %q", got)
	}
}
