package randid

import (
	"regexp"
	"testing"
)

// TestUUID: version 4, RFC 4122 variant, lower-case 8-4-4-4-12, and two
// calls differ.
func TestUUID(t *testing.T) {
	re := regexp.MustCompile(`^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$`)
	a, b := UUID(), UUID()
	if !re.MatchString(a) || !re.MatchString(b) || a == b {
		t.Fatalf("UUIDs %q and %q", a, b)
	}
}
