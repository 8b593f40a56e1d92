// Package releases is the release service: releases on git tags (a
// published release whose tag does not exist creates it, lightweight, at
// its target; a draft's tag is made when it is published), drafts seen
// only by those who may push, the repository's latest release (marked, or
// chosen by the legacy rule), generated release notes from merged pull
// requests, and release assets whose bytes are streamed to files under the
// data directory. Every write appends a domain event in its transaction.
package releases

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"log/slog"
	"strings"
	"time"

	"github.com/hubd/hubd/internal/authz"
	"github.com/hubd/hubd/internal/gitrepo"
	"github.com/hubd/hubd/internal/model"
	"github.com/hubd/hubd/internal/store"
	"github.com/hubd/hubd/internal/workflowguard"
)

// Service applies the rules of releases.
type Service struct {
	Store *store.Store
	Git   *gitrepo.Manager
	// Dir holds the asset files (one directory per repository).
	Dir string
	// MaxAssetSize bounds an uploaded asset (GitHub's limit is 2 GiB).
	MaxAssetSize int64
	// Web is the web base URL (release notes link pull requests and
	// comparisons).
	Web string
	// Resolve resolves a commit-ish of a repository ("" is its default
	// branch) to a commit: model.ErrNotFound when it names none.
	Resolve func(ctx context.Context, repo *model.Repo, ref string) (string, error)
	// RecordPush records a tag the service created, as pushes are
	// recorded (push event, push hooks).
	RecordPush func(ctx context.Context, repo *model.Repo, actorID int64, ref, old, new string) error
}

// MaxAssetSize is GitHub's limit on one release asset: under 2 GiB.
const MaxAssetSize = 2<<30 - 1

// Access is who acts on which repository: the transport found the
// repository (404 when hidden) and computed the caller's permission.
type Access struct {
	Repo   *model.Repo
	Perm   authz.Permission
	UserID int64
	// Auth is the caller's credential, for what the token may change
	// beyond the repository permission (a tag bringing workflow files);
	// nil for hubd's own work.
	Auth *authz.Caller
}

// MayPush reports whether the caller sees drafts and may change releases.
func (a Access) MayPush() bool { return a.Perm >= authz.Write }

func (a Access) orgID() int64 {
	if a.Repo.Owner != nil && a.Repo.Owner.IsOrg() {
		return a.Repo.Owner.ID
	}
	return 0
}

func (a Access) mustPush() error {
	if !a.MayPush() {
		return model.Forbidden("Must have push access to Repository.")
	}
	return nil
}

// visible hides drafts from those who may not push.
func (a Access) visible(r *model.Release) error {
	if r.Draft && !a.MayPush() {
		return model.ErrNotFound
	}
	return nil
}

func invalid(field string) error { return model.Invalid("Release", field, "invalid") }

var errTagTaken = model.Invalid("Release", "tag_name", "already_exists")

// validTag applies git's rules for a tag name (and refuses what would read
// as an option).
func validTag(tag string) bool {
	return tag != "" && len(tag) <= 255 && !strings.HasPrefix(tag, "-") && gitrepo.ValidRefName("refs/tags/"+tag)
}

// List is one page of releases, newest first (drafts only for those who
// may push), with their assets, and their count.
func (s *Service) List(ctx context.Context, a Access, limit, offset int) ([]*model.Release, int, error) {
	q := s.Store.R()
	list, total, err := q.ListReleases(ctx, a.Repo.ID, a.MayPush(), limit, offset)
	if err != nil {
		return nil, 0, err
	}
	return list, total, s.withAssets(ctx, q, list...)
}

// withAssets loads the assets and reaction counts of releases.
func (s *Service) withAssets(ctx context.Context, q store.Q, list ...*model.Release) error {
	if len(list) == 0 {
		return nil
	}
	ids := make([]int64, len(list))
	for i, r := range list {
		ids[i] = r.ID
	}
	assets, err := q.AssetsOfReleases(ctx, ids)
	if err != nil {
		return err
	}
	rollups, err := q.ReleaseRollups(ctx, ids)
	if err != nil {
		return err
	}
	for _, r := range list {
		r.Rollup = rollups[r.ID]
		r.Assets = assets[r.ID]
		if r.Assets == nil {
			r.Assets = []*model.ReleaseAsset{}
		}
	}
	return nil
}

