package migrations

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/hubd/hubd/internal/authz"
	"github.com/hubd/hubd/internal/model"
	"github.com/hubd/hubd/internal/names"
	"github.com/hubd/hubd/internal/store"
)

// Records of the archive imported after the first version: reactions,
// collaborators, teams' grants, commit comments and release assets.

// reactionContents are the reactions GitHub knows; others are skipped.
var reactionContents = map[string]bool{"+1": true, "-1": true, "laugh": true, "confused": true, "heart": true, "hooray": true,
	"rocket": true, "eyes": true}

// react adds a subject's reactions of the archive at their own times. A
// reaction is a user's, so one whose user is unknown here is left out.
func (im *importer) react(ctx context.Context, tx store.Q, repoID int64, subject string, id int64, list []arReaction) error {
	for _, x := range list {
		uid := im.user(x.User)
		if uid == 0 || !reactionContents[x.Content] {
			continue
		}
		if _, _, err := tx.At(x.CreatedAt).AddReaction(ctx, repoID, subject, id, uid, x.Content); err != nil {
			return err
		}
	}
	return nil
}

// archivePath is the file an archive's tarball://root/ URL names, refusing
// one that leaves the archive.
func archivePath(dir, u string) (string, error) {
	rel, ok := strings.CutPrefix(u, "tarball://root/")
	if !ok {
		return "", nil
	}
	p := filepath.Join(dir, filepath.FromSlash(rel))
	if !strings.HasPrefix(p, dir+string(filepath.Separator)) {
		return "", fmt.Errorf("%s is outside the archive", u)
	}
	return p, nil
}

// checkPaths refuses an archive whose git data or files leave it, before
// anything is written.
func checkPaths(u *unpacked) error {
	for _, rec := range u.repos {
		if _, err := archivePath(u.dir, rec.GitURL); err != nil {
			return err
		}
	}
	for _, r := range u.releases {
		for _, as := range r.Assets {
			if _, err := archivePath(u.dir, as.AssetURL); err != nil {
				return err
			}
		}
	}
	return nil
}

// collaborators gives the repository's direct collaborators of the archive
// their permission (unknown users are left out: a grant is a user's).
func (im *importer) collaborators(ctx context.Context, tx store.Q, repo *model.Repo, orgID int64, rec arRepo) error {
	for _, c := range rec.Collaborators {
		uid := im.user(c.User)
		perm, ok := authz.ParsePermission(c.Permission)
		if uid == 0 || !ok || perm == authz.None || uid == repo.OwnerID {
			continue
		}
		if err := tx.SetCollaborator(ctx, repo.ID, uid, perm); err != nil {
			return err
		}
		if err := tx.AppendEvent(ctx, "member", im.opt.ActorID, repo.ID, orgID, map[string]any{"action": "added", "member": uid,
			"permission": perm.String(), "previous": authz.None.String(), "imported": true}); err != nil {
			return err
		}
	}
	return nil
}

// teamGrants gives the organization's teams the permissions the archive's
// teams have on the repository (rec), making a team of the archive that the
// organization lacks, with those of its members who belong to the
// organization.
func (im *importer) teamGrants(ctx context.Context, tx store.Q, repo *model.Repo, org *model.Account, rec arRepo) error {
	for _, t := range im.u.teams {
		perm := authz.None
		for _, p := range t.Permissions {
			if p.Repository == rec.URL {
				perm, _ = authz.ParsePermission(p.Access)
			}
		}
		if perm == authz.None {
			continue
		}
		team, err := im.team(ctx, tx, org, t)
		if err != nil {
			return fmt.Errorf("team %s: %w", t.URL, err)
		}
		if err := tx.SetTeamRepo(ctx, team.ID, repo.ID, perm); err != nil {
			return err
		}
		if err := tx.AppendEvent(ctx, "team", im.opt.ActorID, repo.ID, org.ID, map[string]any{"action": "added_to_repository",
			"team_id": team.ID, "permission": perm.String(), "imported": true}); err != nil {
			return err
		}
	}
	return nil
}

