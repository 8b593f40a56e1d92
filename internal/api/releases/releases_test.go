package releases_test

import (
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/google/go-github/v92/github"

	"github.com/hubd/hubd/internal/authz"
)

// A release on a new tag creates the tag (lightweight, at the default
// branch) that the real git client then sees; the release reads back by
// id, by tag, as the latest and in the list, in GitHub's shape.
func TestCreateMakesTag(t *testing.T) {
	f := newFixture(t)
	main := f.ref("refs/heads/main")
	rel, resp, err := f.gh.Repositories.CreateRelease(ctx, "mona", "app", github.CreateReleaseRequest{
		TagName: "v1.0.0", Name: github.Ptr("First"), Body: github.Ptr("Hello **world**")})
	if err != nil || resp.StatusCode != http.StatusCreated {
		t.Fatalf("create: %v", err)
	}
	if got := f.ref("refs/tags/v1.0.0"); got != main {
		t.Fatalf("tag v1.0.0 at %q, want main's %s", got, main)
	}
	if refs := lsRemote(t, f.remote()); refs["refs/tags/v1.0.0"] != main {
		t.Fatalf("git ls-remote: %v", refs)
	}
	api := f.e.API + "/repos/mona/app/releases/"
	if resp.Header.Get("Location") != rel.URL || !strings.HasPrefix(rel.URL, api) {
		t.Errorf("Location %q, url %q", resp.Header.Get("Location"), rel.URL)
	}
	id := rel.ID
	want := map[string]string{
		"upload_url":  f.e.URL + "/api/uploads/repos/mona/app/releases/" + itoa(id) + "/assets{?name,label}",
		"html_url":    f.e.URL + "/mona/app/releases/tag/v1.0.0",
		"assets_url":  api + itoa(id) + "/assets",
		"tarball_url": f.e.API + "/repos/mona/app/tarball/v1.0.0",
		"zipball_url": f.e.API + "/repos/mona/app/zipball/v1.0.0",
		"target":      "main",
		"author":      "mona",
		"name":        "First",
	}
	got := map[string]string{"upload_url": rel.UploadURL, "html_url": rel.HTMLURL, "assets_url": rel.AssetsURL,
		"tarball_url": rel.GetTarballURL(), "zipball_url": rel.GetZipballURL(), "target": rel.TargetCommitish,
		"author": rel.GetAuthor().GetLogin(), "name": rel.GetName()}
	for k, v := range want {
		if got[k] != v {
			t.Errorf("%s = %q, want %q", k, got[k], v)
		}
	}
	if rel.Draft || rel.Prerelease || rel.PublishedAt == nil || len(rel.Assets) != 0 || !strings.HasPrefix(rel.NodeID, "RE_") {
		t.Errorf("release %+v", rel)
	}
	// created_at is the date of the tagged commit, as GitHub documents.
	c, _, err := f.gh.Git.GetCommit(ctx, "mona", "app", main)
	if err != nil {
		t.Fatal(err)
	}
	if !rel.CreatedAt.Equal(c.GetCommitter().GetDate()) {
		t.Errorf("created_at %v, commit date %v", rel.CreatedAt, c.GetCommitter().GetDate())
	}

	for name, get := range map[string]func() (*github.RepositoryRelease, *github.Response, error){
		"by id": func() (*github.RepositoryRelease, *github.Response, error) {
			return f.gh.Repositories.GetRelease(ctx, "mona", "app", id)
		},
		"by tag": func() (*github.RepositoryRelease, *github.Response, error) {
			return f.gh.Repositories.GetReleaseByTag(ctx, "mona", "app", "v1.0.0")
		},
		"latest": func() (*github.RepositoryRelease, *github.Response, error) {
			return f.gh.Repositories.GetLatestRelease(ctx, "mona", "app")
		},
	} {
		r, _, err := get()
		if err != nil || r.ID != id || r.GetBody() != "Hello **world**" {
			t.Errorf("%s: %+v %v", name, r, err)
		}
	}
	// Anonymous callers read published releases.
	list, _, err := f.e.GitHub("").Repositories.ListReleases(ctx, "mona", "app", nil)
	if err != nil || len(list) != 1 || list[0].ID != id {
		t.Fatalf("anonymous list: %v %v", list, err)
	}
	// The html media type renders the body.
	h := f.e.Must(200, "GET", "/repos/mona/app/releases/"+itoa(id), "", nil, "Accept: application/vnd.github.html+json").Map(t)
	if html, _ := h["body_html"].(string); !strings.Contains(html, "<strong>world</strong>") || h["body"] != nil {
		t.Errorf("html media type: %v", h)
	}

	// An existing tag is used as it is: target_commitish is not used.
	f.e.Must(201, "POST", "/repos/mona/app/git/refs", f.token, map[string]any{"ref": "refs/heads/next", "sha": main})
	next := f.write("next", "n.txt", "n\n")
	rel2 := f.create(f.gh, github.CreateReleaseRequest{TagName: "v1.0.1", TargetCommitish: github.Ptr("next")})
	if f.ref("refs/tags/v1.0.1") != next || rel2.TargetCommitish != "next" || rel2.Name != nil || rel2.Body != nil {
		t.Fatalf("v1.0.1 on next: tag %s, release %+v", f.ref("refs/tags/v1.0.1"), rel2)
	}

	// The events of the writes.
	ev := strings.Join(f.events("release"), "\n")
	for _, want := range []string{`"action":"created"`, `"action":"published"`, `"action":"released"`, `"tag_name":"v1.0.1"`} {
		if !strings.Contains(ev, want) {
			t.Errorf("release events lack %s: %s", want, ev)
		}
	}
	// A tag push event records the tag the release made.
	if pe := strings.Join(f.events("push"), "\n"); !strings.Contains(pe, `"ref":"refs/tags/v1.0.0"`) {
		t.Errorf("no push event for the created tag: %s", pe)
	}
}

