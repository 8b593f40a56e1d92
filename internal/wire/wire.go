// Package wire holds GitHub's JSON shapes, named after the OpenAPI components
// they implement, and pure converters from model types. Fields GitHub sends
// as null are pointers without omitempty.
package wire

import (
	"encoding/base64"
	"encoding/binary"
	"net/url"
	"time"
)

// URLs builds every url, html_url and *_url from the configured external URL.
type URLs struct {
	API string // e.g. http://127.0.0.1:8080/api/v3 (no trailing slash)
	Web string // e.g. http://127.0.0.1:8080
	// Enterprise is the slug of hubd's one enterprise ("": "hubd").
	Enterprise string
	// SSHBase prefixes "owner/repo.git" in ssh_url when hubd's SSH
	// server runs (SSHBaseFor); "" when it does not.
	SSHBase string
}

// NewURLs derives the API and web bases from an external URL.
func NewURLs(external string) URLs {
	u, err := url.Parse(external)
	if err != nil || u.Host == "" {
		u = &url.URL{Scheme: "http", Host: "127.0.0.1:8080"}
	}
	web := u.Scheme + "://" + u.Host + trimSlash(u.Path)
	return URLs{API: web + "/api/v3", Web: web}
}

func trimSlash(p string) string {
	for len(p) > 0 && p[len(p)-1] == '/' {
		p = p[:len(p)-1]
	}
	return p
}

// Time is GitHub's timestamp format: UTC, seconds, Z.
func Time(t time.Time) string { return t.UTC().Format("2006-01-02T15:04:05Z") }

// TimePtr formats an optional timestamp (nil stays null).
func TimePtr(t *time.Time) *string {
	if t == nil {
		return nil
	}
	s := Time(*t)
	return &s
}

// NodeID is GitHub's global id format: a type prefix, an underscore and the
// base64 of a MessagePack array [0, id].
func NodeID(prefix string, id int64) string {
	b := []byte{0x92, 0x00}
	u := uint64(id)
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
	return prefix + "_" + base64.RawURLEncoding.EncodeToString(b)
}

func strPtr(s string) *string {
	if s == "" {
		return nil
	}
	return &s
}
