package hooks

import (
	"context"
	"strings"

	"github.com/hubd/hubd/internal/model"
	"github.com/hubd/hubd/internal/wire"
)

// Payloads of pull requests and their reviews.

// pull loads a pull request (by its issue id) and its webhook object.
func (b *builder) pull(ctx context.Context, repo *model.Repo, issueID int64) (*model.Pull, map[string]any, error) {
	if b.s.PullDetails == nil {
		return nil, nil, skip("pull request payloads need the pulls service")
	}
	p, err := b.q.PullByIssueID(ctx, issueID)
	if err != nil {
		return nil, nil, err
	}
	if err := b.q.IssueDetails(ctx, []*model.Issue{p.Issue}, false); err != nil {
		return nil, nil, err
	}
	if err := b.s.PullDetails(ctx, []*model.Pull{p}, 0); err != nil {
		return nil, nil, err
	}
	if b.s.ReviewersOf != nil {
		rv, err := b.s.ReviewersOf(ctx, []int64{p.IssueID})
		if err != nil {
			return nil, nil, err
		}
		p.RequestedReviewers = rv[p.IssueID]
	}
	rs := &wire.PullRepos{Base: repo, HeadAccess: func(*model.Repo) wire.Access { return wire.Access{} }}
	pr, err := toMap(b.w.ToPull(rs, p))
	if err != nil {
		return nil, nil, err
	}
	// The webhook pull request carries the repository's merge settings.
	for k, v := range map[string]any{"allow_auto_merge": repo.AllowAutoMerge, "allow_update_branch": repo.AllowUpdateBranch,
		"delete_branch_on_merge": repo.DeleteBranchOnMerge, "merge_commit_message": repo.MergeCommitMessage,
		"merge_commit_title": repo.MergeCommitTitle, "squash_merge_commit_message": repo.SquashMergeCommitMessage,
		"squash_merge_commit_title": repo.SquashMergeCommitTitle, "use_squash_pr_title_as_default": repo.SquashMergeCommitTitle == "PR_TITLE"} {
		pr[k] = v
	}
	return p, pr, nil
}

// reviewEvent fills a pull_request_review payload.
func (b *builder) reviewEvent(ctx context.Context, repo *model.Repo, d domain, action string, out map[string]any) error {
	p, pr, err := b.pull(ctx, repo, d.int("pull_request_id"))
	if err != nil {
		return err
	}
	v, err := b.q.PullReviewByID(ctx, p.IssueID, d.int("review_id"))
	if err != nil {
		return err
	}
	if v.PullNumber == 0 {
		v.PullNumber = p.Number
	}
	review, err := toMap(b.w.ToPullReview(repo, v))
	if err != nil {
		return err
	}
	// Webhooks spell review states in lower case.
	review["state"] = strings.ToLower(v.State)
	out["review"], out["pull_request"] = review, pr
	if action == "edited" {
		out["changes"] = map[string]any{}
	}
	return nil
}

func (b *builder) pullEvent(ctx context.Context, repo *model.Repo, e model.Event, d domain, action string, out map[string]any) error {
	p, pr, err := b.pull(ctx, repo, d.int("issue_id"))
	if err != nil {
		return err
	}
	out["number"] = p.Number
	out["pull_request"] = pr
	sub := strings.TrimPrefix(e.Type, "issues.")
	switch action {
	case "synchronize":
		out["before"], out["after"] = d.str("before"), d.str("after")
	case "auto_merge_disabled": // the schema requires a reason
		out["reason"] = d.str("reason")
	case "edited":
		out["changes"] = map[string]any{}
	case "labeled", "unlabeled":
		return b.eventLabel(ctx, repo, d, out)
	case "assigned", "unassigned":
		u, err := b.q.AccountByLogin(ctx, d.str("assignee"))
		if err != nil {
			return err
		}
		out["assignee"] = b.s.URLs.ToSimpleUser(u)
	case "review_requested", "review_request_removed":
		if id := d.int("requested_reviewer_id"); id != 0 {
			u, err := b.account(ctx, id)
			if err != nil {
				return err
			}
			if u == nil {
				return skip("requested reviewer %d is gone", id)
			}
			out["requested_reviewer"] = b.s.URLs.ToSimpleUser(u)
		} else {
			return skip("team review requests (%s) have no payload yet", sub)
		}
	case "milestoned", "demilestoned":
		if p.Issue.Milestone == nil {
			return skip("milestone of pull request %d is gone", p.IssueID)
		}
		out["milestone"] = b.w.ToMilestone(repo, p.Issue.Milestone)
	}
	return nil
}

func (b *builder) reviewCommentEvent(ctx context.Context, repo *model.Repo, d domain, action string, out map[string]any) error {
	c, err := b.q.PullReviewCommentByID(ctx, repo.ID, d.int("comment_id"))
	if err != nil {
		return err
	}
	_, pr, err := b.pull(ctx, repo, d.int("pull_request_id"))
	if err != nil {
		return err
	}
	out["comment"], out["pull_request"] = b.w.ToPullReviewComment(repo, c), pr
	if action == "edited" {
		out["changes"] = map[string]any{}
	}
	return nil
}
