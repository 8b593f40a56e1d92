package markdown

import (
	"context"
	"strconv"
	"strings"
)

// Resolver answers, for the reader of a document, which of the things it
// references exist. Repositories are "owner/name"; a repository the reader
// may not see does not exist.
type Resolver interface {
	// Account finds a user or organization: its login as spelled by its
	// owner, and whether it is an organization.
	Account(ctx context.Context, login string) (name string, org, ok bool, err error)
	// Repo finds a repository: its full name as spelled by its owner.
	Repo(ctx context.Context, fullName string) (name string, ok bool, err error)
	// Issue finds issue or pull request n of a repository.
	Issue(ctx context.Context, fullName string, n int64) (pull, ok bool, err error)
	// Commit resolves a full or abbreviated commit id in a repository.
	Commit(ctx context.Context, fullName, sha string) (full string, ok bool, err error)
}

// maxLookups bounds the references one document may make the resolver
// look up; later ones stay text.
const maxLookups = 100

type refKind uint8

const (
	refUser     refKind = iota + 1
	refIssue            // #N in the context repository, or owner/repo#N
	refCommit           // a SHA in the context repository, or owner/repo@SHA
	refAutolink         // a repository's autolink reference
)

// ref is one reference found in a text node.
type ref struct {
	start, end int // byte offsets in the text
	kind       refKind
	repo       string // "owner/repo" as written ("" = the context repository)
	login      string
	number     int64
	sha        string
	url        string // an autolink's target
}

func isWord(c byte) bool {
	return c == '_' || c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z'
}

func isAlnum(c byte) bool { return c != '_' && isWord(c) }

func isHex(c byte) bool { return c >= '0' && c <= '9' || c >= 'a' && c <= 'f' }

// chars is what references are scanned in: a token's raw bytes, or a string.
type chars interface{ ~string | ~[]byte }

// loginAt reads a login (alphanumerics and single inner hyphens, at most 39)
// at s[i:], returning its end, or -1.
func loginAt[T chars](s T, i int) int {
	j := i
	for j < len(s) && (isAlnum(s[j]) || s[j] == '-' && (j == i || s[j-1] != '-')) {
		j++
	}
	if j < len(s) && s[j] == '-' { // a double hyphen
		return -1
	}
	for j > i && s[j-1] == '-' {
		j--
	}
	if j == i || s[i] == '-' || j-i > 39 {
		return -1
	}
	return j
}

// repoNameAt reads a repository name at s[i:], returning its end, or -1.
func repoNameAt[T chars](s T, i int) int {
	j := i
	for j < len(s) && (isWord(s[j]) || s[j] == '-' || s[j] == '.') {
		j++
	}
	for j > i && s[j-1] == '.' { // a sentence's full stop is not part of the name
		j--
	}
	if j == i || j-i > 100 {
		return -1
	}
	return j
}

// digitsAt reads an issue number at s[i:], returning it and its end.
func digitsAt[T chars](s T, i int) (int64, int) {
	j := i
	var n int64
	for j < len(s) && s[j] >= '0' && s[j] <= '9' {
		n = n*10 + int64(s[j]-'0')
		j++
		if j-i > 9 {
			return 0, -1
		}
	}
	if j == i || n == 0 || (j < len(s) && isWord(s[j])) {
		return 0, -1
	}
	return n, j
}

// shaAt reads 7 to 40 hex digits ending a word at s[i:], returning the end.
func shaAt[T chars](s T, i int) int {
	j := i
	for j < len(s) && isHex(s[j]) {
		j++
	}
	if j-i < 7 || j-i > 40 || (j < len(s) && isWord(s[j])) {
		return -1
	}
	return j
}

// scanRefs finds the references in one (HTML-escaped) text run.
// withContext says whether a context repository gives #N and bare SHAs a
// meaning.
func scanRefs[T chars](s T, withContext bool) []ref {
	var out []ref
	for i := 0; i < len(s); i++ {
		c := s[i]
		var prev byte = ' '
		if i > 0 {
			prev = s[i-1]
		}
		switch {
		case c == '@':
			// @login, not an email address, nor a team (@org/team).
			if isWord(prev) || strings.IndexByte("`/.@-+", prev) >= 0 {
				continue
			}
			end := loginAt(s, i+1)
			if end < 0 || (end < len(s) && (isWord(s[end]) || s[end] == '/')) {
				continue
			}
			out = append(out, ref{start: i, end: end, kind: refUser, login: string(s[i+1 : end])})
			i = end - 1
		case c == '#':
			if !withContext || isWord(prev) || strings.IndexByte("&/#", prev) >= 0 {
				continue
			}
			n, end := digitsAt(s, i+1)
			if end < 0 {
				continue
			}
			out = append(out, ref{start: i, end: end, kind: refIssue, number: n})
			i = end - 1
		case isAlnum(c):
			if isWord(prev) || strings.IndexByte("/.-@#&", prev) >= 0 {
				continue
			}
			if r, ok := crossRef(s, i); ok {
				out = append(out, r)
				i = r.end - 1
				continue
			}
			if withContext && isHex(c) {
				if end := shaAt(s, i); end > 0 {
					out = append(out, ref{start: i, end: end, kind: refCommit, sha: string(s[i:end])})
					i = end - 1
					continue
				}
			}
			// Skip the rest of the word.
			for i+1 < len(s) && isWord(s[i+1]) {
				i++
			}
		}
	}
	return out
}

