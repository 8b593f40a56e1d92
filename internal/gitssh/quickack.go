package gitssh

import (
	"net"
	"syscall"
)

// quickAckListener hands out connections that acknowledge what they read at
// once (see quickAckConn).
type quickAckListener struct{ net.Listener }

func (l quickAckListener) Accept() (net.Conn, error) {
	c, err := l.Listener.Accept()
	if err != nil {
		return nil, err
	}
	tc, ok := c.(*net.TCPConn)
	if !ok {
		return c, nil
	}
	rc, err := tc.SyscallConn()
	if err != nil {
		return c, nil
	}
	return &quickAckConn{Conn: c, raw: rc}, nil
}

// quickAckConn asks the kernel, before each read, to acknowledge the next
// segments without delay. OpenSSH's client leaves Nagle's algorithm on for
// a session without a terminal (git's), so each time it writes two small
// messages in a row — KEXINIT then the key exchange, NEWKEYS then the
// service request, the exec and env requests, git's commands — the second
// waits until the server acknowledges the first; with delayed ACKs that is
// ~40 ms each time, most of a sign-in's ~100 ms. Linux leaves quick-ACK
// mode by itself, so it is asked for again before a read — unless the
// last read filled a buffer of at least 4 KiB (x/crypto reads through one
// that size, and the version line a byte at a time): data is streaming in
// (a push), the next read will not wait, and delayed ACKs (and no system
// call) suit a stream.
// Nothing is weakened: only when the acknowledgements are sent changes.
type quickAckConn struct {
	net.Conn
	raw       syscall.RawConn
	streaming bool
}

func (c *quickAckConn) Read(p []byte) (int, error) {
	if !c.streaming {
		c.raw.Control(quickAck)
	}
	n, err := c.Conn.Read(p)
	c.streaming = n == len(p) && n >= 4<<10
	return n, err
}
