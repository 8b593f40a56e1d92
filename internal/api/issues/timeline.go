package issues

import (
	"net/http"

	"github.com/hubd/hubd/internal/authz"
	"github.com/hubd/hubd/internal/gitrepo"
	"github.com/hubd/hubd/internal/model"
	"github.com/hubd/hubd/internal/rest"
	"github.com/hubd/hubd/internal/store"
	"github.com/hubd/hubd/internal/wire"
)

// GET /repos/{owner}/{repo}/issues/{issue_number}/timeline: the issue's
// event log in order — events, comments and cross-references (those from
// issues the caller may not see are left out).
func (a *API) timeline(w http.ResponseWriter, r *http.Request) error {
	x, err := a.open(r, authz.Read)
	if err != nil {
		return err
	}
	ctx := r.Context()
	st := a.d.Store.R()
	is, err := a.issue(r, st, x)
	if err != nil {
		return err
	}
	p := rest.ParsePage(r)
	list, total, err := st.ListIssueEvents(ctx, store.EventQuery{IssueID: is.ID, Timeline: true, Exclude: exclusions(r),
		Limit: p.Limit(), Offset: p.Offset()})
	if err != nil {
		return err
	}
	var commentIDs, sourceIDs, reviewIDs []int64
	var commitIDs []string
	for _, e := range list {
		switch e.Event {
		case "committed":
			if e.CommitID != nil {
				commitIDs = append(commitIDs, *e.CommitID)
			}
		case "commented":
			commentIDs = append(commentIDs, e.SubjectID)
		case "reviewed":
			reviewIDs = append(reviewIDs, e.SubjectID)
		case "cross-referenced":
			sourceIDs = append(sourceIDs, e.SubjectID)
		}
	}
	comments, err := st.CommentsByID(ctx, commentIDs)
	if err != nil {
		return err
	}
	reviews, err := st.PullReviewsByID(ctx, reviewIDs)
	if err != nil {
		return err
	}
	sources, repos, err := a.visibleIssues(ctx, r, sourceIDs)
	if err != nil {
		return err
	}
	srcList := make([]*model.Issue, 0, len(sources))
	for _, s := range sources {
		srcList = append(srcList, s)
	}
	if err := st.IssueDetails(ctx, srcList, false); err != nil {
		return err
	}
	refs, err := a.refs(ctx, r, list)
	if err != nil {
		return err
	}
	// A pull request's commits come from git, through the repository's
	// long-lived cat-file process, all at once.
	commits := map[string]*gitrepo.Commit{}
	verifications := map[string]wire.GitVerification{}
	if len(commitIDs) > 0 {
		if g := a.d.Git.Open(x.Repo.ID); g.Exists() {
			list, err := g.Commits(ctx, commitIDs)
			if err != nil {
				return err
			}
			vs, err := a.d.CommitVerifications(ctx, list...)
			if err != nil {
				return err
			}
			for i, cm := range list {
				commits[cm.OID], verifications[cm.OID] = cm, vs[i]
			}
		}
	}
	c := rest.Caller(r)
	wr := a.writer(r)
	out := make([]any, 0, len(list))
	for _, e := range list {
		switch e.Event {
		case "committed":
			if e.CommitID != nil && commits[*e.CommitID] != nil {
				tc := a.d.URLs.ToTimelineCommitted(x.Repo, commits[*e.CommitID])
				tc.Verification = verifications[*e.CommitID]
				out = append(out, tc)
			}
		case "commented":
			if cm := comments[e.SubjectID]; cm != nil {
				out = append(out, wr.ToTimelineComment(x.Repo, cm))
			}
		case "reviewed":
			// A review deleted since (pending ones never get a row) is left out.
			if v := reviews[e.SubjectID]; v != nil {
				out = append(out, wr.ToTimelineReview(x.Repo, v))
			}
		case "cross-referenced":
			src := sources[e.SubjectID]
			if src == nil {
				continue
			}
			v := repos[src.RepoID]
			acc := wire.Access{Perm: authz.RepoPermission(c, v.Repo, v.Facts), Authenticated: c.Authenticated()}
			out = append(out, wr.ToCrossReference(e, v.Repo, src, acc))
		default:
			out = append(out, wr.ToIssueEvent(x.Repo, e, refs))
		}
	}
	a.link(w, r, p, total)
	return rest.JSON(w, http.StatusOK, out)
}
