package store

import (
	"context"
	"fmt"

	"github.com/hubd/hubd/internal/model"
)

// Custom images of hosted runners and their versions (internal/runners/
// images.go). A version is major.minor.patch, kept as numbers so that
// "latest" orders as versions do.

const customImageCols = `i.id, i.org_id, i.name, i.platform, i.created_at,
 (SELECT COUNT(*) FROM custom_image_versions v WHERE v.image_id = i.id),
 (SELECT COALESCE(SUM(v.size_bytes), 0) FROM custom_image_versions v WHERE v.image_id = i.id),
 COALESCE((SELECT CAST(v.major AS TEXT) || '.' || CAST(v.minor AS TEXT) || '.' || CAST(v.patch AS TEXT) FROM custom_image_versions v
  WHERE v.image_id = i.id ORDER BY v.major DESC, v.minor DESC, v.patch DESC LIMIT 1), '')`

func scanCustomImage(sc rowScanner) (*model.CustomImage, error) {
	im := &model.CustomImage{}
	var created int64
	if err := sc.Scan(&im.ID, &im.OrgID, &im.Name, &im.Platform, &created, &im.VersionsCount, &im.TotalBytes, &im.LatestVersion); err != nil {
		return nil, err
	}
	im.CreatedAt = fromUnix(created)
	return im, nil
}

// CustomImages lists an owner's custom images (0: the enterprise's).
func (q Q) CustomImages(ctx context.Context, orgID int64, limit, offset int) ([]*model.CustomImage, int, error) {
	var total int
	if err := q.row(ctx, `SELECT COUNT(*) FROM custom_images WHERE org_id = ?`, orgID).Scan(&total); err != nil {
		return nil, 0, err
	}
	rows, err := q.query(ctx, `SELECT `+customImageCols+` FROM custom_images i WHERE i.org_id = ? ORDER BY i.id LIMIT ? OFFSET ?`, orgID, limit, offset)
	if err != nil {
		return nil, 0, err
	}
	defer rows.Close()
	var out []*model.CustomImage
	for rows.Next() {
		im, err := scanCustomImage(rows)
		if err != nil {
			return nil, 0, err
		}
		out = append(out, im)
	}
	return out, total, rows.Err()
}

// CustomImage finds an owner's custom image by id, or by name when id is
// 0.
func (q Q) CustomImage(ctx context.Context, orgID, id int64, name string) (*model.CustomImage, error) {
	im, err := scanCustomImage(q.row(ctx, `SELECT `+customImageCols+` FROM custom_images i WHERE i.org_id = ? AND (i.id = ? OR (? = 0 AND i.name = ?))`,
		orgID, id, id, name))
	return im, notFound(err)
}

// CreateCustomImage adds a custom image (ErrDuplicate: its name is taken).
func (q Q) CreateCustomImage(ctx context.Context, im *model.CustomImage) error {
	var err error
	im.CreatedAt = q.Now()
	im.ID, err = q.insert(ctx, `INSERT INTO custom_images (org_id, name, platform, created_at) VALUES (?, ?, ?, ?)`,
		im.OrgID, im.Name, im.Platform, unix(im.CreatedAt))
	if isUnique(err) {
		return ErrDuplicate
	}
	return err
}

// DeleteCustomImage removes a custom image and its versions.
func (q Q) DeleteCustomImage(ctx context.Context, id int64) error {
	if _, err := q.exec(ctx, `DELETE FROM custom_image_versions WHERE image_id = ?`, id); err != nil {
		return err
	}
	_, err := q.exec(ctx, `DELETE FROM custom_images WHERE id = ?`, id)
	return err
}

const customVersionCols = `v.id, v.image_id, v.major, v.minor, v.patch, v.state, v.size_bytes, v.path, v.created_at`

func scanCustomVersion(sc rowScanner) (*model.CustomImageVersion, error) {
	v := &model.CustomImageVersion{}
	var major, minor, patch, created int64
	if err := sc.Scan(&v.ID, &v.ImageID, &major, &minor, &patch, &v.State, &v.SizeBytes, &v.Path, &created); err != nil {
		return nil, err
	}
	v.Version, v.CreatedAt = fmt.Sprintf("%d.%d.%d", major, minor, patch), fromUnix(created)
	return v, nil
}