func itoa(n int64) string { return strconv.FormatInt(n, 10) }

// The refusals of creation and update, as GitHub answers them.
func TestCreateErrors(t *testing.T) {
	f := newFixture(t)
	f.create(f.gh, github.CreateReleaseRequest{TagName: "v1"})
	reader, _ := f.user("rita", authz.Read)
	for _, tc := range []struct {
		name   string
		gh     *github.Client
		req    github.CreateReleaseRequest
		status int
		field  string
	}{
		{"taken tag", f.gh, github.CreateReleaseRequest{TagName: "v1"}, 422, "Release.tag_name already_exists"},
		{"bad tag", f.gh, github.CreateReleaseRequest{TagName: "bad..tag"}, 422, "Release.tag_name invalid"},
		{"empty tag", f.gh, github.CreateReleaseRequest{TagName: ""}, 422, "Release.tag_name invalid"},
		{"unknown target", f.gh, github.CreateReleaseRequest{TagName: "v2", TargetCommitish: github.Ptr("nowhere")}, 422, "Release.target_commitish invalid"},
		{"read only", reader, github.CreateReleaseRequest{TagName: "v3"}, 403, ""},
		{"anonymous", f.e.GitHub(""), github.CreateReleaseRequest{TagName: "v3"}, 401, ""},
	} {
		_, _, err := tc.gh.Repositories.CreateRelease(ctx, "mona", "app", tc.req)
		if status(err) != tc.status || fieldError(err) != tc.field {
			t.Errorf("%s: %d %q (%v), want %d %q", tc.name, status(err), fieldError(err), err, tc.status, tc.field)
		}
	}
	if f.ref("refs/tags/v2") != "" || f.ref("refs/tags/v3") != "" {
		t.Error("a refused release created its tag")
	}
	// make_latest outside its enum is the schema's 422.
	f.e.Must(422, "POST", "/repos/mona/app/releases", f.token, map[string]any{"tag_name": "v4", "make_latest": "maybe"})
	// An archived repository is read-only.
	if _, _, err := f.gh.Repositories.Edit(ctx, "mona", "app", &github.Repository{Archived: github.Ptr(true)}); err != nil {
		t.Fatal(err)
	}
	if _, _, err := f.gh.Repositories.CreateRelease(ctx, "mona", "app", github.CreateReleaseRequest{TagName: "v5"}); status(err) != 403 {
		t.Errorf("archived: %v", err)
	}
	if list, _, err := f.gh.Repositories.ListReleases(ctx, "mona", "app", nil); err != nil || len(list) != 1 {
		t.Errorf("archived list: %v %v", list, err)
	}
}

