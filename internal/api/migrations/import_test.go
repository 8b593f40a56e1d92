package migrations_test

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"context"
	"encoding/base64"
	"fmt"
	"io"
	"mime/multipart"
	"net/http"
	"reflect"
	"sort"
	"strings"
	"testing"

	"github.com/hubd/hubd/internal/apitest"
	"github.com/hubd/hubd/internal/model"
	"github.com/hubd/hubd/internal/store"
)

// populate fills acme/widgets of e with one of everything an archive
// carries: labels, a milestone, issues with comments and events, a pull
// request with a review, review comments and a reply, merged; a release
// and a protected branch. rita comments and reviews.
// more adds records before the webhook is made (so that they queue no
// deliveries to its unreachable URL).
func populate(t *testing.T, e *apitest.Env, tok, ritaTok string, more ...func(*testing.T, *apitest.Env, string, string)) {
	t.Helper()
	e.Must(201, "POST", "/admin/organizations", e.AdminToken, map[string]any{"login": "acme", "admin": "mona"})
	e.Must(201, "POST", "/orgs/acme/repos", tok, map[string]any{"name": "widgets", "auto_init": true, "description": "Widgets"})
	e.Must(201, "POST", "/repos/acme/widgets/labels", tok, map[string]any{"name": "needs triage", "color": "ff0000", "description": "new"})
	e.Must(201, "POST", "/repos/acme/widgets/milestones", tok, map[string]any{"title": "v1", "description": "first"})
	e.Must(201, "POST", "/repos/acme/widgets/milestones", tok, map[string]any{"title": "v2"})
	e.Must(201, "POST", "/repos/acme/widgets/issues", tok, map[string]any{"title": "First bug", "body": "It breaks",
		"labels": []string{"bug", "needs triage"}, "milestone": 1, "assignees": []string{"mona"}})
	e.Must(201, "POST", "/repos/acme/widgets/issues/1/comments", ritaTok, map[string]any{"body": "Confirmed here"})
	e.Must(201, "POST", "/repos/acme/widgets/issues/1/comments", tok, map[string]any{"body": "Fixing"})
	e.Must(200, "PATCH", "/repos/acme/widgets/issues/1", tok, map[string]any{"state": "closed", "title": "First bug (renamed)"})
	e.Must(201, "POST", "/repos/acme/widgets/issues", ritaTok, map[string]any{"title": "Second", "body": "open one"})

	main := e.Must(200, "GET", "/repos/acme/widgets/git/ref/heads/main", tok, nil).Map(t)["object"].(map[string]any)["sha"]
	e.Must(201, "POST", "/repos/acme/widgets/git/refs", tok, map[string]any{"ref": "refs/heads/feature", "sha": main})
	e.Must(201, "PUT", "/repos/acme/widgets/contents/lib.go", tok, map[string]any{"message": "Add lib", "branch": "feature",
		"content": base64.StdEncoding.EncodeToString([]byte("package lib\n\nfunc A() {}\n"))})
	e.Must(201, "POST", "/repos/acme/widgets/pulls", tok, map[string]any{"title": "Add lib", "body": "Please", "head": "feature", "base": "main"})
	e.RunJobs()
	rv := e.Must(200, "POST", "/repos/acme/widgets/pulls/3/reviews", ritaTok, map[string]any{"event": "COMMENT", "body": "Looks fine",
		"comments": []map[string]any{{"path": "lib.go", "position": 1, "body": "Name it better"}}}).Map(t)
	var rc []map[string]any
	e.Must(200, "GET", fmt.Sprintf("/repos/acme/widgets/pulls/3/reviews/%v/comments", rv["id"]), tok, nil).JSON(t, &rc)
	e.Must(201, "POST", fmt.Sprintf("/repos/acme/widgets/pulls/3/comments/%v/replies", rc[0]["id"]), tok, map[string]any{"body": "Done"})
	e.Must(200, "POST", "/repos/acme/widgets/pulls/3/reviews", ritaTok, map[string]any{"event": "APPROVE", "body": "Ship it"})
	e.Must(200, "PUT", "/repos/acme/widgets/pulls/3/merge", tok, map[string]any{"merge_method": "merge"})
	e.Must(201, "POST", "/repos/acme/widgets/issues/3/comments", tok, map[string]any{"body": "Merged, thanks"})
	// An open pull request too.
	e.Must(201, "POST", "/repos/acme/widgets/git/refs", tok, map[string]any{"ref": "refs/heads/other", "sha": main})
	e.Must(201, "PUT", "/repos/acme/widgets/contents/other.txt", tok, map[string]any{"message": "Other", "branch": "other",
		"content": base64.StdEncoding.EncodeToString([]byte("other\n"))})
	e.Must(201, "POST", "/repos/acme/widgets/pulls", ritaTok, map[string]any{"title": "Open one", "head": "other", "base": "main"})
	e.Must(201, "POST", "/repos/acme/widgets/releases", tok, map[string]any{"tag_name": "v1.0", "name": "One", "body": "notes"})
	e.Must(200, "PUT", "/repos/acme/widgets/branches/main/protection", tok, map[string]any{
		"required_status_checks": map[string]any{"strict": true, "contexts": []string{"ci"}}, "enforce_admins": false,
		"required_pull_request_reviews": map[string]any{"required_approving_review_count": 1}, "restrictions": nil})
	for _, f := range more {
		f(t, e, tok, ritaTok)
	}
	// A webhook with a secret, written to the store: one made through the
	// API would queue a ping that retries past the test's job wait.
	ctx := context.Background()
	v, err := e.Store.R().RepoByName(ctx, "acme", "widgets", 0)
	if err != nil {
		t.Fatal(err)
	}
	if err := e.Store.Tx(ctx, func(tx store.Q) error {
		return tx.CreateHook(ctx, &model.Hook{RepoID: v.Repo.ID, Name: "web", Active: true, Events: []string{"push", "issues"},
			URL: "https://hooks.example.com/widgets", ContentType: "json", Secret: "s3cret-value", InsecureSSL: "0"})
	}); err != nil {
		t.Fatal(err)
	}
	e.RunJobs()
}

