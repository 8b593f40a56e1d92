package actions

import (
	"archive/zip"
	"compress/gzip"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path"
	"path/filepath"
	"sort"
	"strings"

	"github.com/hubd/hubd/internal/model"
)

// The artifact protocol of @actions/artifact 1.x (upload-artifact@v3 and
// download-artifact@v3, what GitHub Enterprise Server's runners use): a
// file container per artifact whose items ("NAME/path") are uploaded in
// Content-Range chunks, optionally gzipped. Its artifacts are the same
// records as the results service's: on finalize the items become the
// artifact's zip (paths without the "NAME/" prefix, as GitHub's zips of
// v3 artifacts have them), and the container of any uploaded artifact
// lists and serves the files of its zip.

// containerItem is the sidecar of one item being uploaded.
type containerItem struct {
	Path     string `json:"path"`     // NAME/path as uploaded
	Total    int64  `json:"total"`    // bytes sent (gzipped when Gzip)
	Received int64  `json:"received"` // bytes received so far, in order
	Gzip     bool   `json:"gzip"`
}

// maxContainerItem bounds one item's uploaded size.
const maxContainerItem = 10 << 30

// itemRel checks an item path of an artifact: "NAME/rel" with a clean
// relative rel; it answers rel.
func itemRel(name, item string) (string, error) {
	rel, ok := strings.CutPrefix(strings.ReplaceAll(item, "\\", "/"), name+"/")
	if !ok || rel == "" || path.IsAbs(rel) || path.Clean(rel) != rel || rel == ".." || strings.HasPrefix(rel, "../") || strings.ContainsRune(rel, 0) {
		return "", model.BadRequest("The item path " + item + " is not a file of the artifact " + name + ".")
	}
	return rel, nil
}

// PutContainerItem keeps one chunk, bytes [start, end] of total, of an
// item of the token's pending artifact id. Chunks of an item come in
// order (a retried chunk may repeat); the job that created the artifact
// uploads.
func (st *Storage) PutContainerItem(ctx context.Context, rt *model.RuntimeToken, id int64, item string, start, end, total int64, gz bool, body io.Reader) error {
	name, _, _ := strings.Cut(strings.ReplaceAll(item, "\\", "/"), "/")
	a, err := st.PendingArtifact(ctx, rt.RepoID, rt.RunID, name)
	if err != nil || a.ID != id {
		if _, ferr := st.svc.Store.R().Artifact(ctx, rt.RepoID, id); ferr == nil {
			return model.Conflict("The artifact's upload is finalized.")
		}
		return model.ErrNotFound
	}
	if a.JobID != rt.JobID {
		return model.Forbidden("The artifact is uploaded by another job.")
	}
	if _, err := itemRel(name, item); err != nil {
		return err
	}
	if start < 0 || end < start-1 || total < end+1 || total > maxContainerItem || end-start+1 > maxBlock {
		return model.BadRequest("The Content-Range is not valid.")
	}
	dir := st.uploadDir("artifact", id)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return err
	}
	sum := sha256.Sum256([]byte(item))
	base := filepath.Join(dir, "item-"+hex.EncodeToString(sum[:16]))
	meta := containerItem{Path: item, Total: total, Gzip: gz}
	if b, err := os.ReadFile(base + ".json"); err == nil && start > 0 {
		if err := json.Unmarshal(b, &meta); err != nil {
			return err
		}
		if meta.Total != total || meta.Gzip != gz {
			return model.BadRequest("The chunk does not continue the item's upload.")
		}
	}
	if start > meta.Received {
		return model.BadRequest(fmt.Sprintf("The chunk starts at %d; %d bytes of the item were received.", start, meta.Received))
	}
	flag := os.O_CREATE | os.O_WRONLY
	if start == 0 {
		flag |= os.O_TRUNC
	}
	f, err := os.OpenFile(base+".data", flag, 0o600)
	if err != nil {
		return err
	}
	want := end - start + 1
	n, err := io.Copy(io.NewOffsetWriter(f, start), io.LimitReader(body, want))
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return err
	}
	if n != want {
		return model.BadRequest(fmt.Sprintf("The chunk has %d bytes, not the %d of its Content-Range.", n, want))
	}
	meta.Received = max(meta.Received, end+1)
	b, _ := json.Marshal(meta)
	return os.WriteFile(base+".json", b, 0o600)
}

