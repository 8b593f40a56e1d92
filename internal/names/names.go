// Package names holds GitHub's rules for account logins and repository
// names.
package names

import (
	"errors"
	"regexp"
	"strings"
)

// Errors returned by the validators; callers turn them into 422s.
var (
	ErrLoginEmpty    = errors.New("login is required")
	ErrLoginInvalid  = errors.New("login may only contain alphanumeric characters or single hyphens, and cannot begin or end with a hyphen")
	ErrLoginTooLong  = errors.New("login is too long (maximum is 39 characters)")
	ErrLoginReserved = errors.New("login is reserved")
	ErrRepoInvalid   = errors.New("name is invalid")
	ErrRepoTooLong   = errors.New("name is too long (maximum is 100 characters)")
)

var loginRE = regexp.MustCompile(`^[A-Za-z0-9](?:[A-Za-z0-9]|-[A-Za-z0-9])*$`)

// reserved are logins that would shadow hubd's own paths (web pages, git
// transport, the API root) or GitHub's.
var reserved = map[string]bool{
	"about": true, "account": true, "admin": true, "api": true, "apps": true, "assets": true,
	"avatars": true, "catalogue": true, "dashboard": true, "enterprises": true, "explore": true,
	"features": true, "gist": true, "gists": true, "github": true, "graphql": true, "issues": true,
	"login": true, "logout": true, "marketplace": true, "meta": true, "new": true, "notifications": true,
	"organizations": true, "orgs": true, "pulls": true, "rate_limit": true,
	"repos": true, "repositories": true, "search": true, "sessions": true, "settings": true,
	"site": true, "signup": true, "stars": true, "teams": true, "user": true, "users": true,
	"zen": true, "ghost": true, "none": true,
}

// ValidLogin checks a user or organization login.
func ValidLogin(s string) error {
	switch {
	case s == "":
		return ErrLoginEmpty
	case len(s) > 39:
		return ErrLoginTooLong
	case !loginRE.MatchString(s):
		return ErrLoginInvalid
	case reserved[strings.ToLower(s)]:
		return ErrLoginReserved
	}
	return nil
}

var loginJunk = regexp.MustCompile(`[^A-Za-z0-9]+`)

// NormalizeLogin is GHES's rule for logins made for users (site
// administrators' created users, SCIM-provisioned users): every run of
// characters other than letters and digits becomes one hyphen ("octo_cat"
// → "octo-cat"), and hyphens at either end are dropped.
func NormalizeLogin(s string) string {
	return strings.Trim(loginJunk.ReplaceAllString(s, "-"), "-")
}

var repoInvalidRun = regexp.MustCompile(`[^A-Za-z0-9._-]+`)

// NormalizeRepo turns a requested repository name into the name GitHub would
// create: every run of characters outside [A-Za-z0-9._-] becomes one hyphen.
// It rejects names that stay invalid (empty, "." or "..", a ".git" suffix,
// over 100 characters).
func NormalizeRepo(s string) (string, error) {
	n := repoInvalidRun.ReplaceAllString(strings.TrimSpace(s), "-")
	switch {
	case n == "" || n == "-" || n == "." || n == "..":
		return "", ErrRepoInvalid
	case strings.HasSuffix(strings.ToLower(n), ".git"):
		return "", ErrRepoInvalid
	case len(n) > 100:
		return "", ErrRepoTooLong
	}
	return n, nil
}
