package wire

import (
	"strings"
	"unicode"

	"github.com/hubd/hubd/internal/model"
)

// SearchResult is the envelope of every search answer. SearchType is only
// in issue searches (always "lexical": hubd has no semantic search).
type SearchResult[T any] struct {
	TotalCount        int    `json:"total_count"`
	IncompleteResults bool   `json:"incomplete_results"`
	SearchType        string `json:"search_type,omitempty"`
	Items             []T    `json:"items"`
}

// TextMatch is an item of components/schemas/search-result-text-matches:
// where a searched word appears in one property of a result.
type TextMatch struct {
	ObjectURL  string          `json:"object_url"`
	ObjectType *string         `json:"object_type"`
	Property   string          `json:"property"`
	Fragment   string          `json:"fragment"`
	Matches    []TextMatchSpan `json:"matches"`
}

// TextMatchSpan is one occurrence of a word in a fragment; Indices are
// the offsets (in characters) of its start and end.
type TextMatchSpan struct {
	Text    string `json:"text"`
	Indices []int  `json:"indices"`
}

// IssueSearchItem is components/schemas/issue-search-result-item.
type IssueSearchItem struct {
	Issue
	Draft       *bool        `json:"draft,omitempty"` // pull requests only
	Score       float64      `json:"score"`
	TextMatches *[]TextMatch `json:"text_matches,omitempty"`
}

// RepoSearchItem is components/schemas/repo-search-result-item.
type RepoSearchItem struct {
	Repository
	Score       float64      `json:"score"`
	TextMatches *[]TextMatch `json:"text_matches,omitempty"`
}

// UserSearchItem is components/schemas/user-search-result-item.
type UserSearchItem struct {
	SimpleUser
	Score       float64      `json:"score"`
	TextMatches *[]TextMatch `json:"text_matches,omitempty"`
}

// LabelSearchItem is components/schemas/label-search-result-item.
type LabelSearchItem struct {
	Label
	Score       float64      `json:"score"`
	TextMatches *[]TextMatch `json:"text_matches,omitempty"`
}

// Matching says whether a response carries text matches (the text-match
// media type) and which words were searched for.
type Matching struct {
	On    bool
	Words []string
}

// textMatches finds the words in each property (name, value pairs) of an
// object; nil unless m.On.
func (m Matching) textMatches(objectURL, objectType string, props ...[2]string) *[]TextMatch {
	if !m.On {
		return nil
	}
	out := []TextMatch{}
	for _, p := range props {
		if tm, ok := findWords(p[1], m.Words); ok {
			typ := objectType
			tm.ObjectURL, tm.ObjectType, tm.Property = objectURL, &typ, p[0]
			out = append(out, tm)
		}
	}
	return &out
}

// fragmentLen is how many characters of a long property a fragment shows.
const fragmentLen = 300

// findWords returns the fragment of value around the first word found and
// every occurrence of the words in it (case-insensitive).
func findWords(value string, words []string) (TextMatch, bool) {
	rs := []rune(value)
	lower := make([]rune, len(rs))
	for i, r := range rs {
		lower[i] = unicode.ToLower(r)
	}
	first := -1
	for _, w := range words {
		if at := runeIndex(lower, []rune(strings.ToLower(w)), 0); at >= 0 && (first < 0 || at < first) {
			first = at
		}
	}
	if first < 0 {
		return TextMatch{}, false
	}
	start := 0
	if len(rs) > fragmentLen {
		start = max(0, min(first-fragmentLen/3, len(rs)-fragmentLen))
	}
	end := min(len(rs), start+fragmentLen)
	frag, lfrag := rs[start:end], lower[start:end]
	tm := TextMatch{Fragment: string(frag), Matches: []TextMatchSpan{}}
	for _, w := range words {
		lw := []rune(strings.ToLower(w))
		if len(lw) == 0 {
			continue
		}
		for at := runeIndex(lfrag, lw, 0); at >= 0; at = runeIndex(lfrag, lw, at+len(lw)) {
			tm.Matches = append(tm.Matches, TextMatchSpan{Text: string(frag[at : at+len(lw)]), Indices: []int{at, at + len(lw)}})
		}
	}
	return tm, true
}

// runeIndex is the index of sub in s at or after from, -1 when absent.
func runeIndex(s, sub []rune, from int) int {
	if len(sub) == 0 {
		return -1
	}
outer:
	for i := from; i+len(sub) <= len(s); i++ {
		for j := range sub {
			if s[i+j] != sub[j] {
				continue outer
			}
		}
		return i
	}
	return -1
}

// ToIssueSearchItem converts an issue (details loaded) of a search.
func (w *IssueWriter) ToIssueSearchItem(repo *model.Repo, is *model.Issue, draft bool, m Matching) IssueSearchItem {
	out := IssueSearchItem{Issue: w.ToIssue(repo, is, nil), Score: 1}
	if is.IsPull {
		out.Draft = &draft
	}
	body := ""
	if is.Body != nil {
		body = *is.Body
	}
	out.TextMatches = m.textMatches(out.URL, "Issue", [2]string{"title", is.Title}, [2]string{"body", body})
	return out
}

// ToRepoSearchItem converts a repository of a search. pushed_at is never
// null there: a repository never pushed to reports its creation.
func (u URLs) ToRepoSearchItem(r *model.Repo, c RepoCounts, a Access, m Matching) RepoSearchItem {
	out := RepoSearchItem{Repository: u.ToRepository(r, c, a), Score: 1}
	if out.PushedAt == nil {
		out.PushedAt = out.CreatedAt
	}
	out.TextMatches = m.textMatches(out.URL, "Repository", [2]string{"name", r.Name}, [2]string{"description", r.Description})
	return out
}

// ToUserSearchItem converts an account of a search.
func (u URLs) ToUserSearchItem(a *model.Account, m Matching) UserSearchItem {
	out := UserSearchItem{SimpleUser: u.ToSimpleUser(a), Score: 1}
	out.TextMatches = m.textMatches(out.URL, "User", [2]string{"login", a.Login}, [2]string{"email", a.Email}, [2]string{"name", a.Name})
	return out
}

// ToLabelSearchItem converts a label of a search.
func (u URLs) ToLabelSearchItem(repo *model.Repo, l *model.Label, m Matching) LabelSearchItem {
	out := LabelSearchItem{Label: u.ToLabel(repo, l), Score: 1}
	desc := ""
	if l.Description != nil {
		desc = *l.Description
	}
	out.TextMatches = m.textMatches(out.URL, "Label", [2]string{"name", l.Name}, [2]string{"description", desc})
	return out
}
