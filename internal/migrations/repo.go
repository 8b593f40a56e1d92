package migrations

import (
	"context"
	"path/filepath"
	"strconv"

	"github.com/hubd/hubd/internal/model"
	"github.com/hubd/hubd/internal/releases"
	"github.com/hubd/hubd/internal/store"
)

// A repository's records: the repository (with its labels), its bare git
// data, and unless metadata is excluded its milestones, issues and pull
// requests, their comments and events, review comments, commit comments
// and (unless excluded) releases. Each kind is read a page at a time
// through the store's list queries, with related rows loaded per page.

// repoExport is what the records of one repository share.
type repoExport struct {
	*archive
	q    store.Q
	repo *model.Repo
	url  string
	// pulls are the numbers of the pull requests, issues are the rest:
	// comments and events name one or the other.
	pulls map[int64]bool
	// numbers of issue ids (events carry the issue's id only).
	numbers map[int64]int64
	m       *model.Migration
	assets  *releases.Service
}

func (r *repoExport) issueURL(number int64) string {
	if r.pulls[number] {
		return r.url + "/pull/" + strconv.FormatInt(number, 10)
	}
	return r.url + "/issues/" + strconv.FormatInt(number, 10)
}

func (s *Service) writeRepo(ctx context.Context, a *archive, m *model.Migration, repo *model.Repo, work string) error {
	r := &repoExport{archive: a, q: s.Store.R(), repo: repo, url: a.web + "/" + repo.Owner.Login + "/" + repo.Name,
		pulls: map[int64]bool{}, numbers: map[int64]int64{}, m: m, assets: s.Assets}
	gitPath := "repositories/" + repo.Owner.Login + "/" + repo.Name + ".git"
	if err := r.repository(ctx, "tarball://root/"+gitPath, !m.ExcludeMetadata); err != nil {
		return err
	}
	if !m.ExcludeGitData {
		dest := filepath.Join(work, strconv.FormatInt(repo.ID, 10)+".git")
		if err := s.Git.MirrorTo(ctx, repo.ID, dest); err != nil {
			return err
		}
		if err := a.dir(dest, gitPath); err != nil {
			return err
		}
	}
	if m.ExcludeMetadata {
		return nil
	}
	steps := []func(context.Context) error{r.protectedBranches, r.milestones, r.issues, r.comments, r.events, r.reviews, r.reviewComments, r.commitComments}
	if !m.ExcludeReleases {
		steps = append(steps, r.releases)
	}
	for _, step := range steps {
		if err := step(ctx); err != nil {
			return err
		}
	}
	return nil
}

// pages calls fetch for each page of perFile items until the list ends.
func pages(fetch func(offset int) (n, total int, err error)) error {
	for off := 0; ; off += perFile {
		n, total, err := fetch(off)
		if err != nil {
			return err
		}
		if n == 0 || off+perFile >= total {
			return nil
		}
	}
}

func (r *repoExport) repository(ctx context.Context, gitURL string, metadata bool) error {
	labels := []any{}
	err := pages(func(off int) (int, int, error) {
		list, total, err := r.q.ListLabels(ctx, r.repo.ID, perFile, off)
		for _, l := range list {
			labels = append(labels, map[string]any{"url": r.url + "/labels/" + escape(l.Name), "name": l.Name, "color": l.Color,
				"description": l.Description, "created_at": stamp(l.CreatedAt)})
		}
		return len(list), total, err
	})
	if err != nil {
		return err
	}
	// Webhooks without their secrets.
	hooks := []any{}
	err = pages(func(off int) (int, int, error) {
		list, total, err := r.q.ListHooks(ctx, store.HookTarget{RepoID: r.repo.ID}, perFile, off)
		for _, h := range list {
			hooks = append(hooks, map[string]any{"url": h.URL, "content_type": h.ContentType, "insecure_ssl": h.InsecureSSL,
				"events": h.Events, "active": h.Active, "created_at": stamp(h.CreatedAt)})
		}
		return len(list), total, err
	})
	if err != nil {
		return err
	}
	// Direct collaborators (teams' grants are in teams_*.json).
	collaborators := []any{}
	if metadata {
		err = pages(func(off int) (int, int, error) {
			list, total, err := r.q.DirectCollaborators(ctx, r.repo.ID, perFile, off)
			for _, g := range list {
				collaborators = append(collaborators, map[string]any{"user": r.account(g.User), "permission": g.Perm.String()})
			}
			return len(list), total, err
		})
		if err != nil {
			return err
		}
	}
	return r.add("repositories", map[string]any{
		"hooks": hooks, "collaborators": collaborators,
		"type": "repository", "url": r.url, "owner": r.account(r.repo.Owner), "name": r.repo.Name,
		"description": r.repo.Description, "website": r.repo.Homepage, "private": r.repo.Private(),
		"has_issues": r.repo.HasIssues, "has_wiki": r.repo.HasWiki, "has_downloads": r.repo.HasDownloads,
		"labels": labels, "created_at": stamp(r.repo.CreatedAt),
		"git_url": gitURL, "default_branch": r.repo.DefaultBranch,
	})
}

