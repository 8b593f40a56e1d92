package actions

import (
	"regexp"
	"strings"
	"testing"
)

// The log keeps its first max bytes, stamps the lines that have no time,
// leaves stamped ones alone and ends with a note when cut.
func TestCappedBuffer(t *testing.T) {
	c := &cappedBuffer{max: 200}
	c.Write([]byte("2026-11-24T11:00:00.0000000Z stamped\nplain "))
	c.Write([]byte("line\n" + strings.Repeat("x", 300)))
	s := c.String()
	lines := strings.Split(strings.TrimSuffix(s, "\n"), "\n")
	stamp := regexp.MustCompile(`^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{7}Z `)
	if lines[0] != "2026-11-24T11:00:00.0000000Z stamped" || !stamp.MatchString(lines[1]) || !strings.HasSuffix(lines[1], " plain line") {
		t.Fatalf("lines %q", lines)
	}
	last := lines[len(lines)-1]
	if !stamp.MatchString(last) || !strings.Contains(last, "The log was cut:") || len(s) > 200+len(last)+1 {
		t.Fatalf("cut: %d bytes, last %q", len(s), last)
	}
}
