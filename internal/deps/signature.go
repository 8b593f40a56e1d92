package deps

import (
	"strings"
	"time"

	"github.com/hubd/hubd/internal/gitrepo"
	"github.com/hubd/hubd/internal/model"
)

// Signature is a user's commit identity: their name (or login) and public
// email, or a no-reply address of this instance when they have none; nil
// is the instance itself (installation tokens, the committer of merges).
func (d *Deps) Signature(u *model.Account, when time.Time) gitrepo.Signature {
	if u == nil {
		return gitrepo.Signature{Name: "GitHub", Email: "noreply@" + strings.TrimPrefix(d.URLs.NoreplyDomain(), "users.noreply."), When: when}
	}
	name := u.Name
	if name == "" {
		name = u.Login
	}
	return gitrepo.Signature{Name: IdentityText(name), Email: IdentityText(d.URLs.CommitEmail(u)), When: when}
}

// IdentityText drops what would break a commit's author line.
func IdentityText(s string) string {
	return strings.TrimSpace(strings.Map(func(r rune) rune {
		switch r {
		case '<', '>', '\n', '\r', 0:
			return -1
		}
		return r
	}, s))
}