// Get finds a release by id.
func (s *Service) Get(ctx context.Context, a Access, id int64) (*model.Release, error) {
	q := s.Store.R()
	r, err := q.ReleaseByID(ctx, a.Repo.ID, id)
	if err != nil {
		return nil, err
	}
	if err := a.visible(r); err != nil {
		return nil, err
	}
	return r, s.withAssets(ctx, q, r)
}

// ByTag finds the published release of a tag (drafts are never found by
// tag, as on GitHub).
func (s *Service) ByTag(ctx context.Context, a Access, tag string) (*model.Release, error) {
	q := s.Store.R()
	r, err := q.PublishedReleaseByTag(ctx, a.Repo.ID, tag)
	if err != nil {
		return nil, err
	}
	return r, s.withAssets(ctx, q, r)
}

// ByPath finds the release of an html_url's tag path: the published
// release of the tag, or a draft by its key ("untagged-...") for those
// who may push.
func (s *Service) ByPath(ctx context.Context, a Access, tagPath string) (*model.Release, error) {
	q := s.Store.R()
	r, err := byPath(ctx, q, a, tagPath)
	if err != nil {
		return nil, err
	}
	return r, s.withAssets(ctx, q, r)
}

// byPath is the release a URL's tag path names (see ByPath).
func byPath(ctx context.Context, q store.Q, a Access, tagPath string) (*model.Release, error) {
	r, err := q.PublishedReleaseByTag(ctx, a.Repo.ID, tagPath)
	if errors.Is(err, model.ErrNotFound) && a.MayPush() && strings.HasPrefix(tagPath, "untagged-") {
		r, err = q.DraftReleaseByKey(ctx, a.Repo.ID, tagPath)
	}
	return r, err
}

// Latest is the repository's latest release: the one marked latest (by
// make_latest), or by the legacy rule the newest published full release,
// by created_at and then by version.
func (s *Service) Latest(ctx context.Context, a Access) (*model.Release, error) {
	q := s.Store.R()
	r, err := q.MarkedLatestRelease(ctx, a.Repo.ID)
	switch {
	case err == nil && !r.Draft && !r.Prerelease:
	case err == nil || errors.Is(err, model.ErrNotFound):
		list, err := q.NewestFullReleases(ctx, a.Repo.ID)
		if err != nil {
			return nil, err
		}
		if len(list) == 0 {
			return nil, model.ErrNotFound
		}
		r = list[0]
		for _, c := range list[1:] {
			if compareVersions(c.TagName, r.TagName) > 0 {
				r = c
			}
		}
	default:
		return nil, err
	}
	return r, s.withAssets(ctx, q, r)
}

// CreateInput is the body of a new release.
type CreateInput struct {
	TagName         string
	TargetCommitish string // "" is the default branch
	Name, Body      *string
	Draft           bool
	Prerelease      bool
	GenerateNotes   bool
	MakeLatest      string // "", true, false or legacy
}

