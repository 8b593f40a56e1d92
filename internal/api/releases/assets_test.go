package releases_test

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-github/v92/github"

	"github.com/hubd/hubd/internal/apitest"
	"github.com/hubd/hubd/internal/authz"
)

// assetFiles lists the asset files under the data directory.
func (f *fixture) assetFiles() []string {
	var out []string
	filepath.WalkDir(filepath.Join(f.e.DataDir, "release-assets"), func(p string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			out = append(out, p)
		}
		return nil
	})
	return out
}

// Uploads go to upload_url (GitHub Enterprise's /api/uploads), their
// bytes stream to a file, and they come back through the API (octet-stream)
// and browser_download_url, counted.
func TestUploadDownload(t *testing.T) {
	// The server's body limit is far below the asset: uploads stream past it.
	f := newFixture(t, apitest.Options{MaxBody: 4096})
	rel := f.create(f.gh, github.CreateReleaseRequest{TagName: "v1.0.0"})
	data := bytes.Repeat([]byte("hubd release asset\n"), 10000) // 190 kB
	sum := sha256.Sum256(data)
	path := filepath.Join(t.TempDir(), "app-linux.tar.gz")
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
	file, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer file.Close()
	// go-github posts to its upload URL, <host>/api/uploads/repos/...
	as, resp, err := f.gh.Repositories.UploadReleaseAsset(ctx, "mona", "app", rel.ID,
		&github.UploadOptions{Name: "app-linux.tar.gz", Label: "Linux build", MediaType: "application/gzip"}, file)
	if err != nil || resp.StatusCode != http.StatusCreated {
		t.Fatalf("upload: %v", err)
	}
	if as.GetName() != "app-linux.tar.gz" || as.GetLabel() != "Linux build" || as.GetSize() != len(data) ||
		as.GetState() != "uploaded" || as.GetContentType() != "application/gzip" || as.GetUploader().GetLogin() != "mona" ||
		as.GetDigest() != "sha256:"+hex.EncodeToString(sum[:]) || as.GetDownloadCount() != 0 || !strings.HasPrefix(as.GetNodeID(), "RA_") {
		t.Fatalf("asset %+v", as)
	}
	if as.GetBrowserDownloadURL() != f.e.URL+"/mona/app/releases/download/v1.0.0/app-linux.tar.gz" ||
		as.GetURL() != f.e.API+"/repos/mona/app/releases/assets/"+itoa(as.GetID()) {
		t.Errorf("urls %s %s", as.GetBrowserDownloadURL(), as.GetURL())
	}
	// The release's own upload_url works as given, and names are rewritten
	// as GitHub does.
	up, _, err := f.gh.Repositories.UploadReleaseAssetFromRelease(ctx, rel, &github.UploadOptions{Name: "my notes (final).txt"},
		strings.NewReader("notes\n"), 6)
	if err != nil || up.GetName() != "my.notes.final.txt" || up.GetLabel() != "" || up.Label != nil {
		t.Fatalf("upload from release: %+v %v", up, err)
	}
	// And a raw upload under /api/v3, with an explicit Content-Type.
	raw := f.e.Must(201, "POST", "/repos/mona/app/releases/"+itoa(rel.ID)+"/assets?name=sums.txt&label=Checksums", f.token,
		"abc  app-linux.tar.gz\n", "Content-Type: text/plain").Map(t)
	if raw["content_type"] != "text/plain" || raw["label"] != "Checksums" {
		t.Errorf("raw upload %v", raw)
	}
	// A name already taken is refused, and leaves no file behind.
	files := len(f.assetFiles())
	if files != 3 {
		t.Fatalf("%d asset files, want 3", files)
	}
	_, _, err = f.gh.Repositories.UploadReleaseAssetFromRelease(ctx, rel, &github.UploadOptions{Name: "sums.txt"}, strings.NewReader("x"), 1)
	if fieldError(err) != "ReleaseAsset.name already_exists" || len(f.assetFiles()) != files {
		t.Fatalf("duplicate name: %v (%d files)", err, len(f.assetFiles()))
	}

	// No name (or one that is nothing once rewritten): GitHub's 400, no file.
	for _, q := range []string{"", "?name=", "?name=..."} {
		r := f.e.Do("POST", f.e.URL+"/api/uploads/repos/mona/app/releases/"+itoa(rel.ID)+"/assets"+q, f.token, "data",
			"Content-Type: application/octet-stream")
		if r.StatusCode != 400 || !strings.Contains(string(r.Body), `"message":"Invalid name for request"`) || len(f.assetFiles()) != files {
			t.Errorf("upload %q: %d %s (%d files)", q, r.StatusCode, r.Body, len(f.assetFiles()))
		}
	}

	// The release lists its assets; so does the asset list, paginated.
	got, _, err := f.gh.Repositories.GetRelease(ctx, "mona", "app", rel.ID)
	if err != nil || len(got.Assets) != 3 || got.Assets[0].GetName() != "app-linux.tar.gz" {
		t.Fatalf("release assets: %v %v", got, err)
	}
	list, lr, err := f.gh.Repositories.ListReleaseAssets(ctx, "mona", "app", rel.ID, &github.ListOptions{PerPage: 2})
	if err != nil || len(list) != 2 || lr.NextPage != 2 {
		t.Fatalf("asset list: %v %v", list, err)
	}

	// go-github's download: the bytes are streamed (no redirect).
	rc, redirect, err := f.gh.Repositories.DownloadReleaseAsset(ctx, "mona", "app", as.GetID(), nil)
	if err != nil || redirect != "" {
		t.Fatalf("download: %q %v", redirect, err)
	}
	body, _ := io.ReadAll(rc)
	rc.Close()
	if !bytes.Equal(body, data) {
		t.Fatalf("downloaded %d bytes, want %d", len(body), len(data))
	}
	// browser_download_url, anonymously (a public repository).
	br, err := http.Get(as.GetBrowserDownloadURL())
	if err != nil {
		t.Fatal(err)
	}
	body, _ = io.ReadAll(br.Body)
	br.Body.Close()
	if br.StatusCode != 200 || !bytes.Equal(body, data) || br.Header.Get("Content-Type") != "application/octet-stream" ||
		!strings.Contains(br.Header.Get("Content-Disposition"), `filename=app-linux.tar.gz`) {
		t.Fatalf("browser download: %d %v (%d bytes)", br.StatusCode, br.Header, len(body))
	}
	// A range of it.
	rr := f.e.Do("GET", as.GetBrowserDownloadURL(), "", nil, "Range: bytes=0-3")
	if rr.StatusCode != 206 || string(rr.Body) != "hubd" {
		t.Errorf("range: %d %q", rr.StatusCode, rr.Body)
	}
	a2, _, err := f.gh.Repositories.GetReleaseAsset(ctx, "mona", "app", as.GetID())
	if err != nil || a2.GetDownloadCount() != 3 {
		t.Fatalf("download_count %d, want 3 (%v)", a2.GetDownloadCount(), err)
	}
	// Unknown names and tags are 404.
	if r := f.e.Do("GET", f.e.URL+"/mona/app/releases/download/v1.0.0/nope.zip", "", nil); r.StatusCode != 404 {
		t.Errorf("unknown asset: %d", r.StatusCode)
	}
	if r := f.e.Do("GET", f.e.URL+"/mona/app/releases/download/v9/app-linux.tar.gz", "", nil); r.StatusCode != 404 {
		t.Errorf("unknown tag: %d", r.StatusCode)
	}

	// Edits: name and label; a taken name is refused.
	ed, _, err := f.gh.Repositories.UpdateReleaseAsset(ctx, "mona", "app", as.GetID(), github.UpdateReleaseAssetRequest{
		Name: github.Ptr("app-linux-amd64.tar.gz"), Label: github.Ptr("Linux (amd64)")})
	if err != nil || ed.GetName() != "app-linux-amd64.tar.gz" || ed.GetLabel() != "Linux (amd64)" {
		t.Fatalf("edit: %+v %v", ed, err)
	}
	_, _, err = f.gh.Repositories.UpdateReleaseAsset(ctx, "mona", "app", as.GetID(), github.UpdateReleaseAssetRequest{Name: github.Ptr("sums.txt")})
	if fieldError(err) != "ReleaseAsset.name already_exists" {
		t.Errorf("edit to a taken name: %v", err)
	}
	// Readers may not change assets.
	reader, _ := f.user("rita", authz.Read)
	if _, err := reader.Repositories.DeleteReleaseAsset(ctx, "mona", "app", as.GetID()); status(err) != 403 {
		t.Errorf("reader deletes an asset: %v", err)
	}
	if _, _, err := reader.Repositories.UploadReleaseAssetFromRelease(ctx, rel, &github.UploadOptions{Name: "r.txt"}, strings.NewReader("r"), 1); status(err) != 403 {
		t.Errorf("reader uploads: %v", err)
	}
	// Deleting an asset removes its file.
	if _, err := f.gh.Repositories.DeleteReleaseAsset(ctx, "mona", "app", as.GetID()); err != nil {
		t.Fatal(err)
	}
	if _, _, err := f.gh.Repositories.GetReleaseAsset(ctx, "mona", "app", as.GetID()); status(err) != 404 {
		t.Errorf("deleted asset: %v", err)
	}
	if n := len(f.assetFiles()); n != 2 {
		t.Errorf("%d files after deleting an asset, want 2", n)
	}
	// Deleting the release removes the rest.
	if _, err := f.gh.Repositories.DeleteRelease(ctx, "mona", "app", rel.ID); err != nil {
		t.Fatal(err)
	}
	if n := len(f.assetFiles()); n != 0 {
		t.Errorf("%d files after deleting the release", n)
	}
	ev := strings.Join(f.events("release_asset"), "\n")
	for _, want := range []string{`"action":"created"`, `"action":"edited"`, `"action":"deleted"`} {
		if !strings.Contains(ev, want) {
			t.Errorf("asset events lack %s: %s", want, ev)
		}
	}
}

