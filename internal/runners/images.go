package runners

import (
	"archive/tar"
	"compress/gzip"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"gopkg.in/yaml.v3"

	"github.com/hubd/hubd/internal/actions"
	"github.com/hubd/hubd/internal/model"
	"github.com/hubd/hubd/internal/store"
	"github.com/hubd/hubd/internal/tarball"
)

// Custom images, the local equivalent of GitHub's: a hosted runner with
// image_gen runs jobs whose snapshot: keyword names an image; when such a
// job succeeds, its tool cache (RUNNER_TOOL_CACHE) and home directory are
// captured as the image's next version — a tar.gz under hubd's data
// directory, not a virtual machine image (hubd's jobs run on its own
// host). A hosted runner whose image is a custom one gets the version's
// archive unpacked into each job's tool cache and home before its steps
// run, so what the snapshot job installed there is present.

// imageDirs are the job directories a custom image captures and
// restores, by their names in its archive: a job's RUNNER_TOOL_CACHE and
// HOME (internal/actions).
var imageDirs = map[string]func(jobDir string) string{"toolcache": actions.JobToolCache, "home": actions.JobHome}

// imageDirNames orders imageDirs in an archive.
var imageDirNames = []string{"toolcache", "home"}

// CustomImages manages an owner's custom images; Dir holds the archives.
type CustomImages struct {
	Svc *Service
	Dir string
}

// ListCustomImages lists the scope's custom images.
func (c *CustomImages) ListCustomImages(ctx context.Context, sc Scope, limit, offset int) ([]*model.CustomImage, int, error) {
	return c.Svc.Store.R().CustomImages(ctx, sc.OwnerID(), limit, offset)
}

// CustomImage finds one of the scope's custom images.
func (c *CustomImages) CustomImage(ctx context.Context, sc Scope, id int64) (*model.CustomImage, error) {
	return c.Svc.Store.R().CustomImage(ctx, sc.OwnerID(), id, "")
}

// ByID finds custom images by id (the hosted runners' images).
func (c *CustomImages) ByID(ctx context.Context, ids []int64) (map[int64]*model.CustomImage, error) {
	return c.Svc.Store.R().CustomImagesByID(ctx, ids)
}

// ListVersions lists a custom image's versions, the latest first.
func (c *CustomImages) ListVersions(ctx context.Context, sc Scope, id int64, limit, offset int) ([]*model.CustomImageVersion, int, error) {
	im, err := c.CustomImage(ctx, sc, id)
	if err != nil {
		return nil, 0, err
	}
	return c.Svc.Store.R().CustomImageVersions(ctx, im.ID, limit, offset)
}

// parseVersion reads major.minor.patch (ok false otherwise).
func parseVersion(v string) (major, minor, patch int64, ok bool) {
	parts := strings.Split(v, ".")
	if len(parts) != 3 {
		return 0, 0, 0, false
	}
	var n [3]int64
	for i, p := range parts {
		x, err := strconv.ParseInt(p, 10, 64)
		if err != nil || x < 0 {
			return 0, 0, 0, false
		}
		n[i] = x
	}
	return n[0], n[1], n[2], true
}

// Version finds a custom image's version ("latest": its latest).
func (c *CustomImages) Version(ctx context.Context, sc Scope, id int64, version string) (*model.CustomImageVersion, error) {
	im, err := c.CustomImage(ctx, sc, id)
	if err != nil {
		return nil, err
	}
	return c.version(ctx, im.ID, version)
}

func (c *CustomImages) version(ctx context.Context, imageID int64, version string) (*model.CustomImageVersion, error) {
	if version == "" || version == "latest" {
		return c.Svc.Store.R().CustomImageVersion(ctx, imageID, -1, 0, 0)
	}
	major, minor, patch, ok := parseVersion(version)
	if !ok {
		return nil, model.ErrNotFound
	}
	return c.Svc.Store.R().CustomImageVersion(ctx, imageID, major, minor, patch)
}

// inUse refuses removing what a hosted runner still uses.
func (c *CustomImages) inUse(ctx context.Context, sc Scope, id int64, version, what string) error {
	names, err := c.Svc.Store.R().HostedRunnersUsingImage(ctx, sc.OwnerID(), id, version)
	if err != nil || len(names) == 0 {
		return err
	}
	return model.Unprocessable(fmt.Sprintf("The %s is in use by hosted runners (%s): change their image first.", what, strings.Join(names, ", ")))
}