// Create makes a release. A published release whose tag does not exist
// creates the tag at the target; a draft's tag waits for its publication.
func (s *Service) Create(ctx context.Context, a Access, in CreateInput) (*model.Release, error) {
	if err := a.mustPush(); err != nil {
		return nil, err
	}
	if !validTag(in.TagName) {
		return nil, invalid("tag_name")
	}
	if err := validLatest(in.MakeLatest); err != nil {
		return nil, err
	}
	target := in.TargetCommitish
	if target == "" {
		target = a.Repo.DefaultBranch
	}
	g, err := s.Git.Init(ctx, a.Repo.ID, a.Repo.DefaultBranch)
	if err != nil {
		return nil, err
	}
	commit, tagged, err := s.tagCommit(ctx, g, in.TagName)
	if err != nil {
		return nil, err
	}
	if !tagged {
		if commit, err = s.target(ctx, a.Repo, target); err != nil {
			return nil, err
		}
	}
	if !in.Draft {
		if taken, err := s.Store.R().PublishedTagTaken(ctx, a.Repo.ID, in.TagName, 0); err != nil {
			return nil, err
		} else if taken {
			return nil, errTagTaken
		}
	}
	r := &model.Release{RepoID: a.Repo.ID, TagName: in.TagName, TargetCommitish: target, Name: in.Name, Body: in.Body,
		Draft: in.Draft, Prerelease: in.Prerelease, DraftKey: newDraftKey(), AuthorID: a.UserID}
	if in.GenerateNotes {
		name, body, err := s.notes(ctx, a, g, in.TagName, commit, "")
		if err != nil {
			return nil, err
		}
		if r.Name == nil {
			r.Name = &name
		}
		if r.Body != nil && *r.Body != "" {
			body = *r.Body + "\n\n" + body
		}
		r.Body = &body
	}
	if r.CreatedAt, err = commitDate(ctx, g, commit); err != nil {
		return nil, err
	}
	now := s.Store.Now()
	r.UpdatedAt = now
	mode := in.MakeLatest
	madeTag := false
	if !r.Draft {
		r.PublishedAt = &now
		if mode == "" {
			mode = model.LatestTrue
		}
		if !tagged {
			if madeTag, err = s.makeTag(ctx, g, a.Auth, in.TagName, commit); err != nil {
				return nil, err
			}
		}
	}
	r.NotLatest = mode == model.LatestFalse
	err = s.Store.Tx(ctx, func(tx store.Q) error {
		if err := tx.CreateRelease(ctx, r); errors.Is(err, store.ErrDuplicate) {
			return errTagTaken
		} else if err != nil {
			return err
		}
		if err := markLatest(ctx, tx, r, mode); err != nil {
			return err
		}
		actions := []string{"created"}
		if !r.Draft {
			actions = append(actions, published(r)...)
		}
		return s.events(ctx, tx, a, r, actions...)
	})
	if err != nil {
		return nil, err
	}
	if madeTag {
		s.recordTag(ctx, a, in.TagName, commit)
	}
	// Read back with its author's row.
	out, err := s.Store.R().ReleaseByID(ctx, a.Repo.ID, r.ID)
	if err != nil {
		return nil, err
	}
	out.Assets = []*model.ReleaseAsset{}
	return out, nil
}

// UpdateInput is a PATCH of a release: nil fields are absent.
type UpdateInput struct {
	TagName, TargetCommitish *string
	Name, Body               *string
	Draft, Prerelease        *bool
	MakeLatest               string
}

