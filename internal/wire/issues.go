package wire

import (
	"bytes"
	"context"
	"encoding/json"
	"net/url"
	"strconv"

	"github.com/hubd/hubd/internal/markdown"
	"github.com/hubd/hubd/internal/model"
)

// Maybe is a field GitHub sends only in some responses, as null or a value:
// absent when not Present (with the omitzero tag), else null or V.
type Maybe[T any] struct {
	Present bool
	V       *T
}

// IsZero reports absence (omitzero).
func (m Maybe[T]) IsZero() bool { return !m.Present }

// MarshalJSON writes null or the value (without HTML escaping, like
// rest.JSON).
func (m Maybe[T]) MarshalJSON() ([]byte, error) {
	if m.V == nil {
		return []byte("null"), nil
	}
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(m.V); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(b.Bytes(), []byte("\n")), nil
}

// Some is a present value (null when v is nil).
func Some[T any](v *T) Maybe[T] { return Maybe[T]{Present: true, V: v} }

// BodyFormat says which representations of a Markdown body a response
// carries, from the media type's parameter: raw (the default) sends body,
// text body_text, html body_html, full all three.
type BodyFormat struct {
	Raw, Text, HTML bool
	// Autolinks are the repository's autolink references body_html links.
	Autolinks markdown.AutolinkSet
}

// Bodies reads the media type parameter.
func Bodies(param string) BodyFormat {
	switch param {
	case "text":
		return BodyFormat{Text: true}
	case "html":
		return BodyFormat{HTML: true}
	case "full":
		return BodyFormat{Raw: true, Text: true, HTML: true}
	}
	return BodyFormat{Raw: true}
}

// Body holds the representations of one body.
type Body struct {
	Raw  Maybe[string] `json:"body,omitzero"`
	Text *string       `json:"body_text,omitempty"`
	HTML *string       `json:"body_html,omitempty"`
}

func (f BodyFormat) body(src *string) Body {
	var b Body
	if f.Raw {
		b.Raw = Some(src)
	}
	s := ""
	if src != nil {
		s = *src
	}
	if f.Text {
		t := markdown.Text(s)
		b.Text = &t
	}
	if f.HTML {
		h := markdown.HTML(s)
		if f.Autolinks != "" {
			h, _ = markdown.Render(context.Background(), s, markdown.Options{Autolinks: f.Autolinks})
		}
		b.HTML = &h
	}
	return b
}

// Label is components/schemas/label.
type Label struct {
	ID          int64   `json:"id"`
	NodeID      string  `json:"node_id"`
	URL         string  `json:"url"`
	Name        string  `json:"name"`
	Description *string `json:"description"`
	Color       string  `json:"color"`
	Default     bool    `json:"default"`
}

// Milestone is components/schemas/milestone.
type Milestone struct {
	URL          string      `json:"url"`
	HTMLURL      string      `json:"html_url"`
	LabelsURL    string      `json:"labels_url"`
	ID           int64       `json:"id"`
	NodeID       string      `json:"node_id"`
	Number       int64       `json:"number"`
	State        string      `json:"state"`
	Title        string      `json:"title"`
	Description  *string     `json:"description"`
	Creator      *SimpleUser `json:"creator"`
	OpenIssues   int         `json:"open_issues"`
	ClosedIssues int         `json:"closed_issues"`
	CreatedAt    string      `json:"created_at"`
	UpdatedAt    string      `json:"updated_at"`
	ClosedAt     *string     `json:"closed_at"`
	DueOn        *string     `json:"due_on"`
}

// ReactionRollup is components/schemas/reaction-rollup.
type ReactionRollup struct {
	URL        string `json:"url"`
	TotalCount int    `json:"total_count"`
	PlusOne    int    `json:"+1"`
	MinusOne   int    `json:"-1"`
	Laugh      int    `json:"laugh"`
	Confused   int    `json:"confused"`
	Heart      int    `json:"heart"`
	Hooray     int    `json:"hooray"`
	Eyes       int    `json:"eyes"`
	Rocket     int    `json:"rocket"`
}

// SubIssuesSummary is components/schemas/sub-issues-summary.
type SubIssuesSummary struct {
	Total            int `json:"total"`
	Completed        int `json:"completed"`
	PercentCompleted int `json:"percent_completed"`
}

// DependenciesSummary is components/schemas/issue-dependencies-summary.
type DependenciesSummary struct {
	BlockedBy      int `json:"blocked_by"`
	Blocking       int `json:"blocking"`
	TotalBlockedBy int `json:"total_blocked_by"`
	TotalBlocking  int `json:"total_blocking"`
}