// DeleteCustomImage removes a custom image, its versions and their
// archives, unless a hosted runner uses it.
func (c *CustomImages) DeleteCustomImage(ctx context.Context, sc Scope, id int64) error {
	im, err := c.CustomImage(ctx, sc, id)
	if err != nil {
		return err
	}
	if err := c.inUse(ctx, sc, im.ID, "", "image"); err != nil {
		return err
	}
	versions, _, err := c.Svc.Store.R().CustomImageVersions(ctx, im.ID, 1<<30, 0)
	if err != nil {
		return err
	}
	err = c.Svc.Store.Tx(ctx, func(tx store.Q) error {
		if err := tx.DeleteCustomImage(ctx, im.ID); err != nil {
			return err
		}
		return sc.event(ctx, tx, "custom_image.deleted", map[string]any{"image_definition_id": im.ID, "name": im.Name})
	})
	if err == nil {
		for _, v := range versions {
			os.Remove(v.Path)
		}
	}
	return err
}

// DeleteVersion removes a custom image's version and its archive, unless
// a hosted runner names that version.
func (c *CustomImages) DeleteVersion(ctx context.Context, sc Scope, id int64, version string) error {
	v, err := c.Version(ctx, sc, id, version)
	if err != nil {
		return err
	}
	if err := c.inUse(ctx, sc, id, v.Version, "image version"); err != nil {
		return err
	}
	err = c.Svc.Store.Tx(ctx, func(tx store.Q) error {
		if err := tx.DeleteCustomImageVersion(ctx, v.ID); err != nil {
			return err
		}
		return sc.event(ctx, tx, "custom_image_version.deleted", map[string]any{"image_definition_id": id, "version": v.Version})
	})
	if err == nil {
		os.Remove(v.Path)
	}
	return err
}

// checkCustom validates a hosted runner's custom image id and version
// ("" or latest: the latest version at each job) for owner.
func (c *CustomImages) checkCustom(ctx context.Context, owner int64, id, version string) error {
	n, err := strconv.ParseInt(id, 10, 64)
	if err != nil {
		return model.Custom("HostedRunner", "image", fmt.Sprintf("Custom image %q not found.", id))
	}
	im, err := c.Svc.Store.R().CustomImage(ctx, owner, n, "")
	if errors.Is(err, model.ErrNotFound) {
		return model.Custom("HostedRunner", "image", fmt.Sprintf("Custom image %q not found.", id))
	}
	if err != nil {
		return err
	}
	if _, err := c.version(ctx, im.ID, version); errors.Is(err, model.ErrNotFound) {
		return model.Custom("HostedRunner", "image_version", fmt.Sprintf("Custom image %q has no version %q.", im.Name, version))
	} else if err != nil {
		return err
	}
	return nil
}

// jobHosted is the hosted runner a started job runs on (nil when it runs
// on a worker under the worker's own name).
func (c *CustomImages) jobHosted(ctx context.Context, jc actions.JobContext) (*model.HostedRunner, error) {
	q := c.Svc.Store.R()
	j, err := q.Job(ctx, jc.Repo.ID, jc.Job.ID)
	if err != nil || j.RunnerName == nil || *j.RunnerName == "" {
		return nil, err
	}
	owners := []int64{0}
	if jc.Repo.Owner != nil && jc.Repo.Owner.IsOrg() {
		owners = []int64{jc.Repo.Owner.ID, 0}
	}
	for _, owner := range owners {
		h, err := q.HostedRunner(ctx, owner, 0, *j.RunnerName)
		if errors.Is(err, model.ErrNotFound) {
			continue
		}
		return h, err
	}
	return nil, nil
}

// snapshotOf reads a job's snapshot: keyword (an image name, or a map of
// image-name and version); name "" when it has none.
func snapshotOf(source, key string) (name, version string, err error) {
	var doc struct {
		Jobs map[string]struct {
			Snapshot yaml.Node `yaml:"snapshot"`
		} `yaml:"jobs"`
	}
	if err := yaml.Unmarshal([]byte(source), &doc); err != nil {
		return "", "", nil // the workflow's own parse reports it
	}
	n := doc.Jobs[key].Snapshot
	switch n.Kind {
	case 0:
		return "", "", nil
	case yaml.ScalarNode:
		return n.Value, "", nil
	case yaml.MappingNode:
		var m struct {
			Name    string `yaml:"image-name"`
			Version string `yaml:"version"`
		}
		if err := n.Decode(&m); err != nil || m.Name == "" {
			return "", "", errors.New("snapshot: needs an image-name")
		}
		return m.Name, m.Version, nil
	}
	return "", "", errors.New("snapshot: is an image name or a mapping of image-name and version")
}

