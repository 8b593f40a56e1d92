package wire

import (
	"strconv"

	"github.com/hubd/hubd/internal/model"
)

// PullStackBase is a stack's base: its bottom pull request's base branch.
type PullStackBase struct {
	Ref string `json:"ref"`
}

// pullStackHead is a pull request's head in pull-request-stack-minimal.
type pullStackHead struct {
	Ref string `json:"ref"`
	SHA string `json:"sha"`
}

// PullStackMinimalPull is an item of pull-request-stack-minimal's
// pull_requests.
type PullStackMinimalPull struct {
	Number   int64         `json:"number"`
	State    string        `json:"state"`
	Draft    bool          `json:"draft"`
	MergedAt *string       `json:"merged_at"`
	Head     pullStackHead `json:"head"`
}

// PullStackMinimal is components/schemas/pull-request-stack-minimal (list
// items).
type PullStackMinimal struct {
	ID           int64                  `json:"id"`
	Number       int64                  `json:"number"`
	NodeID       string                 `json:"node_id"`
	URL          string                 `json:"url"`
	Base         PullStackBase          `json:"base"`
	Open         bool                   `json:"open"`
	CreatedAt    string                 `json:"created_at"`
	PullRequests []PullStackMinimalPull `json:"pull_requests"`
}

// PullStackPull is components/schemas/pull-request-stack-pull-request.
type PullStackPull struct {
	ID       int64          `json:"id"`
	NodeID   string         `json:"node_id"`
	Number   int64          `json:"number"`
	URL      string         `json:"url"`
	HTMLURL  string         `json:"html_url"`
	Title    string         `json:"title"`
	State    string         `json:"state"`
	Draft    bool           `json:"draft"`
	MergedAt *string        `json:"merged_at"`
	User     *SimpleUser    `json:"user"`
	Head     PullMinimalRef `json:"head"`
	Base     PullMinimalRef `json:"base"`
}

// PullStack is the stack object of get, create, add and unstack.
type PullStack struct {
	ID           int64           `json:"id"`
	Number       int64           `json:"number"`
	NodeID       string          `json:"node_id"`
	URL          string          `json:"url"`
	Base         PullStackBase   `json:"base"`
	Open         bool            `json:"open"`
	CreatedAt    string          `json:"created_at"`
	PullRequests []PullStackPull `json:"pull_requests"`
}

// PullStackRef is components/schemas/pull-request-stack: the "stack" key
// of a pull request object (null when the pull request is in no stack).
type PullStackRef struct {
	ID       int64            `json:"id"`
	Number   int64            `json:"number"`
	Size     int              `json:"size"`
	Position int              `json:"position"`
	Base     PullStackRefBase `json:"base"`
}

// PullStackRefBase is the stack's base as a pull request shows it.
type PullStackRefBase struct {
	Ref string `json:"ref"`
	SHA string `json:"sha"`
}

// ToPullStackRef converts a pull request's stack membership; nil (no
// stack) stays nil, which the pull request object sends as null.
func ToPullStackRef(r *model.PullStackRef) *PullStackRef {
	if r == nil {
		return nil
	}
	return &PullStackRef{ID: r.ID, Number: r.Number, Size: r.Size, Position: r.Position,
		Base: PullStackRefBase{Ref: r.BaseRef, SHA: r.BaseSHA}}
}

// PullStackURL is the API URL of a stack.
func (u URLs) PullStackURL(repo *model.Repo, number int64) string {
	return u.RepoAPIURL(repo) + "/stacks/" + strconv.FormatInt(number, 10)
}

func stackBase(s *model.PullStack) PullStackBase {
	if b := s.Bottom(); b != nil {
		return PullStackBase{Ref: b.BaseRef}
	}
	return PullStackBase{}
}

// ToPullStackMinimal converts a stack whose members were loaded.
func (u URLs) ToPullStackMinimal(repo *model.Repo, s *model.PullStack) PullStackMinimal {
	out := PullStackMinimal{ID: s.ID, Number: s.Number, NodeID: NodeID("S_", s.ID), URL: u.PullStackURL(repo, s.Number),
		Base: stackBase(s), Open: s.Open(), CreatedAt: Time(s.CreatedAt), PullRequests: make([]PullStackMinimalPull, len(s.Members))}
	for i, m := range s.Members {
		out.PullRequests[i] = PullStackMinimalPull{Number: m.Number, State: m.State, Draft: m.Draft,
			MergedAt: TimePtr(m.MergedAt), Head: pullStackHead{Ref: m.HeadRef, SHA: m.HeadSHA}}
	}
	return out
}

// ToPullStackMinimals converts a page of stacks.
func (u URLs) ToPullStackMinimals(repo *model.Repo, list []*model.PullStack) []PullStackMinimal {
	out := make([]PullStackMinimal, len(list))
	for i, s := range list {
		out[i] = u.ToPullStackMinimal(repo, s)
	}
	return out
}

// ToPullStack converts a stack whose members' pull requests (with their
// authors) were loaded. Every head is a branch of repo.
func (u URLs) ToPullStack(repo *model.Repo, s *model.PullStack) PullStack {
	api, html := u.RepoAPIURL(repo), u.RepoHTMLURL(repo)
	mr := PullMinimalRepo{ID: repo.ID, URL: api, Name: repo.Name}
	out := PullStack{ID: s.ID, Number: s.Number, NodeID: NodeID("S_", s.ID), URL: u.PullStackURL(repo, s.Number),
		Base: stackBase(s), Open: s.Open(), CreatedAt: Time(s.CreatedAt), PullRequests: make([]PullStackPull, 0, len(s.Members))}
	users := map[int64]*SimpleUser{}
	for _, m := range s.Members {
		p := m.Pull
		if p == nil {
			continue // gone between the two reads
		}
		num := strconv.FormatInt(p.Number, 10)
		item := PullStackPull{ID: p.IssueID, NodeID: NodeID("PR_", p.IssueID), Number: p.Number,
			URL: api + "/pulls/" + num, HTMLURL: html + "/pull/" + num, Title: p.Issue.Title, State: p.Issue.State,
			Draft: p.Draft, MergedAt: TimePtr(p.MergedAt),
			Head: PullMinimalRef{Ref: p.HeadRef, SHA: p.HeadSHA, Repo: mr},
			Base: PullMinimalRef{Ref: p.BaseRef, SHA: p.BaseSHA, Repo: mr}}
		if a := p.Issue.User; a != nil {
			if users[a.ID] == nil {
				su := u.ToSimpleUser(a)
				users[a.ID] = &su
			}
			item.User = users[a.ID]
		}
		out.PullRequests = append(out.PullRequests, item)
	}
	return out
}