// populateMore adds to populate's repository what the archive carries
// besides: a release asset, reactions on each kind of subject, a locked
// issue, milestone numbers with a gap, a commit comment, a collaborator and
// a team's grant.
func populateMore(t *testing.T, e *apitest.Env, tok, ritaTok string) {
	t.Helper()
	main := e.Must(200, "GET", "/repos/acme/widgets/git/ref/heads/main", tok, nil).Map(t)["object"].(map[string]any)["sha"]
	var rels []map[string]any
	e.Must(200, "GET", "/repos/acme/widgets/releases", tok, nil).JSON(t, &rels)
	rel := rels[0]
	e.Must(201, "POST", fmt.Sprintf("/repos/acme/widgets/releases/%v/assets?name=tool.txt&label=Tool", rel["id"]), tok,
		"the tool\n", "Content-Type: text/plain")
	// Reactions on each kind of subject, a locked issue, milestone numbers
	// with a gap, a commit comment, a collaborator and a team's grant.
	e.Must(201, "POST", "/repos/acme/widgets/issues/1/reactions", ritaTok, map[string]any{"content": "+1"})
	e.Must(201, "POST", "/repos/acme/widgets/issues/1/reactions", tok, map[string]any{"content": "heart"})
	e.Must(201, "POST", "/repos/acme/widgets/issues/3/reactions", ritaTok, map[string]any{"content": "rocket"})
	var cs []map[string]any
	e.Must(200, "GET", "/repos/acme/widgets/issues/1/comments", tok, nil).JSON(t, &cs)
	e.Must(201, "POST", fmt.Sprintf("/repos/acme/widgets/issues/comments/%v/reactions", cs[0]["id"]), tok, map[string]any{"content": "laugh"})
	var rc []map[string]any
	e.Must(200, "GET", "/repos/acme/widgets/pulls/comments", tok, nil).JSON(t, &rc)
	e.Must(201, "POST", fmt.Sprintf("/repos/acme/widgets/pulls/comments/%v/reactions", rc[0]["id"]), tok, map[string]any{"content": "eyes"})
	e.Must(201, "POST", fmt.Sprintf("/repos/acme/widgets/releases/%v/reactions", rel["id"]), ritaTok, map[string]any{"content": "hooray"})
	cc := e.Must(201, "POST", fmt.Sprintf("/repos/acme/widgets/commits/%v/comments", main), tok, map[string]any{"body": "Nice start"}).Map(t)
	e.Must(201, "POST", fmt.Sprintf("/repos/acme/widgets/comments/%v/reactions", cc["id"]), ritaTok, map[string]any{"content": "-1"})
	e.Must(204, "PUT", "/repos/acme/widgets/issues/2/lock", tok, map[string]any{"lock_reason": "resolved"})
	e.Must(201, "POST", "/repos/acme/widgets/milestones", tok, map[string]any{"title": "scratch"})
	e.Must(201, "POST", "/repos/acme/widgets/milestones", tok, map[string]any{"title": "v4", "state": "closed"})
	e.Must(204, "DELETE", "/repos/acme/widgets/milestones/3", tok, nil)
	inv := e.Must(201, "PUT", "/repos/acme/widgets/collaborators/rita", tok, map[string]any{"permission": "triage"}).Map(t)
	e.Must(204, "PATCH", fmt.Sprintf("/user/repository_invitations/%v", inv["id"]), ritaTok, nil)
	e.Must(201, "POST", "/orgs/acme/teams", tok, map[string]any{"name": "Core", "description": "core team", "privacy": "closed",
		"repo_names": []string{"acme/widgets"}})
	e.Must(204, "PUT", "/orgs/acme/teams/core/repos/acme/widgets", tok, map[string]any{"permission": "maintain"})
}

