package web

import (
	"errors"
	"net/http"
	"net/url"
	"strconv"
	"strings"

	"github.com/hubd/hubd/internal/authz"
	"github.com/hubd/hubd/internal/gitrepo"
	"github.com/hubd/hubd/internal/issues"
	"github.com/hubd/hubd/internal/model"
	"github.com/hubd/hubd/internal/pullreviews"
	"github.com/hubd/hubd/internal/pulls"
)

// submit runs a page's form (a POST with a valid CSRF token from a
// signed-in user) through the services REST and GraphQL run, then sends
// the browser back to the page; a refusal comes back as the page's flash
// message in the service's words.
func (x *req) submit() bool {
	if x.h.svc.Pulls == nil || x.h.svc.Issues == nil || x.h.svc.Reviews == nil || x.h.svc.Refs == nil {
		return x.notFound() // a server built without the services (Use) takes no forms
	}
	switch x.pg.kind {
	case "settings":
		return x.settingsForm()
	case "actions":
		return x.runForm()
	case "compare":
		return x.openPull()
	case "issues":
		if x.pg.number == 0 {
			break
		}
		switch x.pg.tab {
		case "comments":
			return x.commentIssue()
		case "close", "reopen":
			return x.issueState()
		}
	case "pull":
		switch x.pg.tab {
		case "merge":
			return x.mergePull()
		case "review":
			return x.reviewPull()
		case "comments":
			return x.commentPull()
		case "delete-branch":
			return x.deleteBranch()
		}
	}
	return x.notFound()
}

// back sends the browser to path, with a message when one is set.
func (x *req) back(path, flash string) bool {
	if flash != "" {
		sep := "?"
		if strings.Contains(path, "?") {
			sep = "&"
		}
		path += sep + "flash=" + url.QueryEscape(flash)
	}
	http.Redirect(x.w, x.r, x.h.d.URLs.Web+path, http.StatusSeeOther)
	return true
}

// refused is a service's refusal as the page tells it (its message), or
// false for a real failure.
func refused(err error) (string, bool) {
	var he *model.HTTPError
	if errors.As(err, &he) {
		if len(he.Reasons) > 0 {
			return he.Message + ": " + strings.Join(he.Reasons, "; "), true
		}
		return he.Message, true
	}
	var ve *model.ValidationError
	if errors.As(err, &ve) {
		msg := ve.Message
		if msg == "" {
			msg = "Validation Failed"
		}
		for _, f := range ve.Errors {
			if f.Message != "" {
				msg += ": " + f.Message
			} else {
				msg += ": " + f.Field + " " + f.Code
			}
		}
		return msg, true
	}
	if errors.Is(err, model.ErrNotFound) {
		return "Not Found", true
	}
	return "", false
}

// outcome answers a form after the service ran: back to the page, with
// the refusal when there was one.
func (x *req) outcome(path string, err error) bool {
	if err == nil {
		return x.back(path, "")
	}
	if msg, ok := refused(err); ok {
		return x.back(path, msg)
	}
	return x.fail(err)
}

func (x *req) pullHref() string {
	return x.base + "/pull/" + strconv.FormatInt(x.pg.number, 10)
}

func (x *req) pullsCaller() pulls.Caller {
	return pulls.CallerFor(x.h.d.Store, x.caller(), x.perm)
}

// mergePull merges with the method the form chose (merge, squash or
// rebase), at the head the reader saw.
func (x *req) mergePull() bool {
	f := x.r.PostForm
	in := pulls.MergeInput{Method: f.Get("merge_method"), SHA: f.Get("sha")}
	if t := strings.TrimSpace(f.Get("commit_title")); t != "" {
		in.CommitTitle = &t
	}
	if m := f.Get("commit_message"); m != "" {
		in.CommitMessage = &m
	}
	var err error
	if err = x.repo.WriteRefusal(); err == nil {
		_, err = x.h.svc.Pulls.Merge(x.r.Context(), x.repo, x.pullsCaller(), x.pg.number, in)
	}
	return x.outcome(x.pullHref(), err)
}

// reviewPull submits a review (comment, approve or request changes) with
// the inline comment the files page's form carried.
func (x *req) reviewPull() bool {
	f := x.r.PostForm
	a := pullreviews.Access{Repo: x.repo, Perm: x.perm, UserID: x.caller().UserID()}
	ctx := x.r.Context()
	back := x.pullHref() + "/files"
	if f.Get("from") == "conversation" {
		back = x.pullHref()
	}
	event := f.Get("event")
	switch event {
	case "COMMENT", "APPROVE", "REQUEST_CHANGES":
	default:
		return x.back(back, "Choose whether to comment, approve or request changes.")
	}
	if err := x.h.d.MayParticipate(ctx, x.repo, a.UserID, "review"); err != nil {
		return x.outcome(back, err)
	}
	if event == "APPROVE" && x.h.d.MayApprove != nil {
		if err := x.h.d.MayApprove(ctx, x.repo, a.UserID); err != nil {
			return x.outcome(back, err)
		}
	}
	body := f.Get("body")
	in := pullreviews.ReviewInput{Body: &body, Event: &event}
	if sha := f.Get("commit_id"); sha != "" {
		in.CommitID = &sha
	}
	if cb := strings.TrimSpace(f.Get("comment_body")); cb != "" {
		path, side := f.Get("path"), f.Get("side")
		line, err := strconv.ParseInt(f.Get("line"), 10, 64)
		if err != nil || line <= 0 || (side != "LEFT" && side != "RIGHT") || path == "" {
			return x.back(back, "The inline comment names no line of the diff.")
		}
		in.Comments = []pullreviews.CommentInput{{Body: &cb, Path: &path, Line: &line, Side: &side}}
	}
	_, err := x.h.svc.Reviews.CreateReview(ctx, a, x.pg.number, in)
	return x.outcome(back, err)
}

