package wire

import (
	"bytes"
	"encoding/json"
	"strconv"

	"github.com/hubd/hubd/internal/jsonw"
)

// Issue lists are the biggest JSON bodies hubd sends (a page of 30 issues
// is ~170 KB, most of it user objects repeated on every issue), and
// encoding/json spends most of such a request. AppendIssues writes the
// same bytes as encoding/json (with HTML escaping off, as rest.JSON) by
// hand, encoding each user object of a response once; a test holds it to
// byte-for-byte parity with encoding/json for every field.

// AppendIssues appends the JSON array of issues and a newline, exactly as
// rest.JSON would encode it.
func (w *IssueWriter) AppendIssues(dst []byte, list []Issue) []byte {
	dst = append(dst, '[')
	for i := range list {
		if i > 0 {
			dst = append(dst, ',')
		}
		dst = w.appendIssue(dst, &list[i])
	}
	return append(dst, ']', '\n')
}

// AppendIssue appends one issue object as encoding/json would encode it.
func (w *IssueWriter) AppendIssue(dst []byte, is *Issue) []byte { return w.appendIssue(dst, is) }

func (w *IssueWriter) appendIssue(dst []byte, is *Issue) []byte {
	dst = append(dst, `{"id":`...)
	dst = strconv.AppendInt(dst, is.ID, 10)
	dst = appendField(dst, "node_id", is.NodeID)
	dst = appendField(dst, "url", is.URL)
	dst = appendField(dst, "repository_url", is.RepositoryURL)
	dst = appendField(dst, "labels_url", is.LabelsURL)
	dst = appendField(dst, "comments_url", is.CommentsURL)
	dst = appendField(dst, "events_url", is.EventsURL)
	dst = appendField(dst, "html_url", is.HTMLURL)
	dst = append(dst, `,"number":`...)
	dst = strconv.AppendInt(dst, is.Number, 10)
	dst = appendField(dst, "state", is.State)
	dst = appendNullable(dst, "state_reason", is.StateReason)
	dst = appendField(dst, "title", is.Title)
	dst = appendBody(dst, &is.Body)
	dst = append(dst, `,"user":`...)
	dst = w.appendUser(dst, is.User)
	dst = append(dst, `,"labels":[`...)
	for i := range is.Labels {
		if i > 0 {
			dst = append(dst, ',')
		}
		dst = appendLabel(dst, &is.Labels[i])
	}
	dst = append(dst, `],"assignee":`...)
	dst = w.appendUser(dst, is.Assignee)
	dst = append(dst, `,"assignees":[`...)
	for i := range is.Assignees {
		if i > 0 {
			dst = append(dst, ',')
		}
		dst = w.appendUser(dst, &is.Assignees[i])
	}
	dst = append(dst, `],"milestone":`...)
	dst = w.appendMilestone(dst, is.Milestone)
	dst = append(dst, `,"locked":`...)
	dst = strconv.AppendBool(dst, is.Locked)
	dst = appendNullable(dst, "active_lock_reason", is.ActiveLockReason)
	dst = append(dst, `,"comments":`...)
	dst = strconv.AppendInt(dst, int64(is.Comments), 10)
	if is.PullRequest != nil {
		p := is.PullRequest
		dst = append(dst, `,"pull_request":{"merged_at":`...)
		if p.MergedAt == nil {
			dst = append(dst, "null"...)
		} else {
			dst = appendString(dst, *p.MergedAt)
		}
		dst = appendField(dst, "diff_url", p.DiffURL)
		dst = appendField(dst, "html_url", p.HTMLURL)
		dst = appendField(dst, "patch_url", p.PatchURL)
		dst = appendField(dst, "url", p.URL)
		dst = append(dst, '}')
	}
	dst = appendNullable(dst, "closed_at", is.ClosedAt)
	dst = appendField(dst, "created_at", is.CreatedAt)
	dst = appendField(dst, "updated_at", is.UpdatedAt)
	if is.ClosedBy.Present {
		dst = append(dst, `,"closed_by":`...)
		dst = w.appendUser(dst, is.ClosedBy.V)
	}
	dst = appendField(dst, "timeline_url", is.TimelineURL)
	if is.Type != nil {
		dst = append(dst, `,"type":`...)
		dst = appendMarshal(dst, is.Type)
	} else {
		dst = append(dst, `,"type":null`...)
	}
	if is.Repository != nil {
		dst = append(dst, `,"repository":`...)
		dst = appendMarshal(dst, is.Repository)
	}
	dst = appendViaApp(dst, is.PerformedViaGitHubApp)
	dst = appendField(dst, "author_association", is.AuthorAssociation)
	dst = append(dst, `,"reactions":`...)
	dst = appendRollup(dst, &is.Reactions)
	s := is.SubIssuesSummary
	dst = append(dst, `,"sub_issues_summary":{"total":`...)
	dst = strconv.AppendInt(dst, int64(s.Total), 10)
	dst = append(dst, `,"completed":`...)
	dst = strconv.AppendInt(dst, int64(s.Completed), 10)
	dst = append(dst, `,"percent_completed":`...)
	dst = strconv.AppendInt(dst, int64(s.PercentCompleted), 10)
	dst = append(dst, '}')
	dst = appendNullable(dst, "parent_issue_url", is.ParentIssueURL)
	dst = append(dst, `,"pinned_comment":`...)
	if is.PinnedComment == nil {
		dst = append(dst, "null"...)
	} else {
		dst = w.appendComment(dst, is.PinnedComment)
	}
	d := is.IssueDependenciesSummary
	dst = append(dst, `,"issue_dependencies_summary":{"blocked_by":`...)
	dst = strconv.AppendInt(dst, int64(d.BlockedBy), 10)
	dst = append(dst, `,"blocking":`...)
	dst = strconv.AppendInt(dst, int64(d.Blocking), 10)
	dst = append(dst, `,"total_blocked_by":`...)
	dst = strconv.AppendInt(dst, int64(d.TotalBlockedBy), 10)
	dst = append(dst, `,"total_blocking":`...)
	dst = strconv.AppendInt(dst, int64(d.TotalBlocking), 10)
	return append(dst, '}', '}')
}