// Assets of a private repository and of drafts are hidden like them.
func TestAssetVisibility(t *testing.T) {
	f := newFixture(t)
	if _, _, err := f.gh.Repositories.Create(ctx, "", &github.Repository{Name: github.Ptr("secret"), Private: github.Ptr(true), AutoInit: github.Ptr(true)}); err != nil {
		t.Fatal(err)
	}
	rel, _, err := f.gh.Repositories.CreateRelease(ctx, "mona", "secret", github.CreateReleaseRequest{TagName: "v1"})
	if err != nil {
		t.Fatal(err)
	}
	as, _, err := f.gh.Repositories.UploadReleaseAssetFromRelease(ctx, rel, &github.UploadOptions{Name: "s.bin"}, strings.NewReader("secret"), 6)
	if err != nil {
		t.Fatal(err)
	}
	u := as.GetBrowserDownloadURL()
	if r := f.e.Do("GET", u, "", nil); r.StatusCode != 404 {
		t.Errorf("anonymous download of a private asset: %d", r.StatusCode)
	}
	if r := f.e.Do("GET", u, f.token, nil); r.StatusCode != 200 || string(r.Body) != "secret" {
		t.Errorf("owner download: %d %q", r.StatusCode, r.Body)
	}
	if _, _, err := f.e.GitHub("").Repositories.GetReleaseAsset(ctx, "mona", "secret", as.GetID()); status(err) != 404 {
		t.Errorf("anonymous asset: %v", err)
	}

	// A draft's assets: its browser_download_url names its untagged key.
	draft := f.create(f.gh, github.CreateReleaseRequest{TagName: "v2", Draft: github.Ptr(true)})
	da, _, err := f.gh.Repositories.UploadReleaseAssetFromRelease(ctx, draft, &github.UploadOptions{Name: "d.bin"}, strings.NewReader("draft"), 5)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(da.GetBrowserDownloadURL(), "/releases/download/untagged-") {
		t.Errorf("draft asset url %s", da.GetBrowserDownloadURL())
	}
	reader, _ := f.user("rita", authz.Read)
	if _, _, err := reader.Repositories.GetReleaseAsset(ctx, "mona", "app", da.GetID()); status(err) != 404 {
		t.Errorf("reader sees a draft's asset: %v", err)
	}
	if _, _, err := reader.Repositories.ListReleaseAssets(ctx, "mona", "app", draft.ID, nil); status(err) != 404 {
		t.Errorf("reader lists a draft's assets: %v", err)
	}
	if r := f.e.Do("GET", da.GetBrowserDownloadURL(), "", nil); r.StatusCode != 404 {
		t.Errorf("anonymous draft download: %d", r.StatusCode)
	}
	if r := f.e.Do("GET", da.GetBrowserDownloadURL(), f.token, nil); r.StatusCode != 200 || string(r.Body) != "draft" {
		t.Errorf("owner draft download: %d %q", r.StatusCode, r.Body)
	}
}

// An upload announced above GitHub's 2 GiB limit is refused before its
// body is read.
func TestUploadTooLarge(t *testing.T) {
	f := newFixture(t)
	rel := f.create(f.gh, github.CreateReleaseRequest{TagName: "v1"})
	conn, err := net.Dial("tcp", strings.TrimPrefix(f.e.URL, "http://"))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	fmt.Fprintf(conn, "POST /api/uploads/repos/mona/app/releases/%d/assets?name=big.iso HTTP/1.1\r\nHost: x\r\nAuthorization: token %s\r\n"+
		"Content-Type: application/octet-stream\r\nContent-Length: %d\r\n\r\n", rel.ID, f.token, int64(3)<<30)
	resp, err := http.ReadResponse(bufio.NewReader(conn), nil)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != 422 || !strings.Contains(string(b), "ReleaseAsset") {
		t.Fatalf("3 GiB upload: %d %s", resp.StatusCode, b)
	}
	if n := len(f.assetFiles()); n != 0 {
		t.Errorf("%d files after a refused upload", n)
	}
}