// team is the organization's team of an archive's team record: the one of
// its slug, else a new one.
func (im *importer) team(ctx context.Context, tx store.Q, org *model.Account, t arTeam) (*model.Team, error) {
	slug := strings.ToLower(lastSegments(t.URL, 1))
	found, err := tx.TeamBySlug(ctx, org.ID, slug)
	if err == nil {
		return found, nil
	}
	if !errors.Is(err, model.ErrNotFound) {
		return nil, err
	}
	team := &model.Team{OrgID: org.ID, Name: t.Name, Slug: slug, Description: t.Description, Privacy: t.Privacy,
		NotificationSetting: "notifications_enabled", Permission: "pull"}
	if team.Privacy != "closed" {
		team.Privacy = "secret"
	}
	if team.Name == "" {
		team.Name = slug
	}
	if err := tx.At(t.CreatedAt).CreateTeam(ctx, team); err != nil {
		return nil, err
	}
	if err := tx.AppendEvent(ctx, "team", im.opt.ActorID, 0, org.ID, map[string]any{"action": "created", "team_id": team.ID,
		"slug": team.Slug, "imported": true}); err != nil {
		return nil, err
	}
	for _, m := range t.Members {
		uid := im.user(m.User)
		if uid == 0 {
			continue
		}
		ms, err := tx.Membership(ctx, org.ID, uid)
		if errors.Is(err, model.ErrNotFound) || err == nil && ms.State != "active" {
			continue // a team's members belong to its organization
		}
		if err != nil {
			return nil, err
		}
		role := model.TeamMember
		if m.Role == model.TeamMaintainer {
			role = model.TeamMaintainer
		}
		if err := tx.SetTeamMember(ctx, &model.TeamMembership{TeamID: team.ID, UserID: uid, Role: role, State: "active"}); err != nil {
			return nil, err
		}
		if err := tx.AppendEvent(ctx, "membership", im.opt.ActorID, 0, org.ID, map[string]any{"action": "added", "team_id": team.ID,
			"user_id": uid, "imported": true}); err != nil {
			return nil, err
		}
	}
	return team, nil
}

// commitComments writes the repository's commit comments with their
// reactions.
func (im *importer) commitComments(ctx context.Context, tx store.Q, repo *model.Repo, repoURL string) error {
	for _, c := range im.u.commitCmts {
		if c.Repository != repoURL || c.CommitID == "" {
			continue
		}
		cc := &model.CommitComment{RepoID: repo.ID, CommitID: c.CommitID, UserID: im.user(c.User), Body: c.Body, Path: c.Path,
			Position: c.Position}
		if err := tx.At(c.CreatedAt).CreateCommitComment(ctx, cc); err != nil {
			return err
		}
		if err := im.react(ctx, tx, repo.ID, store.ReactCommitComment, cc.ID, c.Reactions); err != nil {
			return err
		}
	}
	return nil
}

// pendingAsset is a release asset of the archive waiting for its file.
type pendingAsset struct {
	releaseID int64
	rec       arAsset
}