func (w *IssueWriter) appendComment(dst []byte, c *IssueComment) []byte {
	dst = append(dst, `{"id":`...)
	dst = strconv.AppendInt(dst, c.ID, 10)
	dst = appendField(dst, "node_id", c.NodeID)
	dst = appendField(dst, "url", c.URL)
	dst = appendField(dst, "html_url", c.HTMLURL)
	dst = appendBody(dst, &c.Body)
	dst = append(dst, `,"user":`...)
	dst = w.appendUser(dst, c.User)
	dst = appendField(dst, "created_at", c.CreatedAt)
	dst = appendField(dst, "updated_at", c.UpdatedAt)
	dst = appendField(dst, "issue_url", c.IssueURL)
	dst = appendField(dst, "author_association", c.AuthorAssociation)
	dst = appendViaApp(dst, c.PerformedViaGitHubApp)
	dst = append(dst, `,"reactions":`...)
	dst = appendRollup(dst, &c.Reactions)
	dst = append(dst, `,"pin":`...)
	if c.Pin == nil {
		dst = append(dst, "null"...)
	} else {
		dst = append(dst, `{"pinned_at":`...)
		dst = appendString(dst, c.Pin.PinnedAt)
		dst = append(dst, `,"pinned_by":`...)
		dst = w.appendUser(dst, c.Pin.PinnedBy)
		dst = append(dst, '}')
	}
	dst = append(dst, `,"minimized":`...)
	switch {
	case c.Minimized == nil:
		dst = append(dst, "null"...)
	case c.Minimized.Reason == nil:
		dst = append(dst, `{"reason":null}`...)
	default:
		dst = append(dst, `{"reason":`...)
		dst = appendString(dst, *c.Minimized.Reason)
		dst = append(dst, '}')
	}
	return append(dst, '}')
}

// appendUser appends a simple-user object (or null), encoding each user
// once per writer.
func (w *IssueWriter) appendUser(dst []byte, u *SimpleUser) []byte {
	if u == nil {
		return append(dst, "null"...)
	}
	if w.userJSON == nil {
		w.userJSON = map[int64]encodedUser{}
	}
	e, ok := w.userJSON[u.ID]
	if !ok || e.u != *u {
		e = encodedUser{u: *u, b: appendSimpleUser(nil, u)}
		w.userJSON[u.ID] = e
	}
	return append(dst, e.b...)
}

// encodedUser is a user object and its encoding.
type encodedUser struct {
	u SimpleUser
	b []byte
}

func appendSimpleUser(dst []byte, u *SimpleUser) []byte {
	dst = append(dst, '{')
	if u.Name != nil {
		dst = append(dst, `"name":`...)
		dst = appendString(dst, *u.Name)
		dst = append(dst, ',')
	}
	if u.Email != nil {
		dst = append(dst, `"email":`...)
		dst = appendString(dst, *u.Email)
		dst = append(dst, ',')
	}
	dst = append(dst, `"login":`...)
	dst = appendString(dst, u.Login)
	dst = append(dst, `,"id":`...)
	dst = strconv.AppendInt(dst, u.ID, 10)
	dst = appendField(dst, "node_id", u.NodeID)
	dst = appendField(dst, "avatar_url", u.AvatarURL)
	dst = appendField(dst, "gravatar_id", u.GravatarID)
	dst = appendField(dst, "url", u.URL)
	dst = appendField(dst, "html_url", u.HTMLURL)
	dst = appendField(dst, "followers_url", u.FollowersURL)
	dst = appendField(dst, "following_url", u.FollowingURL)
	dst = appendField(dst, "gists_url", u.GistsURL)
	dst = appendField(dst, "starred_url", u.StarredURL)
	dst = appendField(dst, "subscriptions_url", u.SubscriptionsURL)
	dst = appendField(dst, "organizations_url", u.OrganizationsURL)
	dst = appendField(dst, "repos_url", u.ReposURL)
	dst = appendField(dst, "events_url", u.EventsURL)
	dst = appendField(dst, "received_events_url", u.ReceivedEventsURL)
	dst = appendField(dst, "type", u.Type)
	dst = appendField(dst, "user_view_type", u.UserViewType)
	dst = append(dst, `,"site_admin":`...)
	dst = strconv.AppendBool(dst, u.SiteAdmin)
	return append(dst, '}')
}