// Drafts are seen only by those who may push, are never found by tag, may
// share a tag, and create their tag when published.
func TestDrafts(t *testing.T) {
	f := newFixture(t)
	reader, _ := f.user("rita", authz.Read)
	writer, _ := f.user("will", authz.Write)
	d1 := f.create(writer, github.CreateReleaseRequest{TagName: "v2.0.0", Draft: github.Ptr(true), Name: github.Ptr("Two")})
	d2 := f.create(f.gh, github.CreateReleaseRequest{TagName: "v2.0.0", Draft: github.Ptr(true)})
	if f.ref("refs/tags/v2.0.0") != "" {
		t.Fatal("a draft created its tag")
	}
	if !d1.Draft || d1.PublishedAt != nil || d1.TarballURL != nil || !strings.Contains(d1.HTMLURL, "/releases/tag/untagged-") {
		t.Errorf("draft %+v", d1)
	}
	for name, c := range map[string]*github.Client{"reader": reader, "anonymous": f.e.GitHub("")} {
		if list, _, err := c.Repositories.ListReleases(ctx, "mona", "app", nil); err != nil || len(list) != 0 {
			t.Errorf("%s lists %d releases (%v)", name, len(list), err)
		}
		if _, _, err := c.Repositories.GetRelease(ctx, "mona", "app", d1.ID); status(err) != 404 {
			t.Errorf("%s gets a draft: %v", name, err)
		}
	}
	if list, _, err := writer.Repositories.ListReleases(ctx, "mona", "app", nil); err != nil || len(list) != 2 {
		t.Errorf("writer lists %d releases (%v)", len(list), err)
	}
	if _, _, err := f.gh.Repositories.GetReleaseByTag(ctx, "mona", "app", "v2.0.0"); status(err) != 404 {
		t.Errorf("draft by tag: %v", err)
	}
	if f.latest() != "" {
		t.Errorf("a draft is latest")
	}
	// Publishing makes the tag at the target and the release latest.
	pub, _, err := writer.Repositories.UpdateRelease(ctx, "mona", "app", d1.ID, github.UpdateReleaseRequest{Draft: github.Ptr(false)})
	if err != nil || pub.Draft || pub.PublishedAt == nil || pub.GetName() != "Two" || pub.HTMLURL != f.e.URL+"/mona/app/releases/tag/v2.0.0" {
		t.Fatalf("publish: %+v %v", pub, err)
	}
	if f.ref("refs/tags/v2.0.0") != f.ref("refs/heads/main") {
		t.Fatal("publishing made no tag")
	}
	if f.latest() != "v2.0.0" {
		t.Errorf("latest %q after publishing", f.latest())
	}
	// The other draft cannot be published on the same tag.
	_, _, err = f.gh.Repositories.UpdateRelease(ctx, "mona", "app", d2.ID, github.UpdateReleaseRequest{Draft: github.Ptr(false)})
	if fieldError(err) != "Release.tag_name already_exists" {
		t.Errorf("second publication: %v", err)
	}
	// ... but can move to another tag and be published there.
	moved, _, err := f.gh.Repositories.UpdateRelease(ctx, "mona", "app", d2.ID, github.UpdateReleaseRequest{
		Draft: github.Ptr(false), TagName: github.Ptr("v2.0.1"), Prerelease: github.Ptr(true)})
	if err != nil || moved.TagName != "v2.0.1" || f.ref("refs/tags/v2.0.1") == "" {
		t.Fatalf("move and publish: %+v %v", moved, err)
	}
	// Readers may not edit or delete.
	if _, _, err := reader.Repositories.UpdateRelease(ctx, "mona", "app", pub.ID, github.UpdateReleaseRequest{Name: github.Ptr("x")}); status(err) != 403 {
		t.Errorf("reader edits: %v", err)
	}
	if _, err := reader.Repositories.DeleteRelease(ctx, "mona", "app", pub.ID); status(err) != 403 {
		t.Errorf("reader deletes: %v", err)
	}
	// Unpublishing makes it a draft again.
	back, _, err := f.gh.Repositories.UpdateRelease(ctx, "mona", "app", pub.ID, github.UpdateReleaseRequest{Draft: github.Ptr(true)})
	if err != nil || !back.Draft || back.PublishedAt != nil {
		t.Fatalf("unpublish: %+v %v", back, err)
	}
	ev := strings.Join(f.events("release"), "\n")
	for _, want := range []string{`"action":"unpublished"`, `"action":"prereleased"`, `"action":"edited"`} {
		if !strings.Contains(ev, want) {
			t.Errorf("events lack %s", want)
		}
	}
}

