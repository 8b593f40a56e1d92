package releases

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/hubd/hubd/internal/model"
	"github.com/hubd/hubd/internal/store"
)

// Assets lists one page of a release's assets, oldest first.
func (s *Service) Assets(ctx context.Context, a Access, releaseID int64, limit, offset int) ([]*model.ReleaseAsset, int, error) {
	q := s.Store.R()
	r, err := q.ReleaseByID(ctx, a.Repo.ID, releaseID)
	if err != nil {
		return nil, 0, err
	}
	if err := a.visible(r); err != nil {
		return nil, 0, err
	}
	return q.ListReleaseAssets(ctx, releaseID, limit, offset)
}

// Asset finds an asset (hidden with its draft from those who may not push).
func (s *Service) Asset(ctx context.Context, a Access, id int64) (*model.ReleaseAsset, error) {
	as, err := s.Store.R().ReleaseAssetByID(ctx, a.Repo.ID, id)
	if err != nil {
		return nil, err
	}
	if as.Draft && !a.MayPush() {
		return nil, model.ErrNotFound
	}
	return as, nil
}

// AssetByPath finds an asset by the path of its browser_download_url: the
// published release of tag (or a draft by its key, for those who may
// push) and the asset's name.
func (s *Service) AssetByPath(ctx context.Context, a Access, tag, name string) (*model.ReleaseAsset, error) {
	q := s.Store.R()
	r, err := byPath(ctx, q, a, tag)
	if err != nil {
		return nil, err
	}
	return q.ReleaseAssetByName(ctx, r.ID, name)
}

// Open opens an asset's file for reading.
func (s *Service) Open(as *model.ReleaseAsset) (*os.File, error) {
	f, err := os.Open(s.path(as.RepoID, as.StorageKey))
	if errors.Is(err, os.ErrNotExist) {
		slog.Error("releases: asset file missing", "asset", as.ID, "repo", as.RepoID, "key", as.StorageKey)
		return nil, model.ErrNotFound
	}
	return f, err
}

// Downloaded counts a download of an asset.
func (s *Service) Downloaded(ctx context.Context, as *model.ReleaseAsset) error {
	return s.Store.Tx(ctx, func(tx store.Q) error { return tx.CountAssetDownload(ctx, as.ID) })
}

// UploadInput is an asset being uploaded.
type UploadInput struct {
	Name        string
	Label       *string
	ContentType string
	Size        int64 // the announced length; -1 when unknown
	Body        io.Reader
}

var errNameTaken = model.Invalid("ReleaseAsset", "name", "already_exists")

// Upload streams an asset to a file and records it. The file is written
// and moved into place before the row is inserted, so a failure leaves at
// most a file no row names.
func (s *Service) Upload(ctx context.Context, a Access, releaseID int64, in UploadInput) (*model.ReleaseAsset, error) {
	q := s.Store.R()
	r, err := q.ReleaseByID(ctx, a.Repo.ID, releaseID)
	if err != nil {
		return nil, err
	}
	if err := a.visible(r); err != nil {
		return nil, err
	}
	if err := a.mustPush(); err != nil {
		return nil, err
	}
	name := AssetName(in.Name)
	if name == "" {
		// GitHub's upload server answers a missing (or, rewritten,
		// empty) name so.
		return nil, &model.HTTPError{Status: http.StatusBadRequest, Message: "Invalid name for request"}
	}
	if _, err := q.ReleaseAssetByName(ctx, r.ID, name); err == nil {
		return nil, errNameTaken
	} else if !errors.Is(err, model.ErrNotFound) {
		return nil, err
	}
	limit := s.MaxAssetSize
	if limit <= 0 {
		limit = MaxAssetSize
	}
	if in.Size > limit {
		return nil, tooLarge(limit)
	}
	ct := in.ContentType
	if ct == "" {
		ct = "application/octet-stream"
	}
	key := newKey()
	size, digest, err := s.store(a.Repo.ID, key, in.Body, limit)
	if err != nil {
		return nil, err
	}
	now := s.Store.Now()
	as := &model.ReleaseAsset{ReleaseID: r.ID, RepoID: a.Repo.ID, Name: name, Label: in.Label, State: model.AssetUploaded,
		ContentType: ct, Size: size, Digest: &digest, UploaderID: a.UserID, StorageKey: key, CreatedAt: now, UpdatedAt: now}
	err = s.Store.Tx(ctx, func(tx store.Q) error {
		if _, err := tx.ReleaseByID(ctx, a.Repo.ID, r.ID); err != nil {
			return err // deleted while the body came in
		}
		if err := tx.CreateReleaseAsset(ctx, as); errors.Is(err, store.ErrDuplicate) {
			return errNameTaken
		} else if err != nil {
			return err
		}
		return s.assetEvent(ctx, tx, a, as, "created")
	})
	if err != nil {
		s.removeFile(a.Repo.ID, key)
		return nil, err
	}
	return q.ReleaseAssetByID(ctx, a.Repo.ID, as.ID)
}

func tooLarge(limit int64) error {
	return model.Custom("ReleaseAsset", "size", fmt.Sprintf("size must be less than %d bytes", limit+1))
}

