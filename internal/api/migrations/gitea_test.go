package migrations_test

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-github/v92/github"

	"github.com/hubd/hubd/internal/apitest"
)

// TestGiteaDownloaderSequence makes, through go-github, the calls Gitea's
// and Forgejo's "migrate from GitHub" downloader makes (in its order and
// with its options: 100 a page, issues/pulls/comments sorted by creation
// ascending, reactions paged until an empty page), and checks the fields
// it reads.
func TestGiteaDownloaderSequence(t *testing.T) {
	e := apitest.New(t)
	_, tok := e.NewUser("mona", false)
	_, ritaTok := e.NewUser("rita", false)
	populate(t, e, tok, ritaTok)
	// Reactions on an issue, a comment and a review comment; a release asset.
	e.Must(201, "POST", "/repos/acme/widgets/issues/1/reactions", ritaTok, map[string]any{"content": "+1"})
	var cs []map[string]any
	e.Must(200, "GET", "/repos/acme/widgets/issues/1/comments", tok, nil).JSON(t, &cs)
	e.Must(201, "POST", fmt.Sprintf("/repos/acme/widgets/issues/comments/%v/reactions", cs[0]["id"]), tok, map[string]any{"content": "heart"})
	var rcs []map[string]any
	e.Must(200, "GET", "/repos/acme/widgets/pulls/comments", tok, nil).JSON(t, &rcs)
	e.Must(201, "POST", fmt.Sprintf("/repos/acme/widgets/pulls/comments/%v/reactions", rcs[0]["id"]), tok, map[string]any{"content": "rocket"})

	ctx := context.Background()
	gh := e.GitHub(tok)
	asset := filepath.Join(t.TempDir(), "notes.txt")
	os.WriteFile(asset, []byte("release notes\n"), 0o644)
	rels, _, err := gh.Repositories.ListReleases(ctx, "acme", "widgets", nil)
	if err != nil || len(rels) != 1 {
		t.Fatalf("releases: %v %v", rels, err)
	}
	f, _ := os.Open(asset)
	if _, _, err := gh.Repositories.UploadReleaseAsset(ctx, "acme", "widgets", rels[0].GetID(), &github.UploadOptions{Name: "notes.txt"}, f); err != nil {
		t.Fatal(err)
	}
	f.Close()

	const owner, name, perPage = "acme", "widgets", 100
	page := github.ListOptions{PerPage: perPage}
	// RefreshRate.
	rates, _, err := gh.RateLimit.Get(ctx)
	if err != nil || rates.GetCore().Limit == 0 {
		t.Fatalf("rate_limit: %+v %v", rates, err)
	}
	// GetRepoInfo and GetTopics.
	repo, resp, err := gh.Repositories.Get(ctx, owner, name)
	if err != nil || repo.GetName() != "widgets" || repo.GetDefaultBranch() != "main" || repo.GetCloneURL() == "" ||
		repo.GetHTMLURL() != e.URL+"/acme/widgets" || repo.GetDescription() != "Widgets" || repo.Topics == nil || resp.Rate.Limit == 0 {
		t.Fatalf("repository: %+v %v", repo, err)
	}
	// The git data: Gitea clones CloneURL.
	work := t.TempDir()
	apitest.MustGit(t, work, "clone", "--mirror", e.Remote(owner, name, "mona", tok), "w.git")
	if refs := apitest.MustGit(t, filepath.Join(work, "w.git"), "for-each-ref"); !strings.Contains(refs, "refs/pull/3/head") || !strings.Contains(refs, "refs/tags/v1.0") {
		t.Fatalf("mirror refs: %s", refs)
	}
	// GetMilestones.
	ms, _, err := gh.Issues.ListMilestones(ctx, owner, name, &github.MilestoneListOptions{State: "all", ListOptions: page})
	if err != nil || len(ms) != 2 || ms[0].GetTitle() != "v1" || ms[0].GetDescription() != "first" || ms[0].GetState() != "open" ||
		ms[0].CreatedAt == nil || ms[0].UpdatedAt == nil {
		t.Fatalf("milestones: %v %v", ms, err)
	}
	// GetLabels.
	ls, _, err := gh.Issues.ListLabels(ctx, owner, name, &page)
	if err != nil || len(ls) < 2 {
		t.Fatalf("labels: %v %v", ls, err)
	}
	// GetReleases, with the asset download.
	rels, _, err = gh.Repositories.ListReleases(ctx, owner, name, &page)
	if err != nil || len(rels) != 1 || rels[0].GetTagName() != "v1.0" || rels[0].GetAuthor().GetLogin() != "mona" ||
		rels[0].PublishedAt == nil || len(rels[0].Assets) != 1 {
		t.Fatalf("releases: %v %v", rels, err)
	}
	rc, redirect, err := gh.Repositories.DownloadReleaseAsset(ctx, owner, name, rels[0].Assets[0].GetID(), nil)
	if err != nil {
		t.Fatal(err)
	}
	if rc != nil {
		b, _ := io.ReadAll(rc)
		rc.Close()
		if string(b) != "release notes\n" {
			t.Fatalf("asset: %q", b)
		}
	} else if redirect == "" {
		t.Fatal("asset: neither body nor redirect")
	}
	// reactionsOf pages reactions until an empty page, as Gitea does.
	reactionsOf := func(list func(o *github.ListReactionOptions) ([]*github.Reaction, error)) []string {
		var out []string
		for i := 1; ; i++ {
			res, err := list(&github.ListReactionOptions{ListOptions: github.ListOptions{Page: i, PerPage: perPage}})
			if err != nil {
				t.Fatal(err)
			}
			if len(res) == 0 {
				return out
			}
			for _, r := range res {
				out = append(out, r.GetUser().GetLogin()+":"+r.GetContent())
			}
		}
	}
	// GetIssues (pull requests skipped), with each issue's reactions.
	issues, _, err := gh.Issues.ListByRepo(ctx, owner, name, &github.IssueListByRepoOptions{Sort: "created", Direction: "asc", State: "all", ListOptions: page})
	if err != nil || len(issues) != 4 {
		t.Fatalf("issues: %v %v", issues, err)
	}
	var plain []*github.Issue
	for _, is := range issues {
		if !is.IsPullRequest() {
			plain = append(plain, is)
		}
	}
	if len(plain) != 2 || plain[0].GetNumber() != 1 || plain[0].GetState() != "closed" || plain[0].ClosedAt == nil ||
		plain[0].GetMilestone().GetTitle() != "v1" || len(plain[0].Labels) != 2 || len(plain[0].Assignees) != 1 ||
		plain[0].GetUser().GetLogin() != "mona" || plain[1].GetUser().GetLogin() != "rita" {
		t.Fatalf("issues: %v", plain)
	}
	if got := reactionsOf(func(o *github.ListReactionOptions) ([]*github.Reaction, error) {
		r, _, err := gh.Reactions.ListIssueReactions(ctx, owner, name, 1, o)
		return r, err
	}); fmt.Sprint(got) != "[rita:+1]" {
		t.Fatalf("issue reactions: %v", got)
	}
	// GetAllComments: the repository's comments, with their reactions.
	comments, cresp, err := gh.Issues.ListComments(ctx, owner, name, 0, &github.IssueListCommentsOptions{Sort: github.Ptr("created"),
		Direction: github.Ptr("asc"), ListOptions: github.ListOptions{Page: 1, PerPage: perPage}})
	if err != nil || len(comments) != 3 || cresp.NextPage != 0 || !strings.HasSuffix(comments[0].GetIssueURL(), "/issues/1") ||
		comments[0].GetUser().GetLogin() != "rita" || comments[2].GetBody() != "Merged, thanks" || !strings.HasSuffix(comments[2].GetIssueURL(), "/issues/3") {
		t.Fatalf("comments: %v %v", comments, err)
	}
	if got := reactionsOf(func(o *github.ListReactionOptions) ([]*github.Reaction, error) {
		r, _, err := gh.Reactions.ListIssueCommentReactions(ctx, owner, name, comments[0].GetID(), o)
		return r, err
	}); fmt.Sprint(got) != "[mona:heart]" {
		t.Fatalf("comment reactions: %v", got)
	}
	// GetPullRequests, and GetNewPullRequests' PullRequests.Get.
	prs, _, err := gh.PullRequests.List(ctx, owner, name, &github.PullRequestListOptions{Sort: "created", Direction: "asc", State: "all", ListOptions: page})
	if err != nil || len(prs) != 2 {
		t.Fatalf("pulls: %v %v", prs, err)
	}
	pr, _, err := gh.PullRequests.Get(ctx, owner, name, 3)
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range []*github.PullRequest{prs[0], pr} {
		if p.GetNumber() != 3 || p.GetState() != "closed" || p.MergedAt == nil || p.GetMergeCommitSHA() == "" || p.ClosedAt == nil ||
			p.GetHead().GetRef() != "feature" || p.GetHead().GetSHA() == "" || p.GetHead().GetRepo().GetCloneURL() == "" ||
			p.GetHead().GetUser().GetLogin() != "acme" || p.GetBase().GetRef() != "main" || p.GetBase().GetRepo().GetName() != "widgets" ||
			p.GetPatchURL() == "" || p.GetUser().GetLogin() != "mona" {
			t.Fatalf("pull request: %+v", p)
		}
	}
	if got := reactionsOf(func(o *github.ListReactionOptions) ([]*github.Reaction, error) {
		r, _, err := gh.Reactions.ListIssueReactions(ctx, owner, name, 3, o)
		return r, err
	}); len(got) != 0 {
		t.Fatalf("pull reactions: %v", got)
	}
	// GetReviews (the reply to the review comment is a review of its own,
	// as on GitHub): each review with its comments (and their reactions),
	// then the requested reviewers.
	reviews, _, err := gh.PullRequests.ListReviews(ctx, owner, name, 3, &page)
	if err != nil || len(reviews) != 3 || reviews[0].GetState() != "COMMENTED" || reviews[2].GetState() != "APPROVED" ||
		reviews[0].GetUser().GetLogin() != "rita" || reviews[0].GetCommitID() == "" || reviews[0].SubmittedAt == nil || reviews[0].GetBody() != "Looks fine" {
		t.Fatalf("reviews: %v %v", reviews, err)
	}
	var all []string
	for _, v := range reviews {
		rcs, _, err := gh.PullRequests.ListReviewComments(ctx, owner, name, 3, v.GetID(), &page)
		if err != nil {
			t.Fatal(err)
		}
		for _, c := range rcs {
			all = append(all, fmt.Sprintf("%s %s@%d reply:%v", c.GetBody(), c.GetPath(), c.GetPosition(), c.GetInReplyTo() != 0))
			if c.GetDiffHunk() == "" || c.GetCommitID() == "" || c.GetUser().GetID() == 0 || c.CreatedAt == nil || c.UpdatedAt == nil {
				t.Fatalf("review comment: %+v", c)
			}
			if c.GetBody() == "Name it better" {
				if got := reactionsOf(func(o *github.ListReactionOptions) ([]*github.Reaction, error) {
					r, _, err := gh.Reactions.ListPullRequestCommentReactions(ctx, owner, name, c.GetID(), o)
					return r, err
				}); fmt.Sprint(got) != "[mona:rocket]" {
					t.Fatalf("review comment reactions: %v", got)
				}
			}
		}
	}
	if fmt.Sprint(all) != "[Name it better lib.go@1 reply:false Done lib.go@1 reply:true]" {
		t.Fatalf("review comments: %v", all)
	}
	reviewers, _, err := gh.PullRequests.ListReviewers(ctx, owner, name, 3)
	if err != nil || reviewers.Users == nil {
		t.Fatalf("reviewers: %+v %v", reviewers, err)
	}
}
