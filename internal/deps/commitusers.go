package deps

import (
	"context"
	"strconv"
	"strings"

	"github.com/hubd/hubd/internal/model"
)

// AccountsByCommitEmail maps commit addresses to users as GitHub attributes
// commits: by a user's email, or by this instance's no-reply address
// (<id>+<login>@ or <login>@users.noreply.<host>). Keys of the result are
// lower case; addresses no user has are absent. Queries are batched.
func (d *Deps) AccountsByCommitEmail(ctx context.Context, emails []string) (map[string]*model.Account, error) {
	domain := "@" + strings.ToLower(d.URLs.NoreplyDomain())
	type noreply struct {
		login string
		id    int64 // 0 when the address has no id
	}
	seen := map[string]bool{}
	replies := map[string]noreply{}
	var plain, logins []string
	for _, email := range emails {
		e := strings.ToLower(email)
		if e == "" || seen[e] {
			continue
		}
		seen[e] = true
		if local, ok := strings.CutSuffix(e, domain); ok {
			n := noreply{login: local}
			if id, login, ok := strings.Cut(local, "+"); ok {
				v, err := strconv.ParseInt(id, 10, 64)
				if err != nil {
					continue
				}
				n = noreply{login: login, id: v}
			}
			replies[e] = n
			logins = append(logins, n.login)
		} else {
			plain = append(plain, e)
		}
	}
	out := map[string]*model.Account{}
	byLogin := map[string]*model.Account{}
	const chunk = 1000 // bounds a query's parameters
	for i := 0; i < len(plain) || i < len(logins); i += chunk {
		list, err := d.Store.R().UsersForCommits(ctx, window(plain, i, chunk), window(logins, i, chunk))
		if err != nil {
			return nil, err
		}
		for _, acc := range list {
			if acc.Email != "" {
				out[strings.ToLower(acc.Email)] = acc
			}
			byLogin[strings.ToLower(acc.Login)] = acc
		}
	}
	for e, n := range replies {
		if acc := byLogin[n.login]; acc != nil && (n.id == 0 || n.id == acc.ID) {
			out[e] = acc
		}
	}
	return out, nil
}

func window(s []string, from, n int) []string {
	if from >= len(s) {
		return nil
	}
	return s[from:min(from+n, len(s))]
}