// latest follows make_latest (true, false, legacy), never a draft or a
// prerelease, and falls back to the legacy rule (newest, then highest
// version) when the marked release goes.
func TestLatest(t *testing.T) {
	f := newFixture(t)
	if _, _, err := f.gh.Repositories.GetLatestRelease(ctx, "mona", "app"); status(err) != 404 {
		t.Fatalf("no releases: %v", err)
	}
	v1 := f.create(f.gh, github.CreateReleaseRequest{TagName: "v1.0.0"})
	f.create(f.gh, github.CreateReleaseRequest{TagName: "v3.0.0-rc.1", Prerelease: github.Ptr(true)})
	if f.latest() != "v1.0.0" {
		t.Fatalf("latest %q, want v1.0.0 (a prerelease is never latest)", f.latest())
	}
	f.create(f.gh, github.CreateReleaseRequest{TagName: "v2.0.0", MakeLatest: github.Ptr("false")})
	if f.latest() != "v1.0.0" {
		t.Fatalf("latest %q after make_latest=false", f.latest())
	}
	f.create(f.gh, github.CreateReleaseRequest{TagName: "v1.1.0"})
	if f.latest() != "v1.1.0" {
		t.Fatalf("latest %q, want the newest marked v1.1.0", f.latest())
	}
	// legacy: all releases are on one commit (one created_at), so the
	// highest version of those not opted out wins.
	if _, _, err := f.gh.Repositories.UpdateRelease(ctx, "mona", "app", v1.ID, github.UpdateReleaseRequest{MakeLatest: github.Ptr("legacy")}); err != nil {
		t.Fatal(err)
	}
	if f.latest() != "v1.1.0" {
		t.Fatalf("legacy latest %q, want v1.1.0 (v2.0.0 opted out)", f.latest())
	}
	v4 := f.create(f.gh, github.CreateReleaseRequest{TagName: "v4.0.0", MakeLatest: github.Ptr("legacy")})
	if f.latest() != "v4.0.0" {
		t.Fatalf("legacy latest %q, want v4.0.0", f.latest())
	}
	// Deleting a release keeps its tag; the legacy rule picks the next.
	if _, err := f.gh.Repositories.DeleteRelease(ctx, "mona", "app", v4.ID); err != nil {
		t.Fatal(err)
	}
	if f.ref("refs/tags/v4.0.0") == "" {
		t.Error("deleting the release deleted its tag")
	}
	if _, _, err := f.gh.Repositories.GetRelease(ctx, "mona", "app", v4.ID); status(err) != 404 {
		t.Errorf("deleted release: %v", err)
	}
	if f.latest() != "v1.1.0" {
		t.Fatalf("latest %q after deleting v4.0.0", f.latest())
	}
	// A newer commit wins over a higher version under the legacy rule.
	f.write("main", "new.txt", "new\n")
	time.Sleep(1100 * time.Millisecond) // a later commit date than the first
	f.write("main", "newer.txt", "newer\n")
	f.create(f.gh, github.CreateReleaseRequest{TagName: "v0.9.0", MakeLatest: github.Ptr("legacy")})
	if f.latest() != "v0.9.0" {
		t.Fatalf("legacy latest %q, want v0.9.0 (newest commit)", f.latest())
	}
}

// Lists paginate in SQL with GitHub's Link header.
func TestListPages(t *testing.T) {
	f := newFixture(t)
	for _, tag := range []string{"a1", "a2", "a3", "a4", "a5"} {
		f.create(f.gh, github.CreateReleaseRequest{TagName: tag})
	}
	list, resp, err := f.gh.Repositories.ListReleases(ctx, "mona", "app", &github.ListOptions{PerPage: 2})
	if err != nil || len(list) != 2 || resp.NextPage != 2 || resp.LastPage != 3 {
		t.Fatalf("page 1: %d releases, next %d last %d, %v", len(list), resp.NextPage, resp.LastPage, err)
	}
	// Newest first: one commit, so by creation.
	if list[0].TagName != "a5" || list[1].TagName != "a4" {
		t.Errorf("order %s %s", list[0].TagName, list[1].TagName)
	}
	list, resp, err = f.gh.Repositories.ListReleases(ctx, "mona", "app", &github.ListOptions{PerPage: 2, Page: 3})
	if err != nil || len(list) != 1 || list[0].TagName != "a1" || resp.PrevPage != 2 {
		t.Fatalf("page 3: %v %v", list, err)
	}
}

// write commits path on branch through the contents API.
func (f *fixture) write(branch, path, content string) string {
	f.t.Helper()
	opts := &github.RepositoryContentFileOptions{Message: github.Ptr("write " + path), Content: []byte(content), Branch: github.Ptr(branch)}
	res, _, err := f.gh.Repositories.CreateFile(ctx, "mona", "app", path, opts)
	if err != nil {
		f.t.Fatalf("write %s on %s: %v", path, branch, err)
	}
	return res.GetSHA()
}

