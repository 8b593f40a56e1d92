// Package audit is the audit log's service: GitHub's search phrase
// (action:, actor:, user:, repo:, org:, created:), cursor paging and the
// search itself. The entries are written by the store with the domain
// events they derive from (store/audit.go), in the change's transaction;
// streams (stream.go) send them on to HTTPS endpoints through the job queue.
package audit

import (
	"context"
	"encoding/base64"
	"strconv"
	"strings"
	"time"

	"github.com/hubd/hubd/internal/model"
	"github.com/hubd/hubd/internal/store"
)

// Service searches the audit log.
type Service struct {
	Store *store.Store
}

// New makes the service.
func New(st *store.Store) *Service { return &Service{Store: st} }

// Page is one page of a search: its entries and the cursors of the pages
// next to it ("" when there is none).
type Page struct {
	Entries    []model.AuditEntry
	Next, Prev string
}

// Search runs q; after and before are the request's cursors.
func (s *Service) Search(ctx context.Context, q model.AuditQuery) (*Page, error) {
	entries, more, err := s.Store.R().SearchAudit(ctx, q)
	if err != nil {
		return nil, err
	}
	p := &Page{Entries: entries}
	if len(entries) == 0 {
		return p, nil
	}
	first, last := Cursor(entries[0]), Cursor(entries[len(entries)-1])
	if q.Before != nil {
		p.Next = last
		if more {
			p.Prev = first
		}
		return p, nil
	}
	if more {
		p.Next = last
	}
	if q.After != nil {
		p.Prev = first
	}
	return p, nil
}

// Cursor is an entry's opaque cursor.
func Cursor(e model.AuditEntry) string {
	raw := strconv.FormatInt(e.CreatedAt.UnixMilli(), 10) + "|" + strconv.FormatInt(e.ID, 10)
	return base64.RawURLEncoding.EncodeToString([]byte(raw))
}

// ParseCursor reads a cursor; a malformed one is invalid input.
func ParseCursor(s string) (*model.AuditCursor, error) {
	if s == "" {
		return nil, nil
	}
	raw, err := base64.RawURLEncoding.DecodeString(strings.TrimRight(s, "="))
	if err == nil {
		ms, id, ok := strings.Cut(string(raw), "|")
		c := &model.AuditCursor{}
		var e1, e2 error
		c.CreatedMS, e1 = strconv.ParseInt(ms, 10, 64)
		c.ID, e2 = strconv.ParseInt(id, 10, 64)
		if ok && e1 == nil && e2 == nil {
			return c, nil
		}
	}
	return nil, model.Unprocessable("Invalid cursor: " + s)
}

// ParsePhrase reads GitHub's audit log search phrase into q. Qualifiers
// are key:value, - before one excludes (action only), several values of one
// key match any of them; free text is ignored (the audit log has no text
// search). created: takes a date or time, with >, >=, <, <= or a range
// a..b (either side * for open).
func ParsePhrase(phrase string, q *model.AuditQuery) error {
	for _, tok := range splitPhrase(phrase) {
		neg := strings.HasPrefix(tok, "-")
		key, val, ok := strings.Cut(strings.TrimPrefix(tok, "-"), ":")
		if !ok || val == "" {
			continue
		}
		val = strings.Trim(val, `"`)
		switch strings.ToLower(key) {
		case "action", "operation":
			if neg {
				q.NotActions = append(q.NotActions, val)
			} else if strings.Contains(val, ".") {
				q.Actions = append(q.Actions, val)
			} else {
				q.ActionPrefixes = append(q.ActionPrefixes, val)
			}
		case "actor":
			q.Actors = append(q.Actors, val)
		case "user":
			q.Users = append(q.Users, val)
		case "repo", "repository":
			q.Repos = append(q.Repos, val)
		case "org":
			q.Orgs = append(q.Orgs, val)
		case "created":
			since, until, err := parseCreated(val)
			if err != nil {
				return err
			}
			if !since.IsZero() && since.After(q.Since) {
				q.Since = since
			}
			if !until.IsZero() && (q.Until.IsZero() || until.Before(q.Until)) {
				q.Until = until
			}
		}
	}
	return nil
}

// splitPhrase splits on spaces outside double quotes.
func splitPhrase(s string) []string {
	var out []string
	var b strings.Builder
	quoted := false
	for _, r := range s {
		switch {
		case r == '"':
			quoted = !quoted
			b.WriteRune(r)
		case (r == ' ' || r == '\t' || r == '+') && !quoted:
			if b.Len() > 0 {
				out = append(out, b.String())
				b.Reset()
			}
		default:
			b.WriteRune(r)
		}
	}
	if b.Len() > 0 {
		out = append(out, b.String())
	}
	return out
}

// parseCreated turns a created: value into [since, until) (zero: open).
func parseCreated(v string) (since, until time.Time, err error) {
	if a, b, ok := strings.Cut(v, ".."); ok {
		if a != "*" {
			if since, _, err = instant(a); err != nil {
				return
			}
		}
		if b != "*" {
			if _, until, err = instant(b); err != nil {
				return
			}
		}
		return
	}
	op := ""
	for _, p := range []string{">=", "<=", ">", "<"} {
		if strings.HasPrefix(v, p) {
			op, v = p, v[len(p):]
			break
		}
	}
	start, end, err := instant(v)
	if err != nil {
		return
	}
	switch op {
	case ">=":
		since = start
	case ">":
		since = end
	case "<":
		until = start
	case "<=":
		until = end
	default:
		since, until = start, end
	}
	return
}

// instant parses a date (the whole day: [day, next day)) or a time (that
// second).
func instant(v string) (start, end time.Time, err error) {
	if t, e := time.Parse("2006-01-02", v); e == nil {
		return t, t.AddDate(0, 0, 1), nil
	}
	for _, layout := range []string{time.RFC3339, "2006-01-02T15:04:05", "2006-01-02T15:04"} {
		if t, e := time.Parse(layout, v); e == nil {
			return t, t.Add(time.Second), nil
		}
	}
	return start, end, model.Unprocessable("Invalid created date: " + v)
}