func (r *repoExport) milestones(ctx context.Context) error {
	return pages(func(off int) (int, int, error) {
		list, total, err := r.q.ListMilestones(ctx, store.MilestoneQuery{RepoID: r.repo.ID, State: "all", Limit: perFile, Offset: off})
		for _, ms := range list {
			if err := r.add("milestones", map[string]any{
				"type": "milestone", "url": r.url + "/milestones/" + strconv.FormatInt(ms.Number, 10), "repository": r.url,
				"user": r.user(ms.CreatorID, loginOf(ms.Creator)), "title": ms.Title, "description": ms.Description,
				"state": ms.State, "due_on": stampPtr(ms.DueOn), "created_at": stamp(ms.CreatedAt), "updated_at": stamp(ms.UpdatedAt),
				"closed_at": stampPtr(ms.ClosedAt),
			}); err != nil {
				return 0, 0, err
			}
		}
		return len(list), total, err
	})
}

func loginOf(a *model.Account) string {
	if a == nil {
		return ""
	}
	return a.Login
}

// issues writes the issues and the pull requests, oldest first.
func (r *repoExport) issues(ctx context.Context) error {
	return pages(func(off int) (int, int, error) {
		ids, total, err := r.q.ListIssueIDs(ctx, store.IssueQuery{RepoID: r.repo.ID, State: "all", Limit: perFile, Offset: off})
		if err != nil || len(ids) == 0 {
			return 0, total, err
		}
		list, err := r.q.DetailedIssues(ctx, ids)
		if err != nil {
			return 0, 0, err
		}
		var pullIDs []int64
		for _, is := range list {
			if is != nil && is.IsPull {
				pullIDs = append(pullIDs, is.ID)
			}
		}
		pulls, err := r.q.PullsByIssueID(ctx, pullIDs)
		if err != nil {
			return 0, 0, err
		}
		var mergers []int64
		for _, p := range pulls {
			if p.MergedByID != 0 && p.MergedBy == nil {
				mergers = append(mergers, p.MergedByID)
			}
		}
		if len(mergers) > 0 {
			slim, err := r.q.SlimAccounts(ctx, mergers)
			if err != nil {
				return 0, 0, err
			}
			for _, p := range pulls {
				if p.MergedBy == nil {
					p.MergedBy = slim[p.MergedByID]
				}
			}
		}
		reactions, err := r.reactions(ctx, store.ReactIssue, "Issue", ids)
		if err != nil {
			return 0, 0, err
		}
		for _, is := range list {
			if is == nil {
				continue
			}
			if err := r.issue(is, pulls[is.ID], reactions[is.ID]); err != nil {
				return 0, 0, err
			}
		}
		return len(ids), total, nil
	})
}

func (r *repoExport) issue(is *model.Issue, pull *model.Pull, reactions []any) error {
	r.numbers[is.ID] = is.Number
	if is.IsPull {
		r.pulls[is.Number] = true
	}
	labels := make([]any, 0, len(is.Labels))
	for _, l := range is.Labels {
		labels = append(labels, r.url+"/labels/"+escape(l.Name))
	}
	assignees := make([]any, 0, len(is.Assignees))
	for _, u := range is.Assignees {
		assignees = append(assignees, r.account(u))
	}
	var assignee, milestone any
	if len(assignees) > 0 {
		assignee = assignees[0]
	}
	if is.Milestone != nil {
		milestone = r.url + "/milestones/" + strconv.FormatInt(is.Milestone.Number, 10)
	}
	rec := map[string]any{
		"url": r.issueURL(is.Number), "repository": r.url, "user": r.user(is.UserID, loginOf(is.User)),
		"title": is.Title, "body": is.Body, "assignee": assignee, "assignees": assignees, "milestone": milestone,
		"labels": labels, "reactions": orEmpty(reactions), "closed_at": stampPtr(is.ClosedAt), "created_at": stamp(is.CreatedAt),
		"updated_at": stamp(is.UpdatedAt), "locked": is.Locked, "active_lock_reason": is.LockReason,
	}
	if !is.Locked {
		rec["active_lock_reason"] = nil
	}
	if !is.IsPull || pull == nil {
		rec["type"] = "issue"
		return r.add("issues", rec)
	}
	rec["type"] = "pull_request"
	if reactions != nil {
		for _, x := range reactions {
			x.(map[string]any)["subject_type"] = "PullRequest"
		}
	}
	rec["base"] = map[string]any{"ref": pull.BaseRef, "sha": pull.BaseSHA, "user": r.account(r.repo.Owner), "repo": r.url}
	rec["head"] = map[string]any{"ref": pull.HeadRef, "sha": pull.HeadSHA, "user": nil, "repo": nil}
	if pull.HeadRepoID == r.repo.ID {
		rec["head"] = map[string]any{"ref": pull.HeadRef, "sha": pull.HeadSHA, "user": r.account(r.repo.Owner), "repo": r.url}
	}
	rec["merged_at"] = stampPtr(pull.MergedAt)
	rec["merge_commit_sha"] = pull.MergeCommitSHA
	rec["merged_by"] = nil
	if pull.MergedBy != nil {
		rec["merged_by"] = r.account(pull.MergedBy)
	}
	rec["draft"] = pull.Draft
	return r.add("pull_requests", rec)
}