// Issue is components/schemas/issue.
type Issue struct {
	ID            int64   `json:"id"`
	NodeID        string  `json:"node_id"`
	URL           string  `json:"url"`
	RepositoryURL string  `json:"repository_url"`
	LabelsURL     string  `json:"labels_url"`
	CommentsURL   string  `json:"comments_url"`
	EventsURL     string  `json:"events_url"`
	HTMLURL       string  `json:"html_url"`
	Number        int64   `json:"number"`
	State         string  `json:"state"`
	StateReason   *string `json:"state_reason"`
	Title         string  `json:"title"`
	Body
	User                     *SimpleUser         `json:"user"`
	Labels                   []Label             `json:"labels"`
	Assignee                 *SimpleUser         `json:"assignee"`
	Assignees                []SimpleUser        `json:"assignees"`
	Milestone                *Milestone          `json:"milestone"`
	Locked                   bool                `json:"locked"`
	ActiveLockReason         *string             `json:"active_lock_reason"`
	Comments                 int                 `json:"comments"`
	PullRequest              *IssuePullRequest   `json:"pull_request,omitempty"`
	ClosedAt                 *string             `json:"closed_at"`
	CreatedAt                string              `json:"created_at"`
	UpdatedAt                string              `json:"updated_at"`
	ClosedBy                 Maybe[SimpleUser]   `json:"closed_by,omitzero"`
	TimelineURL              string              `json:"timeline_url"`
	Type                     *IssueType          `json:"type"`
	Repository               *Repository         `json:"repository,omitempty"`
	PerformedViaGitHubApp    *Integration        `json:"performed_via_github_app"`
	AuthorAssociation        string              `json:"author_association"`
	Reactions                ReactionRollup      `json:"reactions"`
	SubIssuesSummary         SubIssuesSummary    `json:"sub_issues_summary"`
	ParentIssueURL           *string             `json:"parent_issue_url"`
	PinnedComment            *IssueComment       `json:"pinned_comment"`
	IssueDependenciesSummary DependenciesSummary `json:"issue_dependencies_summary"`
}

// IssuePullRequest is the pull_request object of an issue that is a pull
// request.
type IssuePullRequest struct {
	MergedAt *string `json:"merged_at"`
	DiffURL  string  `json:"diff_url"`
	HTMLURL  string  `json:"html_url"`
	PatchURL string  `json:"patch_url"`
	URL      string  `json:"url"`
}

// PinnedInfo is components/schemas/pinned-issue-comment.
type PinnedInfo struct {
	PinnedAt string      `json:"pinned_at"`
	PinnedBy *SimpleUser `json:"pinned_by"`
}

// IssueComment is components/schemas/issue-comment.
type IssueComment struct {
	ID      int64  `json:"id"`
	NodeID  string `json:"node_id"`
	URL     string `json:"url"`
	HTMLURL string `json:"html_url"`
	Body
	User                  *SimpleUser    `json:"user"`
	CreatedAt             string         `json:"created_at"`
	UpdatedAt             string         `json:"updated_at"`
	IssueURL              string         `json:"issue_url"`
	AuthorAssociation     string         `json:"author_association"`
	PerformedViaGitHubApp *Integration   `json:"performed_via_github_app"`
	Reactions             ReactionRollup `json:"reactions"`
	Pin                   *PinnedInfo    `json:"pin"`
	Minimized             *Minimized     `json:"minimized"` // always null: hubd hides no comments
}

// Minimized is components/schemas/nullable-issue-comment-minimized.
type Minimized struct {
	Reason *string `json:"reason"`
}

// Reaction is components/schemas/reaction.
type Reaction struct {
	ID        int64       `json:"id"`
	NodeID    string      `json:"node_id"`
	User      *SimpleUser `json:"user"`
	Content   string      `json:"content"`
	CreatedAt string      `json:"created_at"`
}

// IssueWriter converts the Issues category's store types for one response.
// It remembers the user objects it built, since the same few users appear
// on most issues of a page.
type IssueWriter struct {
	U        URLs
	Body     BodyFormat
	users    map[int64]*SimpleUser
	userJSON map[int64]encodedUser
}

// NewIssueWriter makes a writer for a response in format f.
func (u URLs) NewIssueWriter(f BodyFormat) *IssueWriter {
	return &IssueWriter{U: u, Body: f, users: map[int64]*SimpleUser{}}
}

