package issues

import (
	"context"
	"regexp"
	"strings"

	"github.com/hubd/hubd/internal/closing"
	"github.com/hubd/hubd/internal/model"
	"github.com/hubd/hubd/internal/store"
)

// What issue and comment bodies say about other users and issues:
// @mentions (the mentioned filter) and #N / owner/repo#N references
// (cross-referenced timeline events).

var (
	mentionRE = regexp.MustCompile("(?:^|[^A-Za-z0-9_@/.`-])@([A-Za-z0-9](?:[A-Za-z0-9]|-[A-Za-z0-9]){0,38})")
)

// maxRefs bounds the mentions and references taken from one body.
const maxRefs = 50

// mentions lists the logins a body mentions, each once.
func mentions(body string) []string {
	var out []string
	seen := map[string]bool{}
	for _, m := range mentionRE.FindAllStringSubmatch(body, -1) {
		l := strings.ToLower(m[1])
		if !seen[l] && len(out) < maxRefs {
			seen[l] = true
			out = append(out, m[1])
		}
	}
	return out
}

// crossReference records a cross-referenced event on every issue body
// references (internal/closing).
func crossReference(ctx context.Context, tx store.Q, x *Access, source *model.Issue, actor int64, body string) error {
	return closing.CrossReference(ctx, tx, x.Repo, source, actor, body)
}
