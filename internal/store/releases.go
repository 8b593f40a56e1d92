package store

import (
	"context"
	"database/sql"
	"sort"
	"time"

	"github.com/hubd/hubd/internal/model"
)

// Releases and their assets (owned by internal/releases). A release row
// joins its author's slim columns; asset rows join their uploader's and
// the path segment their release has in browser_download_url.

// ReactRelease is the reaction subject of releases.
const ReactRelease = "release"

const releaseCols = `x.id, x.repo_id, x.tag_name, x.target_commitish, x.name, x.body, x.draft, x.prerelease, x.not_latest,
 x.draft_key, x.author_id, x.created_at, x.published_at, x.updated_at, ` + "a.id, a.login, a.type, a.site_admin"

var releaseSelect = `SELECT ` + releaseCols + ` FROM releases x LEFT JOIN accounts a ON a.id = x.author_id`

func scanRelease(sc scanner) (*model.Release, error) {
	r := &model.Release{}
	var name, body sql.NullString
	var author, published sql.NullInt64
	var created, updated int64
	var a slimAccount
	err := sc.Scan(append([]any{&r.ID, &r.RepoID, &r.TagName, &r.TargetCommitish, &name, &body, &r.Draft, &r.Prerelease,
		&r.NotLatest, &r.DraftKey, &author, &created, &published, &updated}, a.dest()...)...)
	if err != nil {
		return nil, err
	}
	r.Name, r.Body, r.AuthorID = nullStr(name), nullStr(body), author.Int64
	r.CreatedAt, r.PublishedAt, r.UpdatedAt = fromUnix(created), fromNullUnix(published), fromUnix(updated)
	r.Author = a.account()
	return r, nil
}