// User is a (shared) simple-user object, nil for a missing account.
func (w *IssueWriter) User(a *model.Account) *SimpleUser {
	if a == nil {
		return nil
	}
	if su := w.users[a.ID]; su != nil {
		return su
	}
	su := w.U.ToSimpleUser(a)
	w.users[a.ID] = &su
	return &su
}

func (w *IssueWriter) userList(list []*model.Account) []SimpleUser {
	out := make([]SimpleUser, 0, len(list))
	for _, a := range list {
		out = append(out, *w.User(a))
	}
	return out
}

// RepoAPI is the API URL of a repository named owner/name.
func (u URLs) RepoAPI(owner, name string) string { return u.API + "/repos/" + owner + "/" + name }

// LabelURL is the API URL of a label.
func (u URLs) LabelURL(repo *model.Repo, name string) string {
	return u.RepoAPIURL(repo) + "/labels/" + url.PathEscape(name)
}

// ToLabel converts a label.
func (u URLs) ToLabel(repo *model.Repo, l *model.Label) Label {
	return Label{ID: l.ID, NodeID: NodeID("LA", l.ID), URL: u.LabelURL(repo, l.Name), Name: l.Name,
		Description: l.Description, Color: l.Color, Default: l.Default}
}

// ToLabels converts a list of labels.
func (u URLs) ToLabels(repo *model.Repo, list []*model.Label) []Label {
	out := make([]Label, 0, len(list))
	for _, l := range list {
		out = append(out, u.ToLabel(repo, l))
	}
	return out
}

// ToMilestone converts a milestone.
func (w *IssueWriter) ToMilestone(repo *model.Repo, m *model.Milestone) *Milestone {
	base := w.U.RepoAPIURL(repo) + "/milestones/" + strconv.FormatInt(m.Number, 10)
	return &Milestone{
		URL: base, HTMLURL: w.U.RepoHTMLURL(repo) + "/milestone/" + strconv.FormatInt(m.Number, 10),
		LabelsURL: base + "/labels", ID: m.ID, NodeID: NodeID("MI", m.ID), Number: m.Number, State: m.State,
		Title: m.Title, Description: m.Description, Creator: w.User(m.Creator), OpenIssues: m.OpenIssues,
		ClosedIssues: m.ClosedIssues, CreatedAt: Time(m.CreatedAt), UpdatedAt: Time(m.UpdatedAt),
		ClosedAt: TimePtr(m.ClosedAt), DueOn: TimePtr(m.DueOn),
	}
}

// ToRollup converts reaction counts for the reactions URL of a subject.
func ToRollup(u string, r model.ReactionRollup) ReactionRollup {
	out := ReactionRollup{URL: u}
	if r == nil {
		return out
	}
	out.PlusOne, out.MinusOne, out.Laugh, out.Confused = r["+1"], r["-1"], r["laugh"], r["confused"]
	out.Heart, out.Hooray, out.Eyes, out.Rocket = r["heart"], r["hooray"], r["eyes"], r["rocket"]
	out.TotalCount = out.PlusOne + out.MinusOne + out.Laugh + out.Confused + out.Heart + out.Hooray + out.Eyes + out.Rocket
	return out
}

// IssueAPIURL is the API URL of issue number n of a repository.
func (u URLs) IssueAPIURL(repo *model.Repo, n int64) string {
	return u.RepoAPIURL(repo) + "/issues/" + strconv.FormatInt(n, 10)
}

// IssueRefURL is the API URL of an issue named by reference.
func (u URLs) IssueRefURL(ref *model.IssueRef) string {
	return u.RepoAPI(ref.Owner, ref.Repo) + "/issues/" + strconv.FormatInt(ref.Number, 10)
}

