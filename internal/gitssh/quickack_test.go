package gitssh

import (
	"io"
	"net"
	"path/filepath"
	"testing"
)

// TestQuickAckListener: a TCP connection comes out of the listener wrapped
// (its reads ask for quick ACKs) and carries data as before; a connection
// of another kind (a Unix socket) comes out as it is.
func TestQuickAckListener(t *testing.T) {
	check := func(network, addr string, wrapped bool) {
		t.Helper()
		ln, err := net.Listen(network, addr)
		if err != nil {
			t.Fatal(err)
		}
		defer ln.Close()
		l := quickAckListener{ln}
		go func() {
			c, err := net.Dial(network, ln.Addr().String())
			if err != nil {
				return
			}
			c.Write([]byte("SSH-2.0-test\r\n"))
			c.Close()
		}()
		c, err := l.Accept()
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
		if _, ok := c.(*quickAckConn); ok != wrapped {
			t.Fatalf("%s: wrapped %v, want %v", network, ok, wrapped)
		}
		b, err := io.ReadAll(c)
		if err != nil || string(b) != "SSH-2.0-test\r\n" {
			t.Fatalf("%s: read %q, %v", network, b, err)
		}
	}
	check("tcp", "127.0.0.1:0", true)
	check("unix", filepath.Join(t.TempDir(), "s"), false)
}