// FinalizeContainer completes an upload of the protocol: the items
// received in full become the artifact's zip, which is then finalized as
// any upload (size, digest, event). It answers the artifact and the
// items' total size.
func (st *Storage) FinalizeContainer(ctx context.Context, rt *model.RuntimeToken, name string) (*model.Artifact, int64, error) {
	a, err := st.PendingArtifact(ctx, rt.RepoID, rt.RunID, name)
	if err != nil {
		return nil, 0, err
	}
	if a.JobID != rt.JobID {
		return nil, 0, model.Forbidden("The artifact is uploaded by another job.")
	}
	dir := st.uploadDir("artifact", a.ID)
	metas, _ := filepath.Glob(filepath.Join(dir, "item-*.json"))
	var items []containerItem
	bases := map[string]string{}
	for _, m := range metas {
		var it containerItem
		b, err := os.ReadFile(m)
		if err != nil {
			return nil, 0, err
		}
		if json.Unmarshal(b, &it) != nil || it.Received != it.Total {
			continue // an item whose upload failed is left out, as the client reports it
		}
		items = append(items, it)
		bases[it.Path] = strings.TrimSuffix(m, ".json")
	}
	sort.Slice(items, func(i, j int) bool { return items[i].Path < items[j].Path })
	dest := st.ArtifactPath(a.ID)
	if err := os.MkdirAll(filepath.Dir(dest), 0o700); err != nil {
		return nil, 0, err
	}
	tmp := dest + ".tmp"
	f, err := os.OpenFile(tmp, os.O_CREATE|os.O_TRUNC|os.O_WRONLY, 0o600)
	if err != nil {
		return nil, 0, err
	}
	defer os.Remove(tmp)
	zw := zip.NewWriter(f)
	var size int64
	for _, it := range items {
		rel, _ := itemRel(name, it.Path)
		n, err := addZipItem(zw, rel, bases[it.Path]+".data", it.Gzip)
		if err != nil {
			f.Close()
			return nil, 0, err
		}
		size += n
	}
	err = zw.Close()
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp, dest)
	}
	if err != nil {
		return nil, 0, err
	}
	a, err = st.FinalizeArtifact(ctx, rt, name, 0)
	if err != nil {
		return nil, 0, err
	}
	os.RemoveAll(dir)
	return a, size, nil
}

// addZipItem writes one uploaded item into the zip, ungzipped; it answers
// the file's size.
func addZipItem(zw *zip.Writer, rel, data string, gz bool) (int64, error) {
	src, err := os.Open(data)
	if err != nil {
		return 0, err
	}
	defer src.Close()
	var r io.Reader = src
	if gz {
		zr, err := gzip.NewReader(src)
		if err != nil {
			return 0, model.BadRequest("The item " + rel + " is not valid gzip.")
		}
		defer zr.Close()
		r = zr
	}
	w, err := zw.CreateHeader(&zip.FileHeader{Name: rel, Method: zip.Deflate})
	if err != nil {
		return 0, err
	}
	n, err := io.Copy(w, r)
	if err != nil && gz {
		err = model.BadRequest("The item " + rel + " is not valid gzip.")
	}
	return n, err
}

// ContainerFile is one file of an uploaded artifact's container.
type ContainerFile struct {
	Path string // NAME/path
	Size int64
}

// RunArtifact finds an uploaded artifact of the token's run.
func (st *Storage) RunArtifact(ctx context.Context, rt *model.RuntimeToken, id int64) (*model.Artifact, error) {
	a, err := st.svc.Store.R().Artifact(ctx, rt.RepoID, id)
	if err != nil || a.RunID != rt.RunID {
		return nil, model.ErrNotFound
	}
	return a, nil
}

// ContainerFiles lists the files of an uploaded artifact's zip.
func (st *Storage) ContainerFiles(a *model.Artifact) ([]ContainerFile, error) {
	zr, err := zip.OpenReader(st.ArtifactPath(a.ID))
	if err != nil {
		return nil, model.ErrNotFound
	}
	defer zr.Close()
	var out []ContainerFile
	for _, f := range zr.File {
		if strings.HasSuffix(f.Name, "/") {
			continue
		}
		out = append(out, ContainerFile{Path: a.Name + "/" + f.Name, Size: int64(f.UncompressedSize64)})
	}
	return out, nil
}

// OpenContainerFile opens one file (NAME/path) of an uploaded artifact's
// zip; the caller closes it.
func (st *Storage) OpenContainerFile(a *model.Artifact, item string) (io.ReadCloser, int64, error) {
	rel, err := itemRel(a.Name, item)
	if err != nil {
		return nil, 0, model.ErrNotFound
	}
	zr, err := zip.OpenReader(st.ArtifactPath(a.ID))
	if err != nil {
		return nil, 0, model.ErrNotFound
	}
	for _, f := range zr.File {
		if f.Name == rel {
			rc, err := f.Open()
			if err != nil {
				zr.Close()
				return nil, 0, err
			}
			return readCloser{rc, func() error { rc.Close(); return zr.Close() }}, int64(f.UncompressedSize64), nil
		}
	}
	zr.Close()
	return nil, 0, model.ErrNotFound
}

type readCloser struct {
	io.Reader
	close func() error
}

func (r readCloser) Close() error { return r.close() }