// exportArchive exports acme/widgets and answers the archive's bytes.
func exportArchive(t *testing.T, e *apitest.Env, tok string) []byte {
	t.Helper()
	m := e.Must(201, "POST", "/orgs/acme/migrations", tok, map[string]any{"repositories": []string{"widgets"}}).Map(t)
	path := fmt.Sprintf("/orgs/acme/migrations/%v", m["id"])
	waitState(t, e, path, tok, "exported")
	resp, err := http.Get(archiveURL(t, e, path+"/archive", tok))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil || resp.StatusCode != 200 {
		t.Fatalf("archive: %d %v", resp.StatusCode, err)
	}
	return b
}

func archiveURL(t *testing.T, e *apitest.Env, path, tok string) string {
	t.Helper()
	req, _ := http.NewRequest("GET", e.API+path, nil)
	req.Header.Set("Authorization", "token "+tok)
	c := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	resp, err := c.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != 302 {
		t.Fatalf("archive: %d", resp.StatusCode)
	}
	return resp.Header.Get("Location")
}

// view is what a comparison reads of an API answer: the fields named, with
// account logins renamed by users and host-specific URLs left out.
func view(t *testing.T, e *apitest.Env, tok, path string, users map[string]string, fields ...string) []string {
	t.Helper()
	var list []map[string]any
	e.Must(200, "GET", path, tok, nil).JSON(t, &list)
	var out []string
	for _, it := range list {
		var parts []string
		for _, f := range fields {
			parts = append(parts, f+"="+pick(it, f, users))
		}
		out = append(out, strings.Join(parts, " "))
	}
	return out
}

// pick reads a dotted field; accounts (objects with a login) and lists of
// them or of labels read as their logins and names.
func pick(v any, f string, users map[string]string) string {
	for _, k := range strings.Split(f, ".") {
		m, ok := v.(map[string]any)
		if !ok {
			return "<none>"
		}
		v = m[k]
	}
	if l, ok := v.(string); ok && strings.HasSuffix(f, "login") && users[l] != "" {
		return users[l]
	}
	switch x := v.(type) {
	case map[string]any:
		if l, ok := x["login"].(string); ok {
			if to, ok := users[l]; ok {
				return to
			}
			return l
		}
		if n, ok := x["title"]; ok {
			return fmt.Sprint(n)
		}
	case []any:
		var names []string
		for _, it := range x {
			names = append(names, pick(map[string]any{"x": it}, "x", users))
			if m, ok := it.(map[string]any); ok && m["name"] != nil {
				names[len(names)-1] = fmt.Sprint(m["name"])
			}
		}
		sort.Strings(names)
		return strings.Join(names, ",")
	}
	return fmt.Sprint(v)
}

