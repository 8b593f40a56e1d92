package search

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/hubd/hubd/internal/model"
	"github.com/hubd/hubd/internal/store"
)

// GitHub's 422 answers to queries it cannot run. Each is a validation
// error on the Search resource's q field.
const (
	msgUsers         = "The listed users cannot be searched either because the users do not exist or you do not have permission to view the users."
	msgUsersAndRepos = "The listed users and repositories cannot be searched either because the resources do not exist or you do not have permission to view them."
	msgTooLong       = "The search is longer than 256 characters."
	msgOperators     = "More than five AND / OR / NOT operators were used."
	msgTooMany       = "The search contains more than 200 terms, qualifiers and parentheses."
	msgDate          = "%q is not a recognized date/time format. Please provide an ISO 8601 date/time value, such as YYYY-MM-DD."
)

// invalidQuery is the 422 of a query GitHub refuses, with its reason.
func invalidQuery(msg string) error {
	return &model.ValidationError{Errors: []model.FieldError{{Resource: "Search", Field: "q", Code: "invalid", Message: msg}}}
}

// ErrMissingQuery is GitHub's 422 for a search without q.
var ErrMissingQuery error = &model.ValidationError{Errors: []model.FieldError{{Resource: "Search", Field: "q", Code: "missing"}}}

// errNotQualifier says a qualifier's value is not one the kind knows: the
// item is searched as words instead, as GitHub does with what it does not
// recognize.
var errNotQualifier = errors.New("search: not a qualifier value")

// bounds is a parsed value of a range: its start and the length of its
// unit (a day for dates, a second for times, 1 for numbers).
type bounds struct {
	start, unit int64
}

// parseRange reads a number or date range: n, >n, >=n, <n, <=n, a..b with
// * for an open end. value parses one bound.
func parseRange(s string, value func(string) (bounds, error)) (store.Range, error) {
	var r store.Range
	s = unquote(s)
	set := func(lo, hi *int64) { r.Lo, r.Hi = lo, hi }
	p := func(v int64) *int64 { return &v }
	switch {
	case strings.HasPrefix(s, ">="):
		b, err := value(s[2:])
		if err != nil {
			return r, err
		}
		set(p(b.start), nil)
	case strings.HasPrefix(s, "<="):
		b, err := value(s[2:])
		if err != nil {
			return r, err
		}
		set(nil, p(b.start+b.unit))
	case strings.HasPrefix(s, ">"):
		b, err := value(s[1:])
		if err != nil {
			return r, err
		}
		set(p(b.start+b.unit), nil)
	case strings.HasPrefix(s, "<"):
		b, err := value(s[1:])
		if err != nil {
			return r, err
		}
		set(nil, p(b.start))
	case strings.Contains(s, ".."):
		lo, hi, _ := strings.Cut(s, "..")
		if lo != "*" {
			b, err := value(lo)
			if err != nil {
				return r, err
			}
			r.Lo = p(b.start)
		}
		if hi != "*" {
			b, err := value(hi)
			if err != nil {
				return r, err
			}
			r.Hi = p(b.start + b.unit)
		}
	default:
		b, err := value(s)
		if err != nil {
			return r, err
		}
		set(p(b.start), p(b.start+b.unit))
	}
	return r, nil
}

// number is a bound of a count. Anything else is not a qualifier value.
func number(s string) (bounds, error) {
	n, err := strconv.ParseInt(s, 10, 64)
	if err != nil || n < 0 || n > 1<<50 {
		return bounds{}, errNotQualifier
	}
	return bounds{start: n, unit: 1}, nil
}

// date is a bound of a date: YYYY-MM-DD (the whole UTC day) or an ISO 8601
// time with seconds, and optionally a zone (UTC when none).
func date(s string) (bounds, error) {
	if t, err := time.Parse("2006-01-02", s); err == nil {
		return bounds{start: t.Unix(), unit: 86400}, nil
	}
	for _, layout := range []string{time.RFC3339, "2006-01-02T15:04:05", "2006-01-02T15:04Z07:00", "2006-01-02T15:04"} {
		if t, err := time.Parse(layout, s); err == nil {
			return bounds{start: t.Unix(), unit: 1}, nil
		}
	}
	return bounds{}, invalidQuery(fmt.Sprintf(msgDate, s))
}

// countRange reads a count range; a malformed one is words.
func countRange(v string) (store.Range, error) { return parseRange(v, number) }

// dateRange reads a date range; a malformed date is GitHub's 422.
func dateRange(v string) (store.Range, error) { return parseRange(v, date) }

// constRange is a range test of a count every item has (followers,
// which hubd does not keep: every account has none).
func constRange(v string, have int64) (store.SearchCond, error) {
	r, err := countRange(v)
	if err != nil {
		return store.SearchCond{}, err
	}
	return store.Bool(r.Contains(have)), nil
}

// boolValue reads true or false.
func boolValue(v string) (bool, error) {
	switch strings.ToLower(unquote(v)) {
	case "true":
		return true, nil
	case "false":
		return false, nil
	}
	return false, errNotQualifier
}

func boolLeaf(field string, b bool) store.SearchCond {
	c := store.Leaf(field)
	c.Text = strconv.FormatBool(b)
	return c
}

func textLeaf(field, text string) store.SearchCond {
	c := store.Leaf(field)
	c.Text = text
	return c
}

func rangeLeaf(field string, r store.Range) store.SearchCond {
	c := store.Leaf(field)
	c.Range = r
	return c
}

func idsLeaf(field string, ids ...int64) store.SearchCond {
	c := store.Leaf(field)
	c.IDs = ids
	return c
}