// snapshotMajor is the major version a snapshot's version asks for
// (GitHub's form N.* or N; 1 when absent).
func snapshotMajor(v string) (int64, error) {
	if v == "" {
		return 1, nil
	}
	n, err := strconv.ParseInt(strings.TrimSuffix(v, ".*"), 10, 64)
	if err != nil || n < 0 {
		return 0, fmt.Errorf("snapshot: version %q is not a major version (N or N.*)", v)
	}
	return n, nil
}

// Uploads are the trees a snapshot job's runner sends back when the job
// ends (its tool cache and home): the SnapshotHook captures them.
func (c *CustomImages) Uploads(jc actions.JobContext) []string {
	if name, _, _ := snapshotOf(jc.Run.Source, jc.Job.Key); name != "" {
		return []string{actions.FilesToolCache, actions.FilesHome}
	}
	return nil
}

// SnapshotHook captures a succeeded snapshot job of an image-generation
// hosted runner as its image's next version (an actions.AfterHook).
func (c *CustomImages) SnapshotHook(ctx context.Context, jc actions.JobContext, res actions.Result, log io.Writer) error {
	name, version, err := snapshotOf(jc.Run.Source, jc.Job.Key)
	if name == "" && err == nil {
		return nil
	}
	if err != nil {
		return err
	}
	if res.Conclusion != model.ConclusionSuccess {
		return nil // GitHub captures only a job that succeeded
	}
	h, err := c.jobHosted(ctx, jc)
	if err != nil {
		return err
	}
	if h == nil || !h.ImageGen {
		return fmt.Errorf("snapshot: %q was not captured: the job did not run on a hosted runner with image generation (image_gen)", name)
	}
	major, err := snapshotMajor(version)
	if err != nil {
		return err
	}
	v, err := c.capture(ctx, h, name, major, jc.Dir)
	if err != nil {
		return fmt.Errorf("snapshot: %v", err)
	}
	fmt.Fprintf(log, "%s Custom image %s version %s captured (%d bytes: the job's tool cache and home)\n",
		time.Now().UTC().Format("2006-01-02T15:04:05.0000000Z"), name, v.Version, v.SizeBytes)
	return nil
}

// capture archives the job directory dir's imageDirs as the next version of h's owner's
// image name (created with it the first time).
func (c *CustomImages) capture(ctx context.Context, h *model.HostedRunner, name string, major int64, dir string) (*model.CustomImageVersion, error) {
	if err := os.MkdirAll(c.Dir, 0o700); err != nil {
		return nil, err
	}
	f, err := os.CreateTemp(c.Dir, "capture-*.tar.gz")
	if err != nil {
		return nil, err
	}
	tmp := f.Name()
	size, err := writeArchive(f, dir)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		os.Remove(tmp)
		return nil, err
	}
	sc := Scope{Kind: model.RunnerEnterprise}
	if h.OrgID != 0 {
		sc = Scope{Kind: model.RunnerOrg, Org: &model.Account{ID: h.OrgID}}
	}
	v := &model.CustomImageVersion{State: "Ready", SizeBytes: size}
	// A concurrent snapshot of the same image may take the name or the
	// version number first: the next attempt sees it.
	moved := false
	for attempt := 0; attempt == 0 || (errors.Is(err, store.ErrDuplicate) && attempt < 3); attempt++ {
		err = c.recordVersion(ctx, sc, h, name, major, tmp, v, &moved)
	}
	if err != nil {
		os.Remove(tmp)
		if moved { // moved, then the transaction failed: the archive is no version's
			os.Remove(v.Path)
		}
		return nil, err
	}
	return v, nil
}