func importArchive(t *testing.T, e *apitest.Env, archive []byte, mapping string, query string, want int) map[string]any {
	t.Helper()
	var body bytes.Buffer
	mw := multipart.NewWriter(&body)
	fw, _ := mw.CreateFormFile("archive", "archive.tar.gz")
	fw.Write(archive)
	if mapping != "" {
		mw.WriteField("mapping", mapping)
	}
	mw.Close()
	return e.Must(want, "POST", "/admin/migrations/import"+query, e.AdminToken, body.Bytes(), "Content-Type: "+mw.FormDataContentType()).Map(t)
}

// TestImportRoundTrip exports a populated repository, imports the archive
// into a fresh hubd (rita mapped onto rebecca there) and compares the two
// through the API.
func TestImportRoundTrip(t *testing.T) {
	src := apitest.New(t)
	_, tok := src.NewUser("mona", false)
	_, ritaTok := src.NewUser("rita", false)
	populate(t, src, tok, ritaTok, populateMore)
	archive := exportArchive(t, src, tok)
	zr, err := gzip.NewReader(bytes.NewReader(archive))
	if err != nil {
		t.Fatal(err)
	}
	if plain, err := io.ReadAll(zr); err != nil || bytes.Contains(plain, []byte("s3cret-value")) || !bytes.Contains(plain, []byte("https://hooks.example.com/widgets")) {
		t.Fatalf("the archive holds the hook without its secret: %v", err)
	}

	dst := apitest.New(t)
	_, dtok := dst.NewUser("mona", false)
	dst.NewUser("rebecca", false)

	// The organization is missing, rita is unknown: conflicts, nothing written.
	rep := importArchive(t, dst, archive, "", "?dry_run=true", 200)
	if got := fmt.Sprint(rep["conflicts"]); !strings.Contains(got, "model_name:organization") || !strings.Contains(got, src.URL+"/rita") {
		t.Fatalf("conflicts: %v", rep)
	}
	dst.Must(201, "POST", "/admin/organizations", dst.AdminToken, map[string]any{"login": "acme", "admin": "mona"})
	dst.Must(404, "GET", "/repos/acme/widgets", dtok, nil)
	mapping := "model_name,source_url,target_url,recommended_action\nuser," + src.URL + "/rita," + dst.URL + "/rebecca,map\n"
	rep = importArchive(t, dst, archive, mapping, "", 201)
	if fmt.Sprint(rep["conflicts"]) != "[]" || fmt.Sprint(rep["repositories"]) == "[]" {
		t.Fatalf("import: %v", rep)
	}
	// Again: the name is taken now.
	rep = importArchive(t, dst, archive, mapping, "", 201)
	if got := fmt.Sprint(rep["conflicts"]); !strings.Contains(got, "recommended_action:rename") || fmt.Sprint(rep["repositories"]) != "[]" {
		t.Fatalf("second import: %v", rep)
	}
	dst.RunJobs()

	users := map[string]string{"rita": "rebecca"}
	same := map[string]string{}
	r := "/repos/acme/widgets"
	for _, c := range []struct {
		path   string
		fields []string
	}{
		{r + "/labels?per_page=100", []string{"name", "color", "description"}},
		{r + "/milestones?state=all", []string{"number", "title", "description", "state", "open_issues", "closed_issues", "creator",
			"closed_at"}},
		{r + "/issues?state=all&direction=asc", []string{"number", "title", "body", "state", "user", "labels", "assignees", "milestone",
			"comments", "created_at", "closed_at", "locked", "active_lock_reason", "reactions.total_count", "reactions.+1", "reactions.heart",
			"reactions.rocket"}},
		{r + "/issues/1/reactions", []string{"content", "user", "created_at"}},
		{r + "/comments", []string{"body", "user", "commit_id", "path", "reactions.-1", "created_at"}},
		{r + "/collaborators?affiliation=direct", []string{"login", "role_name"}},
		{r + "/teams", []string{"name", "slug", "description", "privacy", "permission"}},
		{r + "/pulls?state=all", []string{"number", "title", "body", "state", "user", "head.ref", "head.sha", "base.ref", "merged_at",
			"created_at"}},
		{r + "/pulls/3", nil},
		{r + "/pulls/4", nil},
		{r + "/issues/comments?per_page=100", []string{"body", "user", "created_at", "reactions.laugh"}},
		{r + "/issues/events?per_page=100", []string{"event", "actor", "label.name", "assignee", "milestone.title", "rename.from", "created_at"}},
		{r + "/issues/1/timeline", []string{"event", "actor", "body"}},
		{r + "/pulls/3/reviews", []string{"state", "body", "user", "commit_id", "submitted_at"}},
		{r + "/pulls/comments?per_page=100", []string{"body", "path", "position", "user", "commit_id", "diff_hunk", "created_at", "reactions.eyes"}},
		{r + "/releases", []string{"tag_name", "name", "body", "draft", "prerelease", "author", "created_at", "published_at", "reactions.hooray",
			"assets"}},
		{r + "/commits?sha=main", []string{"sha", "commit.message"}},
		{r + "/branches", []string{"name", "commit.sha", "protected"}},
		{r + "/tags", []string{"name", "commit.sha"}},
	} {
		if c.fields == nil {
			a := src.Must(200, "GET", c.path, tok, nil).Map(t)
			b := dst.Must(200, "GET", c.path, dtok, nil).Map(t)
			for _, f := range []string{"state", "merged", "merged_at", "merge_commit_sha", "review_comments", "merged_by", "commits", "additions", "deletions",
				"changed_files", "mergeable", "mergeable_state", "head.sha", "base.sha"} {
				if f == "merge_commit_sha" && a["state"] == "open" {
					continue // an open one's is its test merge, made (and dated) by each hubd
				}
				if pick(a, f, users) != pick(b, f, same) {
					t.Errorf("%s %s: %s, imported %s", c.path, f, pick(a, f, users), pick(b, f, same))
				}
			}
			continue
		}
		want := view(t, src, tok, c.path, users, c.fields...)
		got := view(t, dst, dtok, c.path, same, c.fields...)
		if len(want) == 0 || !reflect.DeepEqual(want, got) {
			t.Errorf("%s:\n source   %q\n imported %q", c.path, want, got)
		}
	}
	a := src.Must(200, "GET", r+"/branches/main/protection", tok, nil).Map(t)
	b := dst.Must(200, "GET", r+"/branches/main/protection", dtok, nil).Map(t)
	for _, f := range []string{"required_status_checks.strict", "required_status_checks.contexts",
		"required_pull_request_reviews.required_approving_review_count", "enforce_admins.enabled"} {
		if pick(a, f, nil) != pick(b, f, nil) {
			t.Errorf("protection %s: %s, imported %s", f, pick(a, f, nil), pick(b, f, nil))
		}
	}

	// The release asset comes with its file, label and uploader.
	var rels []map[string]any
	dst.Must(200, "GET", r+"/releases", dtok, nil).JSON(t, &rels)
	if len(rels) != 1 || len(rels[0]["assets"].([]any)) != 1 {
		t.Fatalf("releases: %v", rels)
	}
	asset := rels[0]["assets"].([]any)[0].(map[string]any)
	if asset["label"] != "Tool" || asset["content_type"] != "text/plain" || pick(asset, "uploader", nil) != "mona" || fmt.Sprint(asset["size"]) != "9" {
		t.Errorf("asset: %v", asset)
	}
	if got := dst.Must(200, "GET", fmt.Sprintf("%s/releases/assets/%v", r, asset["id"]), dtok, nil, "Accept: application/octet-stream"); string(got.Body) != "the tool\n" {
		t.Errorf("asset content %q", got.Body)
	}

	// The webhook comes inactive and without its secret.
	var hooks []map[string]any
	dst.Must(200, "GET", r+"/hooks", dtok, nil).JSON(t, &hooks)
	if len(hooks) != 1 || hooks[0]["active"] != false || pick(hooks[0], "config.url", nil) != "https://hooks.example.com/widgets" ||
		pick(hooks[0], "config.content_type", nil) != "json" || pick(hooks[0], "events", nil) != "issues,push" ||
		pick(hooks[0], "config.secret", nil) != "<nil>" {
		t.Fatalf("hooks: %v", hooks)
	}

	// Only site administrators import.
	dst.Must(403, "POST", "/admin/migrations/import", dtok, archive, "Content-Type: application/gzip")
	dst.Must(401, "POST", "/admin/migrations/import", "", archive, "Content-Type: application/gzip")
	dst.Must(422, "POST", "/admin/migrations/import", dst.AdminToken, []byte("not an archive"), "Content-Type: application/gzip")
	dst.Must(422, "POST", "/admin/migrations/import", dst.AdminToken, nil, "Content-Type: application/gzip")
}