// commentPull comments on the conversation.
func (x *req) commentPull() bool {
	_, err := x.h.svc.Issues.AddComment(x.r.Context(), x.caller(), x.repo, x.perm, x.pg.number, x.r.PostForm.Get("body"))
	return x.outcome(x.pullHref(), err)
}

// deleteBranch deletes a closed pull request's head branch (in this
// repository), as GitHub's "Delete branch" button after a merge.
func (x *req) deleteBranch() bool {
	ctx := x.r.Context()
	p, err := x.h.d.Store.R().PullByNumber(ctx, x.repo.ID, x.pg.number)
	if errors.Is(err, model.ErrNotFound) {
		return x.notFound()
	}
	if err != nil {
		return x.fail(err)
	}
	switch {
	case x.perm < authz.Write:
		err = model.Forbidden("Must have " + authz.Write.String() + " access to Repository.")
	case p.Issue.State != "closed" || p.HeadRepoID != x.repo.ID:
		err = model.Unprocessable("Only a closed pull request's branch in this repository can be deleted here.")
	default:
		err = x.h.svc.Refs.Delete(ctx, x.caller(), x.repo, "refs/heads/"+p.HeadRef)
	}
	return x.outcome(x.pullHref(), err)
}

// openPull opens a pull request from the compare page's form.
func (x *req) openPull() bool {
	basehead := strings.Join(x.pg.rest, "/")
	base, head, ok := strings.Cut(basehead, "...")
	if !ok || base == "" || head == "" {
		return x.notFound()
	}
	self := x.base + "/compare/" + basehead
	if err := x.repo.WriteRefusal(); err != nil {
		return x.outcome(self, err)
	}
	f := x.r.PostForm
	body := f.Get("body")
	in := pulls.CreateInput{Title: strings.TrimSpace(f.Get("title")), Body: &body, Head: head, Base: base, Draft: f.Get("draft") == "on"}
	p, err := x.h.svc.Pulls.Create(x.r.Context(), x.repo, x.pullsCaller(), in)
	if err != nil {
		return x.outcome(self, err)
	}
	return x.back(x.base+"/pull/"+strconv.FormatInt(p.Number, 10), "")
}

// openForm is the compare page's form for base...head when both are
// branches of this repository (a signed-out reader gets a sign-in link;
// an open pull request of the branches is linked instead).
func (x *req) openForm(base, head string, commits []*gitrepo.Commit) (*openForm, error) {
	ctx := x.r.Context()
	g := x.h.d.Git.Open(x.repo.ID)
	for _, b := range []string{base, head} {
		if _, err := g.ResolveRef(ctx, "refs/heads/"+b); errors.Is(err, gitrepo.ErrNotFound) {
			return nil, nil
		} else if err != nil {
			return nil, err
		}
	}
	f := &openForm{Action: x.base + "/compare/" + base + "..." + head, Flash: x.query("flash")}
	if x.caller().UserID() == 0 {
		f.SignIn = "/login?return_to=" + url.QueryEscape(x.r.URL.RequestURI())
		return f, nil
	}
	n, err := x.h.d.Store.R().OpenPullExists(ctx, x.repo.ID, x.repo.ID, head, base)
	if err != nil {
		return nil, err
	}
	if n != 0 {
		f.Existing = x.base + "/pull/" + strconv.FormatInt(n, 10)
		return f, nil
	}
	f.CSRF = x.csrf()
	f.Title = head
	if len(commits) == 1 {
		f.Title = summary(commits[0].Message)
	}
	return f, nil
}

func (x *req) issueHref() string {
	return x.base + "/issues/" + strconv.FormatInt(x.pg.number, 10)
}

// commentIssue comments on an issue; "Close with comment" closes it too.
func (x *req) commentIssue() bool {
	ctx := x.r.Context()
	f := x.r.PostForm
	if strings.TrimSpace(f.Get("body")) != "" {
		if _, err := x.h.svc.Issues.AddComment(ctx, x.caller(), x.repo, x.perm, x.pg.number, f.Get("body")); err != nil {
			return x.outcome(x.issueHref(), err)
		}
	}
	if f.Get("close") == "" {
		return x.back(x.issueHref(), "")
	}
	return x.issueState()
}

// issueState closes (as completed or not planned) or reopens an issue.
func (x *req) issueState() bool {
	ctx := x.r.Context()
	is, err := x.h.d.Store.R().IssueByNumber(ctx, x.repo.ID, x.pg.number)
	if errors.Is(err, model.ErrNotFound) || (err == nil && is.IsPull) {
		return x.notFound()
	}
	if err != nil {
		return x.fail(err)
	}
	in := issues.IssueInput{State: "open", Reason: "reopened"}
	if x.pg.tab != "reopen" {
		in.State, in.Reason = "closed", "completed"
		if x.r.PostForm.Get("reason") == "not_planned" {
			in.Reason = "not_planned"
		}
	}
	return x.outcome(x.issueHref(), x.h.svc.Issues.ChangeIssue(ctx, x.caller(), x.repo, x.perm, is, in))
}
