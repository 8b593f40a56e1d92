package main

import (
	"bufio"
	"bytes"
	"context"
	"crypto/sha256"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-github/v92/github"
)

// memKB reads a line of /proc/PID/status (VmRSS, VmHWM) in kB.
func memKB(t *testing.T, pid int, field string) int64 {
	t.Helper()
	f, err := os.Open(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		t.Fatalf("read the server's memory: %v", err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if v, ok := strings.CutPrefix(sc.Text(), field+":"); ok {
			n, err := strconv.ParseInt(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(v), "kB")), 10, 64)
			if err != nil {
				t.Fatal(err)
			}
			return n
		}
	}
	t.Fatalf("no %s in /proc/%d/status", field, pid)
	return 0
}

// TestAssetStreaming uploads a 200 MB release asset to a `hubd serve`
// process with go-github and downloads it back (the API and
// browser_download_url, and a range of it): the bytes stream through, so
// the server's peak resident memory (VmHWM) stays within 100 MB of what it
// used idle. An asset above --max-asset is refused with GitHub's error and
// leaves no file.
func TestAssetStreaming(t *testing.T) {
	c := newCLI(t)
	c.ok("user", "create", "--login", "mona")
	tok := strings.TrimSpace(c.ok("token", "create", "--user", "mona", "--scopes", "repo"))
	const size = 200 << 20
	s := c.serve("--max-asset", strconv.Itoa(size))
	ctx := context.Background()
	gh, err := github.NewClient(github.WithEnterpriseURLs(s.base+"/api/v3/", s.base+"/api/uploads/"), github.WithAuthToken(tok))
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := gh.Repositories.Create(ctx, "", &github.Repository{Name: github.Ptr("big"), AutoInit: github.Ptr(true)}); err != nil {
		t.Fatal(err)
	}
	rel, _, err := gh.Repositories.CreateRelease(ctx, "mona", "big", github.CreateReleaseRequest{TagName: "v1"})
	if err != nil {
		t.Fatal(err)
	}

	// The file: 200 MB of pseudo-random bytes.
	path := filepath.Join(t.TempDir(), "big.bin")
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	rng := rand.NewChaCha8([32]byte{1})
	sum := sha256.New()
	if _, err := io.CopyN(io.MultiWriter(f, sum), rng, size); err != nil {
		t.Fatal(err)
	}
	want := sum.Sum(nil)
	if _, err := f.Seek(0, io.SeekStart); err != nil {
		t.Fatal(err)
	}
	defer f.Close()

	pid := s.cmd.Process.Pid
	idle := memKB(t, pid, "VmRSS")
	as, _, err := gh.Repositories.UploadReleaseAsset(ctx, "mona", "big", rel.GetID(), &github.UploadOptions{Name: "big.bin"}, f)
	if err != nil {
		t.Fatal(err)
	}
	if as.GetSize() != size {
		t.Fatalf("uploaded size %d", as.GetSize())
	}
	rc, redirect, err := gh.Repositories.DownloadReleaseAsset(ctx, "mona", "big", as.GetID(), nil)
	if err != nil || redirect != "" {
		t.Fatalf("download: %q %v", redirect, err)
	}
	got := sha256.New()
	n, err := io.Copy(got, rc)
	rc.Close()
	if err != nil || n != size || !bytes.Equal(got.Sum(nil), want) {
		t.Fatalf("downloaded %d bytes (%v), digest matches: %v", n, err, bytes.Equal(got.Sum(nil), want))
	}
	// browser_download_url, whole and a range in the middle.
	resp, err := http.Get(as.GetBrowserDownloadURL())
	if err != nil {
		t.Fatal(err)
	}
	n, _ = io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 200 || n != size {
		t.Fatalf("browser download: %d, %d bytes", resp.StatusCode, n)
	}
	req, _ := http.NewRequest("GET", as.GetBrowserDownloadURL(), nil)
	req.Header.Set("Range", "bytes=104857600-104857615")
	resp, err = http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	part, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if _, err := f.Seek(104857600, io.SeekStart); err != nil {
		t.Fatal(err)
	}
	wantPart := make([]byte, 16)
	io.ReadFull(f, wantPart)
	if resp.StatusCode != http.StatusPartialContent || !bytes.Equal(part, wantPart) ||
		resp.Header.Get("Content-Range") != fmt.Sprintf("bytes 104857600-104857615/%d", size) {
		t.Errorf("range: %d %q %x", resp.StatusCode, resp.Header.Get("Content-Range"), part)
	}
	peak := memKB(t, pid, "VmHWM")
	t.Logf("hubd serve: idle RSS %d MB, peak RSS %d MB after a %d MB upload and three downloads", idle>>10, peak>>10, size>>20)
	if peak-idle > 100<<10 {
		t.Errorf("peak RSS %d kB is %d kB above the idle %d kB (limit 100 MB)", peak, peak-idle, idle)
	}
	a2, _, err := gh.Repositories.GetReleaseAsset(ctx, "mona", "big", as.GetID())
	if err != nil || a2.GetDownloadCount() != 3 {
		t.Errorf("download_count %d (%v), want 3", a2.GetDownloadCount(), err)
	}

	// One byte over --max-asset: 422 with GitHub's error, nothing stored.
	over := io.LimitReader(rng, size+1)
	_, resp2, err := gh.Repositories.UploadReleaseAssetFromRelease(ctx, rel, &github.UploadOptions{Name: "over.bin"}, over, size+1)
	var ge *github.ErrorResponse
	if err == nil || !errors.As(err, &ge) || resp2 == nil || ge.Response.StatusCode != 422 || len(ge.Errors) != 1 || ge.Errors[0].Resource != "ReleaseAsset" {
		t.Errorf("upload over --max-asset: %v", err)
	}
	files := 0
	filepath.Walk(filepath.Join(c.data, "release-assets"), func(_ string, fi os.FileInfo, err error) error {
		if err == nil && !fi.IsDir() {
			files++
		}
		return nil
	})
	if files != 1 {
		t.Errorf("%d asset files after a refused upload, want 1", files)
	}
}