// tarGz packs files (name → content) as a .tar.gz.
func tarGz(t *testing.T, files map[string]string) []byte {
	t.Helper()
	var buf bytes.Buffer
	zw := gzip.NewWriter(&buf)
	tw := tar.NewWriter(zw)
	for name, body := range files {
		tw.WriteHeader(&tar.Header{Name: name, Mode: 0o644, Size: int64(len(body)), Typeflag: tar.TypeReg})
		tw.Write([]byte(body))
	}
	tw.Close()
	zw.Close()
	return buf.Bytes()
}

// TestImportRefusesBadArchives: archives that are not GitHub's layout, or
// whose paths leave the archive, are refused whole (422) and write nothing.
func TestImportRefusesBadArchives(t *testing.T) {
	e := apitest.New(t)
	_, tok := e.NewUser("mona", false)
	repo := `[{"type":"repository","url":"https://github.com/mona/x","owner":"https://github.com/mona","name":"x","git_url":"%s","created_at":"2020-01-01T00:00:00Z"}]`
	for name, files := range map[string]map[string]string{
		"no schema":        {"repositories_000001.json": fmt.Sprintf(repo, "")},
		"version 2":        {"schema.json": `{"version":"2.0.0"}`},
		"entry outside":    {"schema.json": `{"version":"1.0.1"}`, "../evil.json": "[]"},
		"git data outside": {"schema.json": `{"version":"1.0.1"}`, "repositories_000001.json": fmt.Sprintf(repo, "tarball://root/../../../git")},
		"bad json":         {"schema.json": `{"version":"1.0.1"}`, "issues_000001.json": "{"},
	} {
		r := e.Must(422, "POST", "/admin/migrations/import", e.AdminToken, tarGz(t, files), "Content-Type: application/gzip")
		if !strings.Contains(string(r.Body), `"field":"archive"`) {
			t.Errorf("%s: %s", name, r.Body)
		}
	}
	e.Must(404, "GET", "/repos/mona/x", tok, nil)
	// A good one imports into mona's account.
	rep := e.Must(201, "POST", "/admin/migrations/import", e.AdminToken, tarGz(t, map[string]string{"schema.json": `{"version":"1.0.1"}`,
		"users_000001.json":        `[{"type":"user","url":"https://github.com/mona","login":"mona","emails":[]}]`,
		"repositories_000001.json": fmt.Sprintf(repo, "")}), "Content-Type: application/gzip").Map(t)
	if fmt.Sprint(rep["conflicts"]) != "[]" || fmt.Sprint(rep["mapped_users"]) != "1" {
		t.Fatalf("import: %v", rep)
	}
	e.Must(200, "GET", "/repos/mona/x", tok, nil)
}