// CustomImageVersions lists an image's versions, the latest first.
func (q Q) CustomImageVersions(ctx context.Context, imageID int64, limit, offset int) ([]*model.CustomImageVersion, int, error) {
	var total int
	if err := q.row(ctx, `SELECT COUNT(*) FROM custom_image_versions WHERE image_id = ?`, imageID).Scan(&total); err != nil {
		return nil, 0, err
	}
	rows, err := q.query(ctx, `SELECT `+customVersionCols+` FROM custom_image_versions v WHERE v.image_id = ?
 ORDER BY v.major DESC, v.minor DESC, v.patch DESC LIMIT ? OFFSET ?`, imageID, limit, offset)
	if err != nil {
		return nil, 0, err
	}
	defer rows.Close()
	var out []*model.CustomImageVersion
	for rows.Next() {
		v, err := scanCustomVersion(rows)
		if err != nil {
			return nil, 0, err
		}
		out = append(out, v)
	}
	return out, total, rows.Err()
}

// CustomImageVersion finds an image's version major.minor.patch; major
// -1 is the latest version.
func (q Q) CustomImageVersion(ctx context.Context, imageID, major, minor, patch int64) (*model.CustomImageVersion, error) {
	v, err := scanCustomVersion(q.row(ctx, `SELECT `+customVersionCols+` FROM custom_image_versions v WHERE v.image_id = ?
 AND (? < 0 OR (v.major = ? AND v.minor = ? AND v.patch = ?)) ORDER BY v.major DESC, v.minor DESC, v.patch DESC LIMIT 1`,
		imageID, major, major, minor, patch))
	return v, notFound(err)
}

// NextCustomImageMinor is the next minor version of an image's major
// version (0 when it has none).
func (q Q) NextCustomImageMinor(ctx context.Context, imageID, major int64) (int64, error) {
	var n int64
	err := q.row(ctx, `SELECT COALESCE(MAX(minor) + 1, 0) FROM custom_image_versions WHERE image_id = ? AND major = ?`, imageID, major).Scan(&n)
	return n, err
}

// AddCustomImageVersion records a captured version (ErrDuplicate: taken).
func (q Q) AddCustomImageVersion(ctx context.Context, v *model.CustomImageVersion, major, minor, patch int64) error {
	var err error
	v.CreatedAt = q.Now()
	v.ID, err = q.insert(ctx, `INSERT INTO custom_image_versions (image_id, major, minor, patch, state, size_bytes, path, created_at)
 VALUES (?, ?, ?, ?, ?, ?, ?, ?)`, v.ImageID, major, minor, patch, v.State, v.SizeBytes, v.Path, unix(v.CreatedAt))
	if isUnique(err) {
		return ErrDuplicate
	}
	v.Version = fmt.Sprintf("%d.%d.%d", major, minor, patch)
	return err
}

// DeleteCustomImageVersion removes one version.
func (q Q) DeleteCustomImageVersion(ctx context.Context, id int64) error {
	_, err := q.exec(ctx, `DELETE FROM custom_image_versions WHERE id = ?`, id)
	return err
}

// HostedRunnersUsingImage names an owner's hosted runners whose image is
// the custom image id (of version, when not "": exactly that version).
func (q Q) HostedRunnersUsingImage(ctx context.Context, orgID, id int64, version string) ([]string, error) {
	rows, err := q.query(ctx, `SELECT name FROM hosted_runners WHERE org_id = ? AND image_source = 'custom' AND image_id = ?
 AND (? = '' OR image_version = ?) ORDER BY name`, orgID, fmt.Sprint(id), version, version)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var n string
		if err := rows.Scan(&n); err != nil {
			return nil, err
		}
		out = append(out, n)
	}
	return out, rows.Err()
}

// CustomImagesByID finds custom images by id (those that exist), for
// the hosted runners using them.
func (q Q) CustomImagesByID(ctx context.Context, ids []int64) (map[int64]*model.CustomImage, error) {
	out := map[int64]*model.CustomImage{}
	if len(ids) == 0 {
		return out, nil
	}
	in, args := inList(ids)
	rows, err := q.query(ctx, `SELECT `+customImageCols+` FROM custom_images i WHERE i.id IN (`+in+`)`, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	for rows.Next() {
		im, err := scanCustomImage(rows)
		if err != nil {
			return nil, err
		}
		out[im.ID] = im
	}
	return out, rows.Err()
}
