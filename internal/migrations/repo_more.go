package migrations

import (
	"context"
	"strconv"
)

// Records of a repository added after the first export: pull request
// reviews and protected branches (GitHub's pull_request_reviews_* and
// protected_branches_* files).

// reviews writes the submitted reviews of the repository's pull requests;
// review comments name them by the same URL.
func (r *repoExport) reviews(ctx context.Context) error {
	return pages(func(off int) (int, int, error) {
		list, total, err := r.q.ListRepoPullReviews(ctx, r.repo.ID, perFile, off)
		for _, v := range list {
			pull := r.url + "/pull/" + strconv.FormatInt(v.PullNumber, 10)
			if err := r.add("pull_request_reviews", map[string]any{
				"type": "pull_request_review", "url": pull + "/files#pullrequestreview-" + strconv.FormatInt(v.ID, 10),
				"pull_request": pull, "user": r.user(v.UserID, loginOf(v.User)), "body": v.Body, "formatter": "markdown",
				"head_sha": v.CommitID, "state": v.State, "reactions": []any{},
				"created_at": stamp(v.CreatedAt), "submitted_at": stampPtr(v.SubmittedAt),
			}); err != nil {
				return 0, 0, err
			}
		}
		return len(list), total, err
	})
}

// enforcement is GitHub's enforcement level of a protection setting.
func enforcement(on, admins bool) string {
	switch {
	case !on:
		return "off"
	case admins:
		return "everyone"
	}
	return "non_admins"
}

// protectedBranches writes the repository's branch protections.
func (r *repoExport) protectedBranches(ctx context.Context) error {
	names, err := r.q.ProtectedBranchNames(ctx, r.repo.ID)
	if err != nil || len(names) == 0 {
		return err
	}
	for start := 0; start < len(names); start += perFile {
		chunk := names[start:min(start+perFile, len(names))]
		byBranch, err := r.q.BranchProtections(ctx, r.repo.ID, chunk)
		if err != nil {
			return err
		}
		for _, name := range chunk {
			p := byBranch[name]
			if p == nil {
				continue
			}
			contexts := p.RequiredContexts
			if contexts == nil {
				contexts = []string{}
			}
			if err := r.add("protected_branches", map[string]any{
				"type": "protected_branch", "name": p.Branch, "url": r.url + "/protected_branches/" + escape(p.Branch),
				"repository_url": r.url, "admin_enforced": p.EnforceAdmins,
				"required_status_checks_enforcement_level": enforcement(p.StatusChecks, p.EnforceAdmins),
				"required_status_checks":                   contexts, "strict_required_status_checks_policy": p.Strict,
				"pull_request_reviews_enforcement_level": enforcement(p.Reviews, p.EnforceAdmins),
				"required_approving_review_count":        p.RequiredApprovals,
				"dismiss_stale_reviews_on_push":          p.DismissStaleReviews,
				"require_code_owner_review":              p.RequireCodeOwnerReviews,
				"allow_force_pushes_enforcement_level":   enforcement(!p.AllowForcePushes, p.EnforceAdmins),
				"allow_deletions_enforcement_level":      enforcement(!p.AllowDeletions, p.EnforceAdmins),
				"created_at":                             stamp(p.CreatedAt),
			}); err != nil {
				return err
			}
		}
	}
	return nil
}