// recordVersion adds v, whose archive is tmp, as the next version of the
// image (created when new) and moves the archive to its place (moved).
func (c *CustomImages) recordVersion(ctx context.Context, sc Scope, h *model.HostedRunner, name string, major int64, tmp string,
	v *model.CustomImageVersion, moved *bool) error {
	return c.Svc.Store.Tx(ctx, func(tx store.Q) error {
		im, err := tx.CustomImage(ctx, h.OrgID, 0, name)
		if errors.Is(err, model.ErrNotFound) {
			im = &model.CustomImage{OrgID: h.OrgID, Name: name, Platform: h.Platform}
			err = tx.CreateCustomImage(ctx, im)
		}
		if err != nil {
			return err
		}
		minor, err := tx.NextCustomImageMinor(ctx, im.ID, major)
		if err != nil {
			return err
		}
		v.ImageID = im.ID
		v.Path = filepath.Join(c.Dir, fmt.Sprintf("%d-%d.%d.0.tar.gz", im.ID, major, minor))
		if err := tx.AddCustomImageVersion(ctx, v, major, minor, 0); err != nil {
			return err
		}
		if err := os.Rename(tmp, v.Path); err != nil {
			return err
		}
		*moved = true
		return sc.event(ctx, tx, "custom_image_version.created", map[string]any{"image_definition_id": im.ID, "name": name,
			"version": v.Version, "hosted_runner_id": h.ID})
	})
}

// writeArchive streams the job directory dir's imageDirs to w as a tar.gz and returns the
// bytes written.
func writeArchive(w io.Writer, dir string) (int64, error) {
	cw := &countWriter{w: w}
	gz := gzip.NewWriter(cw)
	tw := tar.NewWriter(gz)
	for _, sub := range imageDirNames {
		if err := tarball.AddTree(tw, imageDirs[sub](dir), sub); err != nil {
			return 0, err
		}
	}
	if err := tw.Close(); err != nil {
		return 0, err
	}
	if err := gz.Close(); err != nil {
		return 0, err
	}
	return cw.n, nil
}

type countWriter struct {
	w io.Writer
	n int64
}

func (c *countWriter) Write(p []byte) (int, error) {
	n, err := c.w.Write(p)
	c.n += int64(n)
	return n, err
}

// RestoreHook unpacks the custom image of the hosted runner a job runs on
// into the job's tool cache and home before its steps run (an
// actions.SpecHook).
func (c *CustomImages) RestoreHook(ctx context.Context, jc actions.JobContext, spec *actions.Spec) error {
	h, err := c.jobHosted(ctx, jc)
	if err != nil || h == nil || h.ImageSource != "custom" {
		return err
	}
	id, _ := strconv.ParseInt(h.ImageID, 10, 64)
	v, err := c.version(ctx, id, h.ImageVersion)
	if errors.Is(err, model.ErrNotFound) {
		return fmt.Errorf("the custom image %s (version %q) of hosted runner %s no longer exists", h.ImageID, h.ImageVersion, h.Name)
	}
	if err != nil {
		return err
	}
	if err := extractArchive(v.Path, jc.Dir); err != nil {
		return fmt.Errorf("custom image %s version %s: %v", h.ImageID, v.Version, err)
	}
	return nil
}

// extractArchive unpacks an image archive into the job directory dir:
// only entries under imageDirs, none leaving them.
func extractArchive(archive, dir string) error {
	f, err := os.Open(archive)
	if err != nil {
		return err
	}
	defer f.Close()
	gz, err := gzip.NewReader(f)
	if err != nil {
		return err
	}
	tr := tar.NewReader(gz)
	for {
		hdr, err := tr.Next()
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return err
		}
		top, rest, _ := strings.Cut(path.Clean(hdr.Name), "/")
		at := imageDirs[top]
		if rest == "" {
			rest = "."
		}
		if at == nil || !filepath.IsLocal(filepath.FromSlash(rest)) {
			return fmt.Errorf("archive entry %q is outside the tool cache and home", hdr.Name)
		}
		target := filepath.Join(at(dir), filepath.FromSlash(rest))
		mode := fs.FileMode(hdr.Mode).Perm()
		switch hdr.Typeflag {
		case tar.TypeDir:
			if err := os.MkdirAll(target, mode|0o700); err != nil {
				return err
			}
		case tar.TypeSymlink:
			os.Remove(target)
			if err := os.Symlink(hdr.Linkname, target); err != nil {
				return err
			}
		case tar.TypeReg:
			if err := os.MkdirAll(filepath.Dir(target), 0o700); err != nil {
				return err
			}
			out, err := os.OpenFile(target, os.O_CREATE|os.O_WRONLY|os.O_TRUNC, mode)
			if err != nil {
				return err
			}
			_, err = io.Copy(out, tr)
			if cerr := out.Close(); err == nil {
				err = cerr
			}
			if err != nil {
				return err
			}
		}
	}
}
