package gitserve

import (
	"bytes"
	"io"
	"strings"
	"testing"
)

func TestCommandReader(t *testing.T) {
	z, a, b := strings.Repeat("0", 40), strings.Repeat("a", 40), strings.Repeat("b", 40)
	body := string(pktLine(z+" "+a+" refs/heads/main\x00report-status side-band-64k")) +
		string(pktLine(b+" "+z+" refs/heads/old")) + "0000" + "PACK...binary..."
	// Feed it in 3-byte reads so pkt-lines straddle reads.
	cr := &commandReader{r: &slowReader{s: body}}
	out, err := io.ReadAll(cr)
	if err != nil || string(out) != body {
		t.Fatalf("passthrough: %v %q", err, out)
	}
	if len(cr.commands) != 2 || cr.commands[0].Name != "refs/heads/main" || cr.commands[0].New != a || cr.commands[1].New != z {
		t.Fatalf("commands: %+v", cr.commands)
	}
}

type slowReader struct{ s string }

func (r *slowReader) Read(p []byte) (int, error) {
	if r.s == "" {
		return 0, io.EOF
	}
	n := copy(p[:min(3, len(p))], r.s)
	r.s = r.s[n:]
	return n, nil
}

func FuzzCommandReader(f *testing.F) {
	f.Add([]byte("0067" + strings.Repeat("0", 40) + " " + strings.Repeat("1", 40) + " refs/heads/x\x00caps0000PACK"))
	f.Fuzz(func(t *testing.T, data []byte) {
		cr := &commandReader{r: bytes.NewReader(data)}
		out, _ := io.ReadAll(cr)
		if !bytes.Equal(out, data) {
			t.Fatal("the body was changed")
		}
	})
}