// Update edits a release. Publishing a draft (or renaming the tag of a
// published release) creates the tag at the target when it does not exist.
func (s *Service) Update(ctx context.Context, a Access, id int64, in UpdateInput) (*model.Release, error) {
	cur, err := s.Store.R().ReleaseByID(ctx, a.Repo.ID, id)
	if err != nil {
		return nil, err
	}
	if err := a.visible(cur); err != nil {
		return nil, err
	}
	if err := a.mustPush(); err != nil {
		return nil, err
	}
	if err := validLatest(in.MakeLatest); err != nil {
		return nil, err
	}
	r := *cur
	if in.TagName != nil {
		if !validTag(*in.TagName) {
			return nil, invalid("tag_name")
		}
		r.TagName = *in.TagName
	}
	if in.TargetCommitish != nil {
		r.TargetCommitish = *in.TargetCommitish
		if r.TargetCommitish == "" {
			r.TargetCommitish = a.Repo.DefaultBranch
		}
	}
	if in.Name != nil {
		r.Name = in.Name
	}
	if in.Body != nil {
		r.Body = in.Body
	}
	if in.Draft != nil {
		r.Draft = *in.Draft
	}
	if in.Prerelease != nil {
		r.Prerelease = *in.Prerelease
	}
	publishing := cur.Draft && !r.Draft
	retagged := r.TagName != cur.TagName
	g, err := s.Git.Init(ctx, a.Repo.ID, a.Repo.DefaultBranch)
	if err != nil {
		return nil, err
	}
	var commit string
	madeTag := false
	if retagged || publishing || (r.Draft && in.TargetCommitish != nil) {
		tagged := false
		if commit, tagged, err = s.tagCommit(ctx, g, r.TagName); err != nil {
			return nil, err
		}
		if !tagged {
			if commit, err = s.target(ctx, a.Repo, r.TargetCommitish); err != nil {
				return nil, err
			}
		}
		if !r.Draft {
			if taken, err := s.Store.R().PublishedTagTaken(ctx, a.Repo.ID, r.TagName, r.ID); err != nil {
				return nil, err
			} else if taken {
				return nil, errTagTaken
			}
		}
		if r.CreatedAt, err = commitDate(ctx, g, commit); err != nil {
			return nil, err
		}
		if !r.Draft && !tagged {
			if madeTag, err = s.makeTag(ctx, g, a.Auth, r.TagName, commit); err != nil {
				return nil, err
			}
		}
	}
	now := s.Store.Now()
	r.UpdatedAt = now
	switch {
	case publishing:
		r.PublishedAt = &now
	case r.Draft:
		r.PublishedAt = nil
	}
	mode := in.MakeLatest
	if mode == "" && publishing {
		mode = model.LatestTrue
		if r.NotLatest {
			mode = model.LatestFalse
		}
	}
	if mode != "" {
		r.NotLatest = mode == model.LatestFalse
	}
	err = s.Store.Tx(ctx, func(tx store.Q) error {
		if err := tx.UpdateRelease(ctx, &r); errors.Is(err, store.ErrDuplicate) {
			return errTagTaken
		} else if err != nil {
			return err
		}
		if err := markLatest(ctx, tx, &r, mode); err != nil {
			return err
		}
		actions := []string{"edited"}
		switch {
		case publishing:
			actions = append(actions, published(&r)...)
		case !cur.Draft && r.Draft:
			actions = append(actions, "unpublished")
		case !r.Draft && cur.Prerelease && !r.Prerelease:
			actions = append(actions, "released")
		case !r.Draft && !cur.Prerelease && r.Prerelease:
			actions = append(actions, "prereleased")
		}
		return s.events(ctx, tx, a, &r, actions...)
	})
	if err != nil {
		return nil, err
	}
	if madeTag {
		s.recordTag(ctx, a, r.TagName, commit)
	}
	return &r, s.withAssets(ctx, s.Store.R(), &r)
}

// Delete deletes a release and its assets; its tag stays.
func (s *Service) Delete(ctx context.Context, a Access, id int64) error {
	var keys []string
	err := s.Store.Tx(ctx, func(tx store.Q) error {
		r, err := tx.ReleaseByID(ctx, a.Repo.ID, id)
		if err != nil {
			return err
		}
		if err := a.visible(r); err != nil {
			return err
		}
		if err := a.mustPush(); err != nil {
			return err
		}
		if keys, err = tx.DeleteRelease(ctx, a.Repo.ID, id); err != nil {
			return err
		}
		return s.events(ctx, tx, a, r, "deleted")
	})
	if err != nil {
		return err
	}
	for _, k := range keys {
		s.removeFile(a.Repo.ID, k)
	}
	return nil
}

// TagDeleted turns the published release of a deleted tag into a draft,
// as GitHub does when a tag goes (a push or a ref deletion).
func (s *Service) TagDeleted(ctx context.Context, repo *model.Repo, actorID int64, tag string) error {
	a := Access{Repo: repo, Perm: authz.Write, UserID: actorID}
	return s.Store.Tx(ctx, func(tx store.Q) error {
		r, err := tx.PublishedReleaseByTag(ctx, repo.ID, tag)
		if errors.Is(err, model.ErrNotFound) {
			return nil
		}
		if err != nil {
			return err
		}
		r.Draft, r.PublishedAt, r.UpdatedAt = true, nil, tx.Now()
		if err := tx.UpdateRelease(ctx, r); err != nil {
			return err
		}
		if err := markLatest(ctx, tx, r, ""); err != nil {
			return err
		}
		return s.events(ctx, tx, a, r, "unpublished")
	})
}

// published are the actions of a release becoming public.
func published(r *model.Release) []string {
	if r.Prerelease {
		return []string{"published", "prereleased"}
	}
	return []string{"published", "released"}
}

