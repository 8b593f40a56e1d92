package wire

import (
	"encoding/base64"
	"encoding/binary"
)

// NodeID3 is the global id of a discussion, discussion comment or
// category: a type prefix ("D", "DC", "DIC"), an underscore and the base64
// of the MessagePack array [0, repository id, id], as GitHub's (gh builds a
// comment's id from its URL this way).
func NodeID3(prefix string, repoID, id int64) string {
	b := []byte{0x93, 0x00}
	for _, n := range []int64{repoID, id} {
		u := uint64(n)
		switch {
		case u < 128:
			b = append(b, byte(u))
		case u < 1<<8:
			b = append(b, 0xcc, byte(u))
		case u < 1<<16:
			b = binary.BigEndian.AppendUint16(append(b, 0xcd), uint16(u))
		case u < 1<<32:
			b = binary.BigEndian.AppendUint32(append(b, 0xce), uint32(u))
		default:
			b = binary.BigEndian.AppendUint64(append(b, 0xcf), u)
		}
	}
	return prefix + "_" + base64.RawURLEncoding.EncodeToString(b)
}