// A tag pushed by git gets a release; deleting the release leaves git's
// tag alone.
func TestReleaseOfPushedTag(t *testing.T) {
	f := newFixture(t)
	dir := t.TempDir()
	git(t, dir, "clone", "-q", f.remote(), "w")
	w := filepath.Join(dir, "w")
	os.WriteFile(filepath.Join(w, "x.txt"), []byte("x\n"), 0o644)
	git(t, w, "add", ".")
	git(t, w, "commit", "-q", "-m", "x")
	git(t, w, "tag", "-a", "v9", "-m", "nine")
	git(t, w, "push", "-q", "origin", "main", "v9", "HEAD~1:refs/heads/older")
	head := strings.TrimSpace(git(t, w, "rev-parse", "HEAD"))
	// A tag that exists keeps its commit whatever target_commitish names
	// (GitHub: "Unused if the Git tag already exists"; not refused).
	rel := f.create(f.gh, github.CreateReleaseRequest{TagName: "v9", TargetCommitish: github.Ptr("older")})
	if f.ref("refs/tags/v9") == "" || rel.GetTargetCommitish() != "older" {
		t.Fatalf("release of an existing tag: %+v", rel)
	}
	if _, err := f.gh.Repositories.DeleteRelease(ctx, "mona", "app", rel.ID); err != nil {
		t.Fatal(err)
	}
	git(t, w, "fetch", "-q", "--tags", "origin")
	if got := strings.TrimSpace(git(t, w, "rev-parse", "v9^{commit}")); got != head {
		t.Fatalf("v9 at %s after deleting its release, want %s", got, head)
	}
	// Deleting a tag over git makes its published release a draft.
	rel = f.create(f.gh, github.CreateReleaseRequest{TagName: "v9"})
	if f.latest() != "v9" {
		t.Fatalf("latest %q", f.latest())
	}
	git(t, w, "push", "-q", "origin", "--delete", "v9")
	got, _, err := f.gh.Repositories.GetRelease(ctx, "mona", "app", rel.ID)
	if err != nil || !got.Draft || got.PublishedAt != nil {
		t.Fatalf("release of a deleted tag: %+v %v", got, err)
	}
	if f.latest() != "" {
		t.Errorf("latest %q after its tag went", f.latest())
	}
	if _, _, err := f.e.GitHub("").Repositories.GetRelease(ctx, "mona", "app", rel.ID); status(err) != 404 {
		t.Errorf("anonymous sees the unpublished release: %v", err)
	}
}

// Tags may hold slashes: the release is found by such a tag, and its URLs
// keep them.
func TestSlashedTag(t *testing.T) {
	f := newFixture(t)
	rel := f.create(f.gh, github.CreateReleaseRequest{TagName: "release/v1"})
	if rel.HTMLURL != f.e.URL+"/mona/app/releases/tag/release/v1" || rel.GetTarballURL() != f.e.API+"/repos/mona/app/tarball/release/v1" {
		t.Errorf("urls %s %s", rel.HTMLURL, rel.GetTarballURL())
	}
	got, _, err := f.gh.Repositories.GetReleaseByTag(ctx, "mona", "app", "release/v1")
	if err != nil || got.ID != rel.ID {
		t.Fatalf("by tag: %v %v", got, err)
	}
	as, _, err := f.gh.Repositories.UploadReleaseAssetFromRelease(ctx, rel, &github.UploadOptions{Name: "a.txt"}, strings.NewReader("a"), 1)
	if err != nil || as.GetBrowserDownloadURL() != f.e.URL+"/mona/app/releases/download/release/v1/a.txt" {
		t.Fatalf("asset %v %v", as, err)
	}
	if r := f.e.Do("GET", as.GetBrowserDownloadURL(), "", nil); r.StatusCode != 200 || string(r.Body) != "a" {
		t.Errorf("download: %d %q", r.StatusCode, r.Body)
	}
	for _, p := range []string{"/repos/mona/app/releases/0", "/repos/mona/app/releases/x", "/repos/mona/app/releases/99999",
		"/repos/mona/app/releases/assets/99999", "/repos/mona/app/releases/99999/assets"} {
		if r := f.e.Do("GET", p, f.token, nil); r.StatusCode != 404 {
			t.Errorf("GET %s: %d", p, r.StatusCode)
		}
	}
}