func (r *repoExport) comments(ctx context.Context) error {
	return pages(func(off int) (int, int, error) {
		list, total, err := r.q.ListComments(ctx, store.CommentQuery{RepoID: r.repo.ID, Limit: perFile, Offset: off})
		if err != nil {
			return 0, 0, err
		}
		ids := make([]int64, len(list))
		for i, c := range list {
			ids[i] = c.ID
		}
		reactions, err := r.reactions(ctx, store.ReactComment, "IssueComment", ids)
		for _, c := range list {
			parent := r.issueURL(c.IssueNumber)
			rec := map[string]any{
				"type": "issue_comment", "url": parent + "#issuecomment-" + strconv.FormatInt(c.ID, 10),
				"user": r.user(c.UserID, loginOf(c.User)), "body": c.Body, "formatter": "markdown", "reactions": orEmpty(reactions[c.ID]),
				"created_at": stamp(c.CreatedAt), "updated_at": stamp(c.UpdatedAt),
			}
			if r.pulls[c.IssueNumber] {
				rec["pull_request"] = parent
			} else {
				rec["issue"] = parent
			}
			if err := r.add("issue_comments", rec); err != nil {
				return 0, 0, err
			}
		}
		return len(list), total, err
	})
}

func (r *repoExport) events(ctx context.Context) error {
	return pages(func(off int) (int, int, error) {
		// The timeline's "commented" and "reviewed" rows come along, naming
		// their comment or review: an import replays the timeline in order.
		list, total, err := r.q.ListIssueEvents(ctx, store.EventQuery{RepoID: r.repo.ID, Timeline: true,
			Exclude: []string{"cross-referenced", "committed"}, Limit: perFile, Offset: off})
		for _, e := range list {
			number, ok := r.numbers[e.IssueID]
			if !ok {
				continue // an event of an issue that moved away
			}
			parent := r.issueURL(number)
			rec := map[string]any{
				"type": "issue_event", "url": parent + "#event-" + strconv.FormatInt(e.ID, 10),
				"actor": r.user(e.ActorID, loginOf(e.Actor)), "event": e.Event, "commit_id": e.CommitID,
				"created_at": stamp(e.CreatedAt),
			}
			if r.pulls[number] {
				rec["pull_request"] = parent
			} else {
				rec["issue"] = parent
			}
			switch e.Event {
			case "commented":
				rec["comment"] = parent + "#issuecomment-" + strconv.FormatInt(e.SubjectID, 10)
			case "reviewed":
				rec["pull_request_review"] = parent + "/files#pullrequestreview-" + strconv.FormatInt(e.SubjectID, 10)
			}
			if e.LabelName != "" {
				rec["label_name"], rec["label_color"] = e.LabelName, e.LabelColor
			}
			if e.AssigneeID != 0 {
				rec["subject"] = r.user(e.AssigneeID, loginOf(e.Assignee))
			}
			if e.Milestone != "" {
				rec["milestone_title"] = e.Milestone
			}
			if e.RenameFrom != "" || e.RenameTo != "" {
				rec["title_was"], rec["title_is"] = e.RenameFrom, e.RenameTo
			}
			if err := r.add("issue_events", rec); err != nil {
				return 0, 0, err
			}
		}
		return len(list), total, err
	})
}

