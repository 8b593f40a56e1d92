// Package closing holds what text says about issues beyond a plain
// mention: GitHub's closing keywords ("Fixes #1") and the rule that closes
// the issues they name when the change lands on a repository's default
// branch, by a pushed commit or a merged pull request.
package closing

import (
	"regexp"
	"strconv"
	"strings"
)

// Ref is an issue a text names: Owner and Repo are empty for the same
// repository (#N).
type Ref struct {
	Owner, Repo string
	Number      int64
}

// keywordRE finds GitHub's nine closing keywords in any case, with or
// without a colon, before #N, owner/repo#N or an issue's URL.
var keywordRE = regexp.MustCompile(`(?i)(?:^|[^A-Za-z0-9_])(?:close[sd]?|fix(?:e[sd])?|resolve[sd]?):?[ \t]+` +
	`(?:([A-Za-z0-9][A-Za-z0-9-]{0,38})/([A-Za-z0-9._-]{1,100})#([0-9]{1,9})|#([0-9]{1,9})|(https?://[^\s/]+(?:/[^\s/]+)*?)/([A-Za-z0-9][A-Za-z0-9-]{0,38})/([A-Za-z0-9._-]{1,100})/issues/([0-9]{1,9}))\b`)

// maxRefs bounds the issues one text may close.
const maxRefs = 50

// Parse lists the issues text names after a closing keyword, each once.
// Issue URLs count only under web (hubd's web address, e.g.
// http://127.0.0.1:8080); "" accepts none.
func Parse(text, web string) []Ref {
	var out []Ref
	seen := map[Ref]bool{}
	web = strings.TrimRight(web, "/")
	for _, m := range keywordRE.FindAllStringSubmatch(text, -1) {
		var r Ref
		var num string
		switch {
		case m[3] != "":
			r.Owner, r.Repo, num = m[1], m[2], m[3]
		case m[4] != "":
			num = m[4]
		default:
			if web == "" || !strings.EqualFold(m[5], web) {
				continue
			}
			r.Owner, r.Repo, num = m[6], m[7], m[8]
		}
		n, err := strconv.ParseInt(num, 10, 64)
		if err != nil || n == 0 {
			continue
		}
		r.Owner, r.Repo, r.Number = strings.ToLower(r.Owner), strings.ToLower(strings.TrimSuffix(r.Repo, ".git")), n
		if !seen[r] && len(out) < maxRefs {
			seen[r] = true
			out = append(out, r)
		}
	}
	return out
}

// Same reports whether r names an issue of owner/name (written #N, or with
// that repository's name).
func (r Ref) Same(owner, name string) bool {
	return r.Owner == "" || (strings.EqualFold(r.Owner, owner) && strings.EqualFold(r.Repo, name))
}