// store streams body into the asset file of key: a temporary file first,
// hashed as it is written, renamed into place when complete.
func (s *Service) store(repoID int64, key string, body io.Reader, limit int64) (int64, string, error) {
	tmpDir := filepath.Join(s.Dir, "tmp")
	if err := os.MkdirAll(tmpDir, 0o755); err != nil {
		return 0, "", err
	}
	f, err := os.CreateTemp(tmpDir, "upload-*")
	if err != nil {
		return 0, "", err
	}
	done := false
	defer func() {
		if !done {
			f.Close()
			os.Remove(f.Name())
		}
	}()
	h := sha256.New()
	n, err := io.Copy(io.MultiWriter(f, h), io.LimitReader(body, limit+1))
	if err != nil {
		return 0, "", err
	}
	if n > limit {
		return 0, "", tooLarge(limit)
	}
	if err := f.Sync(); err != nil {
		return 0, "", err
	}
	if err := f.Close(); err != nil {
		return 0, "", err
	}
	final := s.path(repoID, key)
	if err := os.MkdirAll(filepath.Dir(final), 0o755); err != nil {
		return 0, "", err
	}
	if err := os.Rename(f.Name(), final); err != nil {
		return 0, "", err
	}
	done = true
	return n, "sha256:" + hex.EncodeToString(h.Sum(nil)), nil
}

// AssetUpdate is a PATCH of an asset: nil fields are absent.
type AssetUpdate struct {
	Name, Label, State *string
}

// UpdateAsset renames or relabels an asset.
func (s *Service) UpdateAsset(ctx context.Context, a Access, id int64, in AssetUpdate) (*model.ReleaseAsset, error) {
	err := s.Store.Tx(ctx, func(tx store.Q) error {
		as, err := tx.ReleaseAssetByID(ctx, a.Repo.ID, id)
		if err != nil {
			return err
		}
		if as.Draft && !a.MayPush() {
			return model.ErrNotFound
		}
		if err := a.mustPush(); err != nil {
			return err
		}
		if in.Name != nil {
			name := AssetName(*in.Name)
			if name == "" {
				return model.Invalid("ReleaseAsset", "name", "invalid")
			}
			as.Name = name
		}
		if in.Label != nil {
			as.Label = in.Label
		}
		if in.State != nil {
			if *in.State != model.AssetUploaded && *in.State != model.AssetOpen {
				return model.Invalid("ReleaseAsset", "state", "invalid")
			}
			as.State = *in.State
		}
		as.UpdatedAt = tx.Now()
		if err := tx.UpdateReleaseAsset(ctx, as); errors.Is(err, store.ErrDuplicate) {
			return errNameTaken
		} else if err != nil {
			return err
		}
		return s.assetEvent(ctx, tx, a, as, "edited")
	})
	if err != nil {
		return nil, err
	}
	return s.Store.R().ReleaseAssetByID(ctx, a.Repo.ID, id)
}

// DeleteAsset deletes an asset and then its file.
func (s *Service) DeleteAsset(ctx context.Context, a Access, id int64) error {
	var key string
	err := s.Store.Tx(ctx, func(tx store.Q) error {
		as, err := tx.ReleaseAssetByID(ctx, a.Repo.ID, id)
		if err != nil {
			return err
		}
		if as.Draft && !a.MayPush() {
			return model.ErrNotFound
		}
		if err := a.mustPush(); err != nil {
			return err
		}
		if err := tx.DeleteReleaseAsset(ctx, a.Repo.ID, id); err != nil {
			return err
		}
		key = as.StorageKey
		return s.assetEvent(ctx, tx, a, as, "deleted")
	})
	if err != nil {
		return err
	}
	s.removeFile(a.Repo.ID, key)
	return nil
}

func (s *Service) assetEvent(ctx context.Context, tx store.Q, a Access, as *model.ReleaseAsset, action string) error {
	return tx.AppendEvent(ctx, "release_asset", a.UserID, a.Repo.ID, a.orgID(), map[string]any{
		"action": action, "asset_id": as.ID, "release_id": as.ReleaseID, "name": as.Name, "size": as.Size})
}

// path is the file of an asset: under Dir by repository id and key.
func (s *Service) path(repoID int64, key string) string {
	return filepath.Join(s.Dir, strconv.FormatInt(repoID, 10), key)
}

// removeFile removes an asset's file after its row is gone; a failure
// leaves a file no row names, which is only logged.
func (s *Service) removeFile(repoID int64, key string) {
	if key == "" {
		return
	}
	if err := os.Remove(s.path(repoID, key)); err != nil && !errors.Is(err, os.ErrNotExist) {
		slog.Warn("releases: remove asset file", "repo", repoID, "key", key, "err", err)
	}
}

// newKey names an asset's file.
func newKey() string {
	b := make([]byte, 16)
	rand.Read(b)
	return hex.EncodeToString(b)
}

// AssetName is the name GitHub gives an uploaded file: every run of
// characters other than letters, digits and "-_.+@" becomes one period,
// without doubling a period next to it, and leading and trailing periods
// go.
func AssetName(name string) string {
	var b strings.Builder
	pending := false
	for _, c := range name {
		ok := c < 0x80 && (c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || strings.ContainsRune("-_.+@", c))
		if !ok {
			pending = true
			continue
		}
		if pending && c != '.' && b.Len() > 0 && !strings.HasSuffix(b.String(), ".") {
			b.WriteByte('.')
		}
		pending = false
		b.WriteRune(c)
	}
	out := strings.Trim(b.String(), ".")
	if len(out) > 255 {
		out = strings.TrimRight(out[:255], ".")
	}
	return out
}

// AssetFile is the path of an asset's file (for the migration archive,
// which copies it).
func (s *Service) AssetFile(as *model.ReleaseAsset) string { return s.path(as.RepoID, as.StorageKey) }

// StoreAssetFile writes the file of an asset brought by a migration
// archive, as an upload would, and answers its storage key, size and
// digest; the caller inserts the row (a failure after this leaves only a
// file no row names).
func (s *Service) StoreAssetFile(repoID int64, body io.Reader) (key string, size int64, digest string, err error) {
	limit := s.MaxAssetSize
	if limit <= 0 {
		limit = MaxAssetSize
	}
	key = newKey()
	size, digest, err = s.store(repoID, key, body, limit)
	return key, size, digest, err
}
