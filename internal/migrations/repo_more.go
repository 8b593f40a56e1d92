package migrations

import (
	"context"
	"fmt"
	"strconv"

	"github.com/hubd/hubd/internal/model"
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

// orEmpty is list, or an empty list for nil (the archive writes [] rather
// than null).
func orEmpty(list []any) []any {
	if list == nil {
		return []any{}
	}
	return list
}

// reactions loads the reactions of a page of subjects as the archive's
// records (typ is GitHub's subject_type), by subject id.
func (r *repoExport) reactions(ctx context.Context, subject, typ string, ids []int64) (map[int64][]any, error) {
	out := map[int64][]any{}
	if len(ids) == 0 {
		return out, nil
	}
	byID, err := r.q.SubjectReactions(ctx, subject, ids)
	if err != nil {
		return nil, err
	}
	for id, list := range byID {
		for _, x := range list {
			out[id] = append(out[id], map[string]any{"user": r.account(x.User), "content": x.Content, "subject_type": typ,
				"created_at": stamp(x.CreatedAt)})
		}
	}
	return out, nil
}

// asset writes a release asset's file under releases/<key>/<name> (the
// archive's layout of release files) and answers its record.
func (r *repoExport) asset(releaseURL string, as *model.ReleaseAsset) (map[string]any, error) {
	name := "releases/" + as.StorageKey + "/" + as.Name
	if err := r.copyFile(name, r.assets.AssetFile(as)); err != nil {
		return nil, fmt.Errorf("release asset %d: %w", as.ID, err)
	}
	return map[string]any{
		"type": "release_asset", "url": releaseURL + "/" + escape(as.Name), "release": releaseURL,
		"user": r.user(as.UploaderID, loginOf(as.Uploader)), "name": as.Name, "label": as.Label, "content_type": as.ContentType,
		"state": as.State, "size": as.Size, "download_count": as.DownloadCount, "asset_url": "tarball://root/" + name,
		"created_at": stamp(as.CreatedAt), "updated_at": stamp(as.UpdatedAt),
	}, nil
}