func (s *Service) events(ctx context.Context, tx store.Q, a Access, r *model.Release, actions ...string) error {
	for _, act := range actions {
		if err := tx.AppendEvent(ctx, "release", a.UserID, a.Repo.ID, a.orgID(), map[string]any{
			"action": act, "release_id": r.ID, "tag_name": r.TagName, "draft": r.Draft, "prerelease": r.Prerelease}); err != nil {
			return err
		}
	}
	return nil
}

func validLatest(v string) error {
	switch v {
	case "", model.LatestTrue, model.LatestFalse, model.LatestLegacy:
		return nil
	}
	return invalid("make_latest")
}

// markLatest applies make_latest after r was written: drafts and
// prereleases are never latest; true marks r, false unmarks it (and
// NotLatest keeps the legacy rule from choosing it), legacy leaves the
// choice to the legacy rule.
func markLatest(ctx context.Context, tx store.Q, r *model.Release, mode string) error {
	if r.Draft || r.Prerelease {
		return tx.ClearLatestRelease(ctx, r.RepoID, r.ID)
	}
	switch mode {
	case model.LatestTrue:
		return tx.SetLatestRelease(ctx, r.RepoID, r.ID)
	case model.LatestFalse:
		return tx.ClearLatestRelease(ctx, r.RepoID, r.ID)
	case model.LatestLegacy:
		return tx.ClearLatestRelease(ctx, r.RepoID, 0)
	}
	return nil
}

// tagCommit is the commit a tag names, and whether the tag exists.
func (s *Service) tagCommit(ctx context.Context, g *gitrepo.Repo, tag string) (string, bool, error) {
	info, err := g.Info(ctx, "refs/tags/"+tag+"^{commit}")
	if errors.Is(err, gitrepo.ErrNotFound) {
		return "", false, nil
	}
	if err != nil {
		return "", false, err
	}
	return info.OID, true, nil
}

// target resolves target_commitish: a 422 on the field when it names no
// commit (or the repository has none).
func (s *Service) target(ctx context.Context, repo *model.Repo, ref string) (string, error) {
	commit, err := s.Resolve(ctx, repo, ref)
	var he *model.HTTPError
	if errors.Is(err, model.ErrNotFound) || errors.As(err, &he) {
		return "", invalid("target_commitish")
	}
	return commit, err
}

// makeTag creates a lightweight tag; false when someone created it
// meanwhile (the release then names their tag). A tag at a commit no
// branch or tag holds that changes workflow files needs what a push of it
// would (workflowguard).
func (s *Service) makeTag(ctx context.Context, g *gitrepo.Repo, auth *authz.Caller, tag, commit string) (bool, error) {
	if no, err := workflowguard.Check(ctx, auth, g, nil, workflowguard.Change{Ref: "refs/tags/" + tag, Old: gitrepo.ZeroOID, New: commit}); err != nil {
		return false, err
	} else if no != nil {
		return false, no.Forbidden()
	}
	err := g.UpdateRef(ctx, "refs/tags/"+tag, commit, gitrepo.ZeroOID)
	if errors.Is(err, gitrepo.ErrRefConflict) {
		return false, nil
	}
	return err == nil, err
}

// recordTag records a created tag as a push. The tag exists already, so a
// failure is logged rather than answered.
func (s *Service) recordTag(ctx context.Context, a Access, tag, commit string) {
	if s.RecordPush == nil {
		return
	}
	if err := s.RecordPush(ctx, a.Repo, a.UserID, "refs/tags/"+tag, gitrepo.ZeroOID, commit); err != nil {
		slog.Error("releases: record tag", "repo", a.Repo.ID, "tag", tag, "err", err)
	}
}

func commitDate(ctx context.Context, g *gitrepo.Repo, commit string) (time.Time, error) {
	c, err := g.Commit(ctx, commit)
	if err != nil {
		return time.Time{}, err
	}
	return c.Committer.When.UTC().Truncate(time.Second), nil
}

// newDraftKey names a draft in its html_url until it is published.
func newDraftKey() string {
	b := make([]byte, 10)
	rand.Read(b)
	return "untagged-" + hex.EncodeToString(b)
}