func (q Q) releases(ctx context.Context, query string, args ...any) ([]*model.Release, error) {
	rows, err := q.query(ctx, query, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := []*model.Release{}
	for rows.Next() {
		r, err := scanRelease(rows)
		if err != nil {
			return nil, err
		}
		out = append(out, r)
	}
	return out, rows.Err()
}

// CreateRelease inserts r and sets its id; ErrDuplicate when r is published
// and a published release of the repository already names its tag.
func (q Q) CreateRelease(ctx context.Context, r *model.Release) error {
	id, err := q.insert(ctx, `INSERT INTO releases (repo_id, tag_name, target_commitish, name, body, draft, prerelease, not_latest,
 draft_key, author_id, created_at, published_at, updated_at) VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?)`,
		r.RepoID, r.TagName, r.TargetCommitish, strOrNil(r.Name), strOrNil(r.Body), r.Draft, r.Prerelease, r.NotLatest,
		r.DraftKey, idOrNil(r.AuthorID), unix(r.CreatedAt), nullUnix(r.PublishedAt), unix(r.UpdatedAt))
	if isUnique(err) {
		return ErrDuplicate
	}
	r.ID = id
	return err
}

// UpdateRelease writes r's editable columns; ErrDuplicate as CreateRelease.
func (q Q) UpdateRelease(ctx context.Context, r *model.Release) error {
	res, err := q.exec(ctx, `UPDATE releases SET tag_name = ?, target_commitish = ?, name = ?, body = ?, draft = ?, prerelease = ?,
 not_latest = ?, created_at = ?, published_at = ?, updated_at = ? WHERE id = ? AND repo_id = ?`,
		r.TagName, r.TargetCommitish, strOrNil(r.Name), strOrNil(r.Body), r.Draft, r.Prerelease, r.NotLatest,
		unix(r.CreatedAt), nullUnix(r.PublishedAt), unix(r.UpdatedAt), r.ID, r.RepoID)
	if isUnique(err) {
		return ErrDuplicate
	}
	if err != nil {
		return err
	}
	if n, _ := res.RowsAffected(); n == 0 {
		return model.ErrNotFound
	}
	return nil
}

// ReleaseByID finds a release of a repository (drafts included).
func (q Q) ReleaseByID(ctx context.Context, repoID, id int64) (*model.Release, error) {
	r, err := scanRelease(q.row(ctx, releaseSelect+` WHERE x.id = ? AND x.repo_id = ?`, id, repoID))
	return r, notFound(err)
}

// PublishedReleaseByTag finds the published release of a tag.
func (q Q) PublishedReleaseByTag(ctx context.Context, repoID int64, tag string) (*model.Release, error) {
	r, err := scanRelease(q.row(ctx, releaseSelect+` WHERE x.repo_id = ? AND x.tag_name = ? AND x.draft = FALSE`, repoID, tag))
	return r, notFound(err)
}

// DraftReleaseByKey finds a draft by the key of its html_url.
func (q Q) DraftReleaseByKey(ctx context.Context, repoID int64, key string) (*model.Release, error) {
	r, err := scanRelease(q.row(ctx, releaseSelect+` WHERE x.repo_id = ? AND x.draft_key = ? AND x.draft = TRUE`, repoID, key))
	return r, notFound(err)
}

// PublishedTagTaken reports whether a published release other than
// exceptID names tag.
func (q Q) PublishedTagTaken(ctx context.Context, repoID int64, tag string, exceptID int64) (bool, error) {
	var n int
	err := q.row(ctx, `SELECT COUNT(*) FROM releases WHERE repo_id = ? AND tag_name = ? AND draft = FALSE AND id <> ?`,
		repoID, tag, exceptID).Scan(&n)
	return n > 0, err
}

// ListReleases is one page of a repository's releases, newest first (by
// created_at, then id), drafts only when withDrafts, and their count.
func (q Q) ListReleases(ctx context.Context, repoID int64, withDrafts bool, limit, offset int) ([]*model.Release, int, error) {
	where := ` WHERE x.repo_id = ?`
	if !withDrafts {
		where += ` AND x.draft = FALSE`
	}
	var total int
	if err := q.row(ctx, `SELECT COUNT(*) FROM releases x`+where, repoID).Scan(&total); err != nil {
		return nil, 0, err
	}
	list, err := q.releases(ctx, releaseSelect+where+` ORDER BY x.created_at DESC, x.id DESC LIMIT ? OFFSET ?`, repoID, limit, offset)
	return list, total, err
}

// RecentPublishedReleases are up to limit published releases, newest
// first.
func (q Q) RecentPublishedReleases(ctx context.Context, repoID int64, limit int) ([]*model.Release, error) {
	return q.releases(ctx, releaseSelect+` WHERE x.repo_id = ? AND x.draft = FALSE ORDER BY x.created_at DESC, x.id DESC LIMIT ?`, repoID, limit)
}

// DeleteRelease deletes a release with its assets (and reactions) and
// returns the storage keys of the assets, whose files the caller removes
// after the commit.
func (q Q) DeleteRelease(ctx context.Context, repoID, id int64) ([]string, error) {
	keys, err := q.strings(ctx, `SELECT storage_key FROM release_assets WHERE release_id = ? ORDER BY id`, id)
	if err != nil {
		return nil, err
	}
	res, err := q.exec(ctx, `DELETE FROM releases WHERE id = ? AND repo_id = ?`, id, repoID)
	if err != nil {
		return nil, err
	}
	if n, _ := res.RowsAffected(); n == 0 {
		return nil, model.ErrNotFound
	}
	if _, err := q.exec(ctx, `DELETE FROM reactions WHERE subject_type = ? AND subject_id = ?`, ReactRelease, id); err != nil {
		return nil, err
	}
	return keys, nil
}

func (q Q) strings(ctx context.Context, query string, args ...any) ([]string, error) {
	rows, err := q.query(ctx, query, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var s string
		if err := rows.Scan(&s); err != nil {
			return nil, err
		}
		out = append(out, s)
	}
	return out, rows.Err()
}

// SetLatestRelease marks a release its repository's latest.
func (q Q) SetLatestRelease(ctx context.Context, repoID, releaseID int64) error {
	_, err := q.exec(ctx, `INSERT INTO release_latest (repo_id, release_id) VALUES (?, ?)
 ON CONFLICT (repo_id) DO UPDATE SET release_id = excluded.release_id`, repoID, releaseID)
	return err
}

// ClearLatestRelease forgets the repository's latest mark: any (releaseID
// 0) or only when it is releaseID.
func (q Q) ClearLatestRelease(ctx context.Context, repoID, releaseID int64) error {
	if releaseID == 0 {
		_, err := q.exec(ctx, `DELETE FROM release_latest WHERE repo_id = ?`, repoID)
		return err
	}
	_, err := q.exec(ctx, `DELETE FROM release_latest WHERE repo_id = ? AND release_id = ?`, repoID, releaseID)
	return err
}

// MarkedLatestRelease is the release the repository marked latest
// (model.ErrNotFound when none is).
func (q Q) MarkedLatestRelease(ctx context.Context, repoID int64) (*model.Release, error) {
	r, err := scanRelease(q.row(ctx, releaseSelect+` JOIN release_latest l ON l.release_id = x.id WHERE l.repo_id = ?`, repoID))
	return r, notFound(err)
}

// NewestFullReleases are the published, non-prerelease releases not opted
// out of being latest that share the newest created_at: the candidates of
// the legacy rule, which breaks their tie by version.
func (q Q) NewestFullReleases(ctx context.Context, repoID int64) ([]*model.Release, error) {
	const full = ` repo_id = ? AND draft = FALSE AND prerelease = FALSE AND not_latest = FALSE`
	return q.releases(ctx, releaseSelect+` WHERE x.`+full[1:]+` AND x.created_at = (SELECT MAX(created_at) FROM releases WHERE`+full+`)
 ORDER BY x.id DESC LIMIT 100`, repoID, repoID)
}

// Release assets.

const assetCols = `s.id, s.release_id, s.repo_id, s.name, s.label, s.state, s.content_type, s.size, s.digest, s.download_count,
 s.uploader_id, s.storage_key, s.created_at, s.updated_at, x.draft, CASE WHEN x.draft THEN x.draft_key ELSE x.tag_name END, ` +
	"a.id, a.login, a.type, a.site_admin"

var assetSelect = `SELECT ` + assetCols + ` FROM release_assets s JOIN releases x ON x.id = s.release_id
 LEFT JOIN accounts a ON a.id = s.uploader_id`

func scanAsset(sc scanner) (*model.ReleaseAsset, error) {
	s := &model.ReleaseAsset{}
	var label, digest sql.NullString
	var uploader sql.NullInt64
	var created, updated int64
	var a slimAccount
	err := sc.Scan(append([]any{&s.ID, &s.ReleaseID, &s.RepoID, &s.Name, &label, &s.State, &s.ContentType, &s.Size, &digest,
		&s.DownloadCount, &uploader, &s.StorageKey, &created, &updated, &s.Draft, &s.TagPath}, a.dest()...)...)
	if err != nil {
		return nil, err
	}
	s.Label, s.Digest, s.UploaderID = nullStr(label), nullStr(digest), uploader.Int64
	s.CreatedAt, s.UpdatedAt, s.Uploader = fromUnix(created), fromUnix(updated), a.account()
	return s, nil
}

func (q Q) assets(ctx context.Context, query string, args ...any) ([]*model.ReleaseAsset, error) {
	rows, err := q.query(ctx, query, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := []*model.ReleaseAsset{}
	for rows.Next() {
		s, err := scanAsset(rows)
		if err != nil {
			return nil, err
		}
		out = append(out, s)
	}
	return out, rows.Err()
}

// AssetsOfReleases loads the assets of releases (oldest first), in one
// query per hundred releases.
func (q Q) AssetsOfReleases(ctx context.Context, releaseIDs []int64) (map[int64][]*model.ReleaseAsset, error) {
	out := map[int64][]*model.ReleaseAsset{}
	for start := 0; start < len(releaseIDs); start += 100 {
		in, args := inList(releaseIDs[start:min(start+100, len(releaseIDs))])
		list, err := q.assets(ctx, assetSelect+` WHERE s.release_id IN (`+in+`) ORDER BY s.id`, args...)
		if err != nil {
			return nil, err
		}
		for _, s := range list {
			out[s.ReleaseID] = append(out[s.ReleaseID], s)
		}
	}
	return out, nil
}

// ListReleaseAssets is one page of a release's assets, oldest first, and
// their count.
func (q Q) ListReleaseAssets(ctx context.Context, releaseID int64, limit, offset int) ([]*model.ReleaseAsset, int, error) {
	var total int
	if err := q.row(ctx, `SELECT COUNT(*) FROM release_assets WHERE release_id = ?`, releaseID).Scan(&total); err != nil {
		return nil, 0, err
	}
	list, err := q.assets(ctx, assetSelect+` WHERE s.release_id = ? ORDER BY s.id LIMIT ? OFFSET ?`, releaseID, limit, offset)
	return list, total, err
}

// ReleaseAssetByID finds an asset of a repository.
func (q Q) ReleaseAssetByID(ctx context.Context, repoID, id int64) (*model.ReleaseAsset, error) {
	s, err := scanAsset(q.row(ctx, assetSelect+` WHERE s.id = ? AND s.repo_id = ?`, id, repoID))
	return s, notFound(err)
}

// ReleaseAssetByName finds a release's asset by its name.
func (q Q) ReleaseAssetByName(ctx context.Context, releaseID int64, name string) (*model.ReleaseAsset, error) {
	s, err := scanAsset(q.row(ctx, assetSelect+` WHERE s.release_id = ? AND s.name = ?`, releaseID, name))
	return s, notFound(err)
}

// CreateReleaseAsset inserts an asset and sets its id; ErrDuplicate when
// the release has an asset of that name.
func (q Q) CreateReleaseAsset(ctx context.Context, s *model.ReleaseAsset) error {
	id, err := q.insert(ctx, `INSERT INTO release_assets (release_id, repo_id, name, label, state, content_type, size, digest,
 uploader_id, storage_key, created_at, updated_at) VALUES (?,?,?,?,?,?,?,?,?,?,?,?)`,
		s.ReleaseID, s.RepoID, s.Name, strOrNil(s.Label), s.State, s.ContentType, s.Size, strOrNil(s.Digest),
		idOrNil(s.UploaderID), s.StorageKey, unix(s.CreatedAt), unix(s.UpdatedAt))
	if isUnique(err) {
		return ErrDuplicate
	}
	s.ID = id
	return err
}

// UpdateReleaseAsset writes an asset's name, label and state; ErrDuplicate
// when the name is another asset's.
func (q Q) UpdateReleaseAsset(ctx context.Context, s *model.ReleaseAsset) error {
	res, err := q.exec(ctx, `UPDATE release_assets SET name = ?, label = ?, state = ?, updated_at = ? WHERE id = ? AND repo_id = ?`,
		s.Name, strOrNil(s.Label), s.State, unix(s.UpdatedAt), s.ID, s.RepoID)
	if isUnique(err) {
		return ErrDuplicate
	}
	if err != nil {
		return err
	}
	if n, _ := res.RowsAffected(); n == 0 {
		return model.ErrNotFound
	}
	return nil
}

// DeleteReleaseAsset deletes an asset.
func (q Q) DeleteReleaseAsset(ctx context.Context, repoID, id int64) error {
	res, err := q.exec(ctx, `DELETE FROM release_assets WHERE id = ? AND repo_id = ?`, id, repoID)
	if err != nil {
		return err
	}
	if n, _ := res.RowsAffected(); n == 0 {
		return model.ErrNotFound
	}
	return nil
}

// CountAssetDownload adds one to an asset's download_count.
func (q Q) CountAssetDownload(ctx context.Context, id int64) error {
	_, err := q.exec(ctx, `UPDATE release_assets SET download_count = download_count + 1 WHERE id = ?`, id)
	return err
}

// ReleasePull is a merged pull request as release notes list it.
type ReleasePull struct {
	Number   int64
	Title    string
	MergedAt time.Time
	Author   *model.Account // nil when the account is gone
}

// MergedPullsByCommit are a repository's merged pull requests whose merge
// commit is one of shas, in the order they were merged.
func (q Q) MergedPullsByCommit(ctx context.Context, repoID int64, shas []string) ([]ReleasePull, error) {
	var out []ReleasePull
	for start := 0; start < len(shas); start += 100 {
		in, args := inStrings(shas[start:min(start+100, len(shas))])
		rows, err := q.query(ctx, `SELECT p.number, i.title, p.merged_at, `+slim("a")+` FROM pulls p JOIN issues i ON i.id = p.issue_id
 LEFT JOIN accounts a ON a.id = i.user_id
 WHERE p.repo_id = ? AND p.merged_at IS NOT NULL AND p.merge_commit_sha IN (`+in+`)`, append([]any{repoID}, args...)...)
		if err != nil {
			return nil, err
		}
		for rows.Next() {
			var p ReleasePull
			var merged int64
			var a slimAccount
			if err := rows.Scan(append([]any{&p.Number, &p.Title, &merged}, a.dest()...)...); err != nil {
				rows.Close()
				return nil, err
			}
			p.MergedAt, p.Author = fromUnix(merged), a.account()
			out = append(out, p)
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			return nil, err
		}
	}
	sort.SliceStable(out, func(i, j int) bool {
		if !out[i].MergedAt.Equal(out[j].MergedAt) {
			return out[i].MergedAt.Before(out[j].MergedAt)
		}
		return out[i].Number < out[j].Number
	})
	return out, nil
}

// inStrings is inList for strings.
func inStrings(vals []string) (string, []any) {
	ids := make([]int64, len(vals))
	in, idx := inList(ids)
	args := make([]any, len(idx))
	for i := range args {
		args[i] = vals[min(i, len(vals)-1)]
	}
	return in, args
}

// FirstMergedPulls gives, for each of the users, the number of their
// first pull request merged into the repository (by merge time, then
// number); users without one are absent.
func (q Q) FirstMergedPulls(ctx context.Context, repoID int64, userIDs []int64) (map[int64]int64, error) {
	out := map[int64]int64{}
	for start := 0; start < len(userIDs); start += 100 {
		in, args := inList(userIDs[start:min(start+100, len(userIDs))])
		rows, err := q.query(ctx, `SELECT i.user_id, p.number FROM pulls p JOIN issues i ON i.id = p.issue_id
 WHERE p.repo_id = ? AND i.user_id IN (`+in+`) AND p.merged_at = (SELECT MIN(p2.merged_at) FROM pulls p2
 JOIN issues i2 ON i2.id = p2.issue_id WHERE p2.repo_id = p.repo_id AND i2.user_id = i.user_id AND p2.merged_at IS NOT NULL)`,
			append([]any{repoID}, args...)...)
		if err != nil {
			return nil, err
		}
		for rows.Next() {
			var user, number int64
			if err := rows.Scan(&user, &number); err != nil {
				rows.Close()
				return nil, err
			}
			if n, ok := out[user]; !ok || number < n {
				out[user] = number
			}
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// ReleaseRollups counts the reactions of releases by content.
func (q Q) ReleaseRollups(ctx context.Context, ids []int64) (map[int64]model.ReactionRollup, error) {
	return q.rollups(ctx, ReactRelease, ids)
}