// crossRef reads owner/repo#N or owner/repo@SHA at s[i:].
func crossRef[T chars](s T, i int) (ref, bool) {
	oend := loginAt(s, i)
	if oend < 0 || oend >= len(s) || s[oend] != '/' {
		return ref{}, false
	}
	rend := repoNameAt(s, oend+1)
	if rend < 0 || rend >= len(s)-1 {
		return ref{}, false
	}
	repo := string(s[i:rend])
	switch s[rend] {
	case '#':
		if n, end := digitsAt(s, rend+1); end > 0 {
			return ref{start: i, end: end, kind: refIssue, repo: repo, number: n}, true
		}
	case '@':
		if end := shaAt(s, rend+1); end > 0 {
			return ref{start: i, end: end, kind: refCommit, repo: repo, sha: string(s[rend+1 : end])}, true
		}
	}
	return ref{}, false
}

// resolved is what the resolver said about a document's references.
type resolved struct {
	accounts map[string]account     // lower login
	repos    map[string]string      // lower full name -> canonical ("" = none)
	issues   map[string]issueTarget // lower repo + "#" + n
	commits  map[string]string      // lower repo + "@" + sha -> full id ("" = none)
	lookups  int
}

type account struct {
	name string
	org  bool
	ok   bool
}

type issueTarget struct{ pull, ok bool }

func (rs *resolved) budget() bool {
	rs.lookups++
	return rs.lookups <= maxLookups
}

// repo resolves a repository as written ("" = the context).
func (rs *resolved) repo(ctx context.Context, res Resolver, o *Options, written string) (string, error) {
	if written == "" {
		written = o.Context
	}
	if written == "" {
		return "", nil
	}
	key := strings.ToLower(written)
	if v, ok := rs.repos[key]; ok {
		return v, nil
	}
	if !rs.budget() {
		return "", nil
	}
	name, ok, err := res.Repo(ctx, written)
	if err != nil || !ok {
		name = ""
	}
	rs.repos[key] = name
	return name, err
}

// resolve looks every reference up, once each.
func resolve(ctx context.Context, o *Options, refs []ref) (*resolved, error) {
	rs := &resolved{accounts: map[string]account{}, repos: map[string]string{}, issues: map[string]issueTarget{}, commits: map[string]string{}}
	res := o.Resolver
	for _, r := range refs {
		switch r.kind {
		case refUser:
			key := strings.ToLower(r.login)
			if _, seen := rs.accounts[key]; seen || !rs.budget() {
				continue
			}
			name, org, ok, err := res.Account(ctx, r.login)
			if err != nil {
				return nil, err
			}
			rs.accounts[key] = account{name, org, ok}
		case refIssue:
			repo, err := rs.repo(ctx, res, o, r.repo)
			if err != nil {
				return nil, err
			}
			key := strings.ToLower(repo) + "#" + strconv.FormatInt(r.number, 10)
			if _, seen := rs.issues[key]; repo == "" || seen || !rs.budget() {
				continue
			}
			pull, ok, err := res.Issue(ctx, repo, r.number)
			if err != nil {
				return nil, err
			}
			rs.issues[key] = issueTarget{pull, ok}
		case refCommit:
			repo, err := rs.repo(ctx, res, o, r.repo)
			if err != nil {
				return nil, err
			}
			key := strings.ToLower(repo) + "@" + strings.ToLower(r.sha)
			if _, seen := rs.commits[key]; repo == "" || seen || !rs.budget() {
				continue
			}
			full, ok, err := res.Commit(ctx, repo, strings.ToLower(r.sha))
			if err != nil {
				return nil, err
			}
			if !ok {
				full = ""
			}
			rs.commits[key] = full
		}
	}
	return rs, nil
}

// link renders one reference as GitHub links it, or "" to leave the text.
func (rs *resolved) link(o *Options, text string, r ref) string {
	web := o.Web
	repoOf := func() string {
		w := r.repo
		if w == "" {
			w = o.Context
		}
		return rs.repos[strings.ToLower(w)]
	}
	switch r.kind {
	case refUser:
		a := rs.accounts[strings.ToLower(r.login)]
		if !a.ok {
			return ""
		}
		typ := "user"
		if a.org {
			typ = "organization"
		}
		return `<a class="user-mention notranslate" data-hovercard-type="` + typ + `" data-hovercard-url="/users/` + a.name +
			`/hovercard" href="` + web + "/" + a.name + `">` + text + "</a>"
	case refIssue:
		repo := repoOf()
		if repo == "" {
			return ""
		}
		t, ok := rs.issues[strings.ToLower(repo)+"#"+strconv.FormatInt(r.number, 10)]
		if !ok || !t.ok {
			return ""
		}
		kind, hover := "issues", "issue"
		if t.pull {
			kind, hover = "pull", "pull_request"
		}
		path := "/" + repo + "/" + kind + "/" + strconv.FormatInt(r.number, 10)
		return `<a class="issue-link js-issue-link" data-error-text="Failed to load title" data-permission-text="Title is private" data-url="` +
			web + path + `" data-hovercard-type="` + hover + `" data-hovercard-url="` + path + `/hovercard" href="` + web + path + `">` + text + "</a>"
	case refCommit:
		repo := repoOf()
		if repo == "" {
			return ""
		}
		full := rs.commits[strings.ToLower(repo)+"@"+strings.ToLower(r.sha)]
		if full == "" {
			return ""
		}
		path := "/" + repo + "/commit/" + full
		label := "<tt>" + full[:7] + "</tt>"
		if r.repo != "" {
			label = r.repo + "@" + label
		}
		return `<a class="commit-link" data-hovercard-type="commit" data-hovercard-url="` + path + `/hovercard" href="` + web + path + `">` + label + "</a>"
	case refAutolink:
		return autolinkHTML(text, r)
	}
	return ""
}