// TestImportUnknownUsers: an archive's user no account matches is reported
// by default, left to the ghost unreported with unknown_users=ghost, and
// made a suspended account from its record with unknown_users=create.
func TestImportUnknownUsers(t *testing.T) {
	e := apitest.New(t)
	_, tok := e.NewUser("mona", false)
	archive := func(repo, user string) []byte {
		return tarGz(t, map[string]string{"schema.json": `{"version":"1.0.1"}`,
			"users_000001.json": `[{"type":"user","url":"https://github.com/mona","login":"mona","emails":[]},
 {"type":"user","url":"https://github.com/` + user + `","login":"` + user + `","name":"New Bie","company":"Acme","location":"Paris",
  "emails":[{"address":"` + user + `@example.com","primary":true}],"created_at":"2019-05-01T00:00:00Z"}]`,
			"repositories_000001.json": `[{"type":"repository","url":"https://github.com/mona/` + repo + `","owner":"https://github.com/mona",
 "name":"` + repo + `","has_issues":true,"created_at":"2020-01-01T00:00:00Z"}]`,
			"issues_000001.json": `[{"type":"issue","url":"https://github.com/mona/` + repo + `/issues/1","repository":"https://github.com/mona/` + repo + `",
 "user":"https://github.com/` + user + `","title":"Hello","body":"b","created_at":"2020-01-02T00:00:00Z","updated_at":"2020-01-02T00:00:00Z",
 "reactions":[{"user":"https://github.com/` + user + `","content":"heart","subject_type":"Issue","created_at":"2020-01-03T00:00:00Z"}]}]`,
		})
	}
	gz := "Content-Type: application/gzip"
	rep := e.Must(201, "POST", "/admin/migrations/import", e.AdminToken, archive("a", "stranger"), gz).Map(t)
	if got := fmt.Sprint(rep["conflicts"]); !strings.Contains(got, "https://github.com/stranger") {
		t.Fatalf("default: %v", rep)
	}
	rep = e.Must(201, "POST", "/admin/migrations/import?unknown_users=ghost", e.AdminToken, archive("b", "stranger"), gz).Map(t)
	if fmt.Sprint(rep["conflicts"]) != "[]" || fmt.Sprint(rep["created_users"]) != "[]" {
		t.Fatalf("ghost: %v", rep)
	}
	e.Must(404, "GET", "/users/stranger", tok, nil)
	is := e.Must(200, "GET", "/repos/mona/b/issues/1", tok, nil).Map(t)
	if pick(is, "reactions.total_count", nil) != "0" {
		t.Errorf("a ghost's reaction was imported: %v", is["reactions"])
	}
	e.Must(422, "POST", "/admin/migrations/import?unknown_users=invent", e.AdminToken, archive("c", "newbie"), gz)
	// A dry run names the account it would make, and makes none.
	rep = e.Must(200, "POST", "/admin/migrations/import?unknown_users=create&dry_run=true", e.AdminToken, archive("c", "newbie"), gz).Map(t)
	if fmt.Sprint(rep["created_users"]) != "[newbie]" || fmt.Sprint(rep["conflicts"]) != "[]" {
		t.Fatalf("create, dry run: %v", rep)
	}
	e.Must(404, "GET", "/users/newbie", tok, nil)
	rep = e.Must(201, "POST", "/admin/migrations/import?unknown_users=create", e.AdminToken, archive("c", "newbie"), gz).Map(t)
	if fmt.Sprint(rep["created_users"]) != "[newbie]" || fmt.Sprint(rep["conflicts"]) != "[]" {
		t.Fatalf("create: %v", rep)
	}
	u, err := e.Store.R().AccountByLogin(context.Background(), "newbie")
	if err != nil || u.SuspendedAt == nil || u.Name != "New Bie" || u.Company != "Acme" || u.Email != "newbie@example.com" || u.SiteAdmin ||
		u.CreatedAt.Year() != 2019 {
		t.Fatalf("created account: %+v %v", u, err)
	}
	is = e.Must(200, "GET", "/repos/mona/c/issues/1", tok, nil).Map(t)
	if pick(is, "user", nil) != "newbie" || pick(is, "reactions.heart", nil) != "1" {
		t.Errorf("issue of the created user: %v %v", is["user"], is["reactions"])
	}
	// Only site administrators import, whatever the option.
	e.Must(403, "POST", "/admin/migrations/import?unknown_users=create", tok, archive("d", "other"), gz)
}