func appendLabel(dst []byte, l *Label) []byte {
	dst = append(dst, `{"id":`...)
	dst = strconv.AppendInt(dst, l.ID, 10)
	dst = appendField(dst, "node_id", l.NodeID)
	dst = appendField(dst, "url", l.URL)
	dst = appendField(dst, "name", l.Name)
	dst = appendNullable(dst, "description", l.Description)
	dst = appendField(dst, "color", l.Color)
	dst = append(dst, `,"default":`...)
	dst = strconv.AppendBool(dst, l.Default)
	return append(dst, '}')
}

func (w *IssueWriter) appendMilestone(dst []byte, m *Milestone) []byte {
	if m == nil {
		return append(dst, "null"...)
	}
	dst = append(dst, `{"url":`...)
	dst = appendString(dst, m.URL)
	dst = appendField(dst, "html_url", m.HTMLURL)
	dst = appendField(dst, "labels_url", m.LabelsURL)
	dst = append(dst, `,"id":`...)
	dst = strconv.AppendInt(dst, m.ID, 10)
	dst = appendField(dst, "node_id", m.NodeID)
	dst = append(dst, `,"number":`...)
	dst = strconv.AppendInt(dst, m.Number, 10)
	dst = appendField(dst, "state", m.State)
	dst = appendField(dst, "title", m.Title)
	dst = appendNullable(dst, "description", m.Description)
	dst = append(dst, `,"creator":`...)
	dst = w.appendUser(dst, m.Creator)
	dst = append(dst, `,"open_issues":`...)
	dst = strconv.AppendInt(dst, int64(m.OpenIssues), 10)
	dst = append(dst, `,"closed_issues":`...)
	dst = strconv.AppendInt(dst, int64(m.ClosedIssues), 10)
	dst = appendField(dst, "created_at", m.CreatedAt)
	dst = appendField(dst, "updated_at", m.UpdatedAt)
	dst = appendNullable(dst, "closed_at", m.ClosedAt)
	dst = appendNullable(dst, "due_on", m.DueOn)
	return append(dst, '}')
}

func appendRollup(dst []byte, r *ReactionRollup) []byte {
	dst = append(dst, `{"url":`...)
	dst = appendString(dst, r.URL)
	for _, f := range [...]struct {
		key string
		n   int
	}{{`,"total_count":`, r.TotalCount}, {`,"+1":`, r.PlusOne}, {`,"-1":`, r.MinusOne}, {`,"laugh":`, r.Laugh},
		{`,"confused":`, r.Confused}, {`,"heart":`, r.Heart}, {`,"hooray":`, r.Hooray}, {`,"eyes":`, r.Eyes}, {`,"rocket":`, r.Rocket}} {
		dst = append(dst, f.key...)
		dst = strconv.AppendInt(dst, int64(f.n), 10)
	}
	return append(dst, '}')
}

// appendBody appends the body fields present in b.
func appendBody(dst []byte, b *Body) []byte {
	if b.Raw.Present {
		dst = appendNullable(dst, "body", b.Raw.V)
	}
	if b.Text != nil {
		dst = appendField(dst, "body_text", *b.Text)
	}
	if b.HTML != nil {
		dst = appendField(dst, "body_html", *b.HTML)
	}
	return dst
}

// appendField appends ,"key":"value".
func appendField(dst []byte, key, v string) []byte {
	dst = append(dst, ',', '"')
	dst = append(dst, key...)
	dst = append(dst, '"', ':')
	return appendString(dst, v)
}

// appendNullable appends ,"key":"value" or ,"key":null.
func appendNullable(dst []byte, key string, v *string) []byte {
	if v == nil {
		dst = append(dst, ',', '"')
		dst = append(dst, key...)
		return append(dst, `":null`...)
	}
	return appendField(dst, key, *v)
}

// appendMarshal appends v as rest.JSON would encode it (no HTML escaping).
func appendMarshal(dst []byte, v any) []byte {
	buf := bytes.NewBuffer(dst)
	enc := json.NewEncoder(buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return append(dst, "null"...)
	}
	return bytes.TrimSuffix(buf.Bytes(), []byte("\n"))
}

// appendString writes s as a JSON string as encoding/json does with HTML escaping off.
func appendString(b []byte, s string) []byte { return jsonw.AppendString(b, s, false) }

// appendViaApp writes performed_via_github_app: null, or the app (rare:
// encoded the ordinary way).
func appendViaApp(dst []byte, a *Integration) []byte {
	if a == nil {
		return append(dst, `,"performed_via_github_app":null`...)
	}
	dst = append(dst, `,"performed_via_github_app":`...)
	return appendMarshal(dst, a)
}
