// Package randid makes random identifiers: the UUIDs GitHub gives webhook
// deliveries, merge requests, migrations and SCIM resources.
package randid

import (
	"crypto/rand"
	"encoding/hex"
)

// UUID is a random (version 4) UUID in its 8-4-4-4-12 hexadecimal form.
// crypto/rand.Read never fails (it aborts the process when the system
// has no randomness).
func UUID() string {
	var b [16]byte
	rand.Read(b[:])
	b[6] = b[6]&0x0f | 0x40
	b[8] = b[8]&0x3f | 0x80
	h := hex.EncodeToString(b[:])
	return h[:8] + "-" + h[8:12] + "-" + h[12:16] + "-" + h[16:20] + "-" + h[20:]
}
