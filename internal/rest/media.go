package rest

import (
	"strings"
)

// Media is the media type a client asked for in Accept:
// application/vnd.github[.VERSION][.PARAM][+FORMAT].
type Media struct {
	Version string // "v3" unless the client named another
	Param   string // raw, html, text, full, diff, patch, sha, base64, object, star, ...
	Format  string // json by default
}

// ParseAccept reads the first GitHub media type in an Accept header.
func ParseAccept(accept string) Media {
	m := Media{Version: "v3", Format: "json"}
	for _, part := range strings.Split(accept, ",") {
		t := strings.TrimSpace(strings.SplitN(part, ";", 2)[0])
		rest, ok := strings.CutPrefix(t, "application/vnd.github")
		if !ok {
			continue
		}
		plus := strings.IndexByte(rest, '+')
		if plus >= 0 {
			m.Format = rest[plus+1:]
			rest = rest[:plus]
		}
		for _, seg := range strings.Split(strings.TrimPrefix(rest, "."), ".") {
			switch {
			case seg == "":
			case len(seg) >= 2 && seg[0] == 'v' && seg[1] >= '0' && seg[1] <= '9':
				m.Version = seg
			case strings.HasSuffix(seg, "-preview"):
				// previews are accepted and ignored
			default:
				m.Param = seg
			}
		}
		if plus < 0 && m.Param != "" {
			// application/vnd.github.diff: the param is the format too.
			m.Format = m.Param
		}
		break
	}
	return m
}

// Header is the X-GitHub-Media-Type value.
func (m Media) Header() string {
	s := "github." + m.Version + ";"
	if m.Param != "" {
		s += " param=" + m.Param + ";"
	}
	return s + " format=" + m.Format
}