func (r *repoExport) reviewComments(ctx context.Context) error {
	return pages(func(off int) (int, int, error) {
		list, total, err := r.q.ListPullReviewComments(ctx, store.ReviewCommentQuery{RepoID: r.repo.ID, Limit: perFile, Offset: off})
		if err != nil {
			return 0, 0, err
		}
		ids := make([]int64, len(list))
		for i, c := range list {
			ids[i] = c.ID
		}
		reactions, err := r.reactions(ctx, store.ReactPullReviewComment, "PullRequestReviewComment", ids)
		for _, c := range list {
			pull := r.url + "/pull/" + strconv.FormatInt(c.PullNumber, 10)
			var reply any
			if c.InReplyToID != 0 {
				reply = pull + "/files#r" + strconv.FormatInt(c.InReplyToID, 10)
			}
			if err := r.add("pull_request_review_comments", map[string]any{
				"type": "pull_request_review_comment", "url": pull + "/files#r" + strconv.FormatInt(c.ID, 10),
				"pull_request": pull, "pull_request_review": pull + "/files#pullrequestreview-" + strconv.FormatInt(c.ReviewID, 10),
				"in_reply_to": reply, "user": r.user(c.UserID, loginOf(c.User)), "body": c.Body, "formatter": "markdown",
				"diff_hunk": c.DiffHunk, "path": c.Path, "position": c.Position, "original_position": c.OriginalPosition,
				"commit_id": c.CommitID, "original_commit_id": c.OriginalCommitID, "reactions": orEmpty(reactions[c.ID]),
				"created_at": stamp(c.CreatedAt), "updated_at": stamp(c.UpdatedAt),
			}); err != nil {
				return 0, 0, err
			}
		}
		return len(list), total, err
	})
}

func (r *repoExport) commitComments(ctx context.Context) error {
	return pages(func(off int) (int, int, error) {
		list, total, err := r.q.ListCommitComments(ctx, store.CommitCommentQuery{RepoID: r.repo.ID, Limit: perFile, Offset: off})
		if err != nil {
			return 0, 0, err
		}
		ids := make([]int64, len(list))
		for i, c := range list {
			ids[i] = c.ID
		}
		reactions, err := r.reactions(ctx, store.ReactCommitComment, "CommitComment", ids)
		for _, c := range list {
			if err := r.add("commit_comments", map[string]any{
				"type": "commit_comment", "url": r.url + "/commit/" + c.CommitID + "#commitcomment-" + strconv.FormatInt(c.ID, 10),
				"repository": r.url, "user": r.user(c.UserID, loginOf(c.User)), "body": c.Body, "formatter": "markdown",
				"path": c.Path, "position": c.Position, "commit_id": c.CommitID, "reactions": orEmpty(reactions[c.ID]),
				"created_at": stamp(c.CreatedAt), "updated_at": stamp(c.UpdatedAt),
			}); err != nil {
				return 0, 0, err
			}
		}
		return len(list), total, err
	})
}

func (r *repoExport) releases(ctx context.Context) error {
	return pages(func(off int) (int, int, error) {
		list, total, err := r.q.ListReleases(ctx, r.repo.ID, true, perFile, off)
		if err != nil {
			return 0, 0, err
		}
		ids := make([]int64, len(list))
		for i, rel := range list {
			ids[i] = rel.ID
		}
		reactions, err := r.reactions(ctx, store.ReactRelease, "Release", ids)
		if err != nil {
			return 0, 0, err
		}
		assets := map[int64][]*model.ReleaseAsset{}
		if !r.m.ExcludeAttachments && r.assets != nil {
			if assets, err = r.q.AssetsOfReleases(ctx, ids); err != nil {
				return 0, 0, err
			}
		}
		for _, rel := range list {
			state := "published"
			if rel.Draft {
				state = "draft"
			}
			relURL := r.url + "/releases/tag/" + escape(rel.TagName)
			files := []any{}
			for _, as := range assets[rel.ID] {
				rec, err := r.asset(relURL, as)
				if err != nil {
					return 0, 0, err
				}
				files = append(files, rec)
			}
			if err := r.add("releases", map[string]any{
				"release_assets": files, "reactions": orEmpty(reactions[rel.ID]),
				"type": "release", "url": r.url + "/releases/tag/" + escape(rel.TagName), "repository": r.url,
				"user": r.user(rel.AuthorID, loginOf(rel.Author)), "name": rel.Name, "tag_name": rel.TagName, "body": rel.Body,
				"state": state, "prerelease": rel.Prerelease, "target_commitish": rel.TargetCommitish,
				"published_at": stampPtr(rel.PublishedAt), "created_at": stamp(rel.CreatedAt),
			}); err != nil {
				return 0, 0, err
			}
		}
		return len(list), total, err
	})
}