// assets stores the files of the repository's release assets and then
// records them in one transaction: a failure leaves at most files no row
// names.
func (im *importer) assets(ctx context.Context, repo *model.Repo, pending []pendingAsset) error {
	if len(pending) == 0 || im.s.Assets == nil {
		return nil
	}
	rows := make([]*model.ReleaseAsset, 0, len(pending))
	for _, p := range pending {
		src, err := archivePath(im.u.dir, p.rec.AssetURL)
		if err != nil || src == "" {
			continue // checked before the import began; a URL elsewhere has no file here
		}
		f, err := os.Open(src)
		if errors.Is(err, os.ErrNotExist) {
			continue // the archive left the file out
		}
		if err != nil {
			return err
		}
		key, size, digest, err := im.s.Assets.StoreAssetFile(repo.ID, f)
		f.Close()
		if err != nil {
			return fmt.Errorf("release asset %s: %w", p.rec.Name, err)
		}
		as := &model.ReleaseAsset{ReleaseID: p.releaseID, RepoID: repo.ID, Name: p.rec.Name, Label: p.rec.Label, State: model.AssetUploaded,
			ContentType: p.rec.ContentType, Size: size, Digest: &digest, DownloadCount: p.rec.DownloadCount, UploaderID: im.user(p.rec.User),
			StorageKey: key, CreatedAt: p.rec.CreatedAt, UpdatedAt: p.rec.CreatedAt}
		if p.rec.UpdatedAt != nil {
			as.UpdatedAt = *p.rec.UpdatedAt
		}
		if as.ContentType == "" {
			as.ContentType = "application/octet-stream"
		}
		rows = append(rows, as)
	}
	return im.s.Store.Tx(ctx, func(tx store.Q) error {
		for _, as := range rows {
			if err := tx.CreateReleaseAsset(ctx, as); errors.Is(err, store.ErrDuplicate) {
				continue // the archive repeats a name
			} else if err != nil {
				return err
			}
			if as.DownloadCount > 0 {
				if err := tx.SetAssetDownloads(ctx, as.ID, as.DownloadCount); err != nil {
					return err
				}
			}
		}
		return nil
	})
}

// unknownUser settles an archive's user that no account matches, as
// ImportOptions.UnknownUsers says.
func (im *importer) unknownUser(ctx context.Context, au arUser) error {
	im.users[au.URL] = 0
	switch im.opt.UnknownUsers {
	case UnknownGhost:
		return nil
	case UnknownCreate:
		if err := names.ValidLogin(au.Login); err == nil {
			if im.opt.DryRun {
				im.report.CreatedUsers = append(im.report.CreatedUsers, au.Login)
				return nil
			}
			id, err := im.createUser(ctx, au)
			if err != nil {
				return err
			}
			if id != 0 {
				im.users[au.URL] = id
				im.report.CreatedUsers = append(im.report.CreatedUsers, au.Login)
				return nil
			}
		}
	}
	im.conflict(Conflict{ModelName: "user", SourceURL: au.URL, TargetURL: au.URL, RecommendedAction: "map",
		Notes: "no account " + au.Login + " here; its records are imported without an author"})
	return nil
}

// createUser makes a suspended account of an archive's user record (as a
// site administrator's POST /admin/users with suspended would) and answers
// its id, or 0 when the login is taken by an organization. The primary
// email comes along unless another account has it.
func (im *importer) createUser(ctx context.Context, au arUser) (int64, error) {
	u := &model.Account{Login: au.Login, Type: model.TypeUser, Name: au.Name, Company: au.Company, Blog: au.Website,
		Location: au.Location}
	err := im.s.Store.Tx(ctx, func(tx store.Q) error {
		for _, e := range au.Emails {
			if e.Primary && e.Address != "" {
				taken, err := tx.EmailTaken(ctx, e.Address, 0)
				if err != nil {
					return err
				}
				if !taken {
					u.Email = e.Address
				}
			}
		}
		now := tx.Now()
		u.SuspendedAt = &now
		q := tx
		if au.CreatedAt != nil {
			q = tx.At(*au.CreatedAt)
		}
		if err := q.CreateAccount(ctx, u); err != nil {
			return err
		}
		if err := tx.UpdateAccount(ctx, u); err != nil { // CreateAccount does not write suspended_at
			return err
		}
		return tx.AppendEvent(ctx, "user.created", im.opt.ActorID, 0, 0, map[string]any{"user_id": u.ID, "login": u.Login,
			"suspended": true, "imported_from": au.URL})
	})
	if errors.Is(err, store.ErrDuplicate) {
		return 0, nil
	}
	return u.ID, err
}