// ToIssue converts an issue whose details were loaded. withRepo adds the
// repository object (cross-repository lists) with the caller's access.
func (w *IssueWriter) ToIssue(repo *model.Repo, is *model.Issue, withRepo *Access) Issue {
	repoURL := w.U.RepoAPIURL(repo)
	num := strconv.FormatInt(is.Number, 10)
	base := repoURL + "/issues/" + num
	html := w.U.RepoHTMLURL(repo) + "/issues/" + num
	if is.IsPull {
		html = w.U.RepoHTMLURL(repo) + "/pull/" + num
	}
	out := Issue{
		ID: is.ID, NodeID: NodeID("I", is.ID), URL: base, RepositoryURL: repoURL,
		LabelsURL: base + "/labels{/name}", CommentsURL: base + "/comments", EventsURL: base + "/events",
		HTMLURL: html, Number: is.Number, State: is.State, StateReason: is.StateReason, Title: is.Title,
		Body: w.Body.body(is.Body), User: w.User(is.User), Labels: w.U.ToLabels(repo, is.Labels),
		Assignees: w.userList(is.Assignees), Locked: is.Locked, ActiveLockReason: is.LockReason,
		Comments: is.Comments, ClosedAt: TimePtr(is.ClosedAt), CreatedAt: Time(is.CreatedAt),
		UpdatedAt: Time(is.UpdatedAt), TimelineURL: base + "/timeline", AuthorAssociation: is.Association,
		Reactions: ToRollup(base+"/reactions", is.Rollup),
		IssueDependenciesSummary: DependenciesSummary{
			BlockedBy: is.DepSummary.BlockedBy, Blocking: is.DepSummary.Blocking,
			TotalBlockedBy: is.DepSummary.TotalBlockedBy, TotalBlocking: is.DepSummary.TotalBlocking,
		},
	}
	if !is.Locked {
		out.ActiveLockReason = nil
	}
	if len(out.Assignees) > 0 {
		out.Assignee = &out.Assignees[0]
	}
	if is.Milestone != nil {
		out.Milestone = w.ToMilestone(repo, is.Milestone)
	}
	if is.IsPull {
		p := repoURL + "/pulls/" + num
		out.PullRequest = &IssuePullRequest{URL: p, HTMLURL: html, DiffURL: html + ".diff", PatchURL: html + ".patch", MergedAt: TimePtr(is.MergedAt)}
	}
	if s := is.SubSummary; s.Total > 0 {
		out.SubIssuesSummary = SubIssuesSummary{Total: s.Total, Completed: s.Completed, PercentCompleted: s.Completed * 100 / s.Total}
	}
	if is.Parent != nil {
		p := w.U.IssueRefURL(is.Parent)
		out.ParentIssueURL = &p
	}
	if is.PinnedComment != nil {
		c := w.ToComment(repo, is.PinnedComment)
		out.PinnedComment = &c
	}
	if withRepo != nil {
		r := w.U.ToRepository(repo, RepoCounts{}, *withRepo)
		out.Repository = &r
	}
	if is.Type != nil {
		t := ToIssueType(is.Type)
		out.Type = &t
	}
	out.PerformedViaGitHubApp = w.viaApp(is.ViaApp)
	return out
}

// viaApp is the performed_via_github_app object of what an app wrote (nil
// for the rest).
func (w *IssueWriter) viaApp(a *model.App) *Integration {
	if a == nil {
		return nil
	}
	in := w.U.ToIntegration(a, nil)
	return &in
}

// WithClosedBy adds the closed_by field of single-issue responses.
func (w *IssueWriter) WithClosedBy(out *Issue, is *model.Issue) {
	out.ClosedBy = Some(w.User(is.ClosedBy))
}

// CommentAPIURL is the API URL of an issue comment.
func (u URLs) CommentAPIURL(repo *model.Repo, id int64) string {
	return u.RepoAPIURL(repo) + "/issues/comments/" + strconv.FormatInt(id, 10)
}

// ToComment converts a comment (its IssueNumber must be set).
func (w *IssueWriter) ToComment(repo *model.Repo, c *model.IssueComment) IssueComment {
	self := w.U.CommentAPIURL(repo, c.ID)
	out := IssueComment{
		ID: c.ID, NodeID: NodeID("IC", c.ID), URL: self,
		HTMLURL: w.U.RepoHTMLURL(repo) + "/issues/" + strconv.FormatInt(c.IssueNumber, 10) + "#issuecomment-" + strconv.FormatInt(c.ID, 10),
		Body:    w.Body.body(&c.Body), User: w.User(c.User), CreatedAt: Time(c.CreatedAt), UpdatedAt: Time(c.UpdatedAt),
		IssueURL: w.U.IssueAPIURL(repo, c.IssueNumber), AuthorAssociation: c.Association,
		Reactions: ToRollup(self+"/reactions", c.Rollup),
	}
	if c.PinnedAt != nil {
		out.Pin = &PinnedInfo{PinnedAt: Time(*c.PinnedAt), PinnedBy: w.User(c.PinnedBy)}
	}
	out.PerformedViaGitHubApp = w.viaApp(c.ViaApp)
	return out
}

// ToReaction converts a reaction.
func (w *IssueWriter) ToReaction(r *model.Reaction) Reaction {
	return Reaction{ID: r.ID, NodeID: NodeID("REA", r.ID), User: w.User(r.User), Content: r.Content, CreatedAt: Time(r.CreatedAt)}
}
