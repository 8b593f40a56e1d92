package conformance

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/getkin/kin-openapi/openapi3"

	"github.com/hubd/hubd/internal/apitest"
	"github.com/hubd/hubd/internal/catalogue"
	"github.com/hubd/hubd/internal/model"
	"github.com/hubd/hubd/internal/rest"
	"github.com/hubd/hubd/internal/store"
)

// marker is in every name, title and text of the private fixtures, and in
// nothing public: a 2xx body that contains it leaks private data.
const marker = "zqsecret"

// world is the real server with fixtures made through the API: users, an
// organization, a public and a private repository of each, and in every
// repository an issue (with a label, a milestone, an assignee, a comment,
// reactions, a dependency and a sub-issue), a branch and an annotated tag.
type world struct {
	t     *testing.T
	e     *apitest.Env
	specs *apitest.Specs
	http  *http.Client
	sent  atomic.Int64

	alice, bob       *model.Account
	aliceTok, bobTok string
	org              string
	fieldID          int64
	repos            map[string]*repoFix // "owner/name"
	seq              int
}

// repoFix is what one repository's fixtures are called.
type repoFix struct {
	owner, name string
	private     bool
	id          int64

	issue, issue2, issue3      int   // numbers: issue2 blocks issue, issue3 is its sub-issue
	issueID, issue2ID          int64 // ids
	issue3ID                   int64
	commentID                  int64
	reactionID, commentReact   int64
	commitComment, commitReact int64
	eventID                    int64
	label, branch, tag         string
	milestone                  int
	commit, tree, blob, tagSHA string
}

func (f *repoFix) full() string { return f.owner + "/" + f.name }

func newWorld(t *testing.T) *world {
	t.Helper()
	specs, err := apitest.LoadSpecs()
	if err != nil {
		t.Fatal(err)
	}
	// No job workers: a background job finishing between two fingerprints
	// would look like a change made by a refused request.
	e := apitest.New(t, apitest.Options{NoVerify: true, ManualJobs: true})
	w := &world{t: t, e: e, specs: specs, org: "acme", repos: map[string]*repoFix{},
		http: &http.Client{
			Timeout:       30 * time.Second,
			CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
		}}
	w.alice, w.aliceTok = e.NewUser("alice", false)
	w.bob, w.bobTok = e.NewUser("bob", false)
	e.Must(201, "POST", "/admin/organizations", e.AdminToken, map[string]any{"login": w.org, "admin": "alice"})

	// An organization issue field, which has no API of its own to create.
	ctx := context.Background()
	org, err := e.Store.R().AccountByLogin(ctx, w.org)
	if err != nil {
		t.Fatal(err)
	}
	fld := &model.IssueField{OrgID: org.ID, Name: "Notes", DataType: "text", Visibility: "all"}
	if err := e.Store.Tx(ctx, func(tx store.Q) error { return tx.CreateIssueField(ctx, fld) }); err != nil {
		t.Fatal(err)
	}
	w.fieldID = fld.ID

	w.makeRepo("alice", "pub", false)
	w.makeRepo("alice", marker+"-a", true)
	w.makeRepo(w.org, "open", false)
	w.makeRepo(w.org, marker+"-o", true)
	// The first repository read starts a backfill that queues jobs in the
	// background: let it finish before any fingerprint is taken.
	e.Server.Settled()
	return w
}

// makeRepo creates a repository with auto_init and its fixtures, as alice
// (owner of her repositories, admin of the organization).
func (w *world) makeRepo(owner, name string, private bool) {
	t, e, tok := w.t, w.e, w.aliceTok
	t.Helper()
	f := &repoFix{owner: owner, name: name, private: private}
	text := func(s string) string {
		if private {
			return marker + " " + s
		}
		return s
	}
	create := "/user/repos"
	if owner != "alice" {
		create = "/orgs/" + owner + "/repos"
	}
	r := e.Must(201, "POST", create, tok, map[string]any{"name": name, "private": private, "auto_init": true, "description": text("repository")})
	f.id = int64(num(r.Map(t)["id"]))
	base := "/repos/" + f.full()

	f.label = map[bool]string{false: "fixture-label", true: marker + "-label"}[private]
	e.Must(201, "POST", base+"/labels", tok, map[string]any{"name": f.label, "color": "d73a4a"})
	m := e.Must(201, "POST", base+"/milestones", tok, map[string]any{"title": text("milestone")}).Map(t)
	f.milestone = num(m["number"])

	is := e.Must(201, "POST", base+"/issues", tok, map[string]any{"title": text("issue"), "body": text("body"),
		"labels": []string{f.label}, "milestone": f.milestone, "assignees": []string{"alice"}}).Map(t)
	f.issue, f.issueID = num(is["number"]), int64(num(is["id"]))
	is2 := e.Must(201, "POST", base+"/issues", tok, map[string]any{"title": text("blocker")}).Map(t)
	f.issue2, f.issue2ID = num(is2["number"]), int64(num(is2["id"]))
	is3 := e.Must(201, "POST", base+"/issues", tok, map[string]any{"title": text("child")}).Map(t)
	f.issue3, f.issue3ID = num(is3["number"]), int64(num(is3["id"]))
	ip := base + "/issues/" + strconv.Itoa(f.issue)
	e.Must(201, "POST", ip+"/dependencies/blocked_by", tok, map[string]any{"issue_id": f.issue2ID})
	e.Must(201, "POST", ip+"/sub_issues", tok, map[string]any{"sub_issue_id": f.issue3ID})
	c := e.Must(201, "POST", ip+"/comments", tok, map[string]any{"body": text("comment")}).Map(t)
	f.commentID = int64(num(c["id"]))
	f.reactionID = int64(num(e.Must(201, "POST", ip+"/reactions", tok, map[string]any{"content": "heart"}).Map(t)["id"]))
	f.commentReact = int64(num(e.Must(201, "POST", fmt.Sprintf("%s/issues/comments/%d/reactions", base, f.commentID), tok,
		map[string]any{"content": "rocket"}).Map(t)["id"]))
	if owner == w.org {
		e.Must(200, "POST", ip+"/issue-field-values", tok, map[string]any{"issue_field_values": []any{
			map[string]any{"field_id": w.fieldID, "value": text("field")}}})
	}
	var evs []map[string]any
	e.Must(200, "GET", base+"/issues/events", tok, nil).JSON(t, &evs)
	if len(evs) == 0 {
		t.Fatalf("%s: no issue events", base)
	}
	f.eventID = int64(num(evs[0]["id"]))

	ref := e.Must(200, "GET", base+"/git/ref/heads/main", tok, nil).Map(t)
	f.commit = ref["object"].(map[string]any)["sha"].(string)
	cm := e.Must(200, "GET", base+"/git/commits/"+f.commit, tok, nil).Map(t)
	f.tree = cm["tree"].(map[string]any)["sha"].(string)
	f.commitComment = int64(num(e.Must(201, "POST", base+"/commits/"+f.commit+"/comments", tok, map[string]any{"body": text("commit comment")}).Map(t)["id"]))
	f.commitReact = int64(num(e.Must(201, "POST", fmt.Sprintf("%s/comments/%d/reactions", base, f.commitComment), tok,
		map[string]any{"content": "eyes"}).Map(t)["id"]))
	f.blob = e.Must(200, "GET", base+"/contents/README.md", tok, nil).Map(t)["sha"].(string)
	f.branch = map[bool]string{false: "feature", true: marker + "-branch"}[private]
	e.Must(201, "POST", base+"/git/refs", tok, map[string]any{"ref": "refs/heads/" + f.branch, "sha": f.commit})
	f.tag = map[bool]string{false: "v1", true: marker + "-tag"}[private]
	tg := e.Must(201, "POST", base+"/git/tags", tok, map[string]any{"tag": f.tag, "message": text("tag"), "object": f.commit, "type": "commit"}).Map(t)
	f.tagSHA = tg["sha"].(string)
	e.Must(201, "POST", base+"/git/refs", tok, map[string]any{"ref": "refs/tags/" + f.tag, "sha": f.tagSHA})
	w.repos[f.full()] = f
}

func num(v any) int {
	f, _ := v.(float64)
	return int(f)
}

// params lists the parameter names of a route pattern, wildcards marked.
func params(pattern string) []string {
	var out []string
	for _, seg := range strings.Split(pattern, "/") {
		if strings.HasPrefix(seg, "{") && seg != "{$}" {
			out = append(out, strings.Trim(seg, "{}"))
		}
	}
	return out
}

// target is what a route's path parameters are filled from.
type target struct {
	repo     *repoFix
	org      string
	username string // a user the caller acts on
}

// fill gives a parameter of a route its value from the fixtures. Unknown
// names get a plausible value, so a route added later is still exercised.
func (w *world) fill(rt *rest.Route, name string, tg target) string {
	f := tg.repo
	gitdb := strings.Contains(rt.Pattern, "/git/")
	switch strings.TrimSuffix(name, "...") {
	case "owner":
		return f.owner
	case "repo":
		return f.name
	case "org":
		return tg.org
	case "username", "assignee":
		return tg.username
	case "account_id":
		return strconv.FormatInt(w.alice.ID, 10)
	case "issue_number":
		return strconv.Itoa(f.issue)
	case "comment_id":
		if strings.HasPrefix(rt.Pattern, "/repos/{owner}/{repo}/comments/") { // commit comments
			return strconv.FormatInt(f.commitComment, 10)
		}
		return strconv.FormatInt(f.commentID, 10)
	case "reaction_id":
		if strings.HasPrefix(rt.Pattern, "/repos/{owner}/{repo}/comments/") {
			return strconv.FormatInt(f.commitReact, 10)
		}
		if strings.Contains(rt.Pattern, "/comments/") {
			return strconv.FormatInt(f.commentReact, 10)
		}
		return strconv.FormatInt(f.reactionID, 10)
	case "event_id":
		return strconv.FormatInt(f.eventID, 10)
	case "issue_id":
		return strconv.FormatInt(f.issue2ID, 10)
	case "issue_field_id":
		return strconv.FormatInt(w.fieldID, 10)
	case "milestone_number":
		return strconv.Itoa(f.milestone)
	case "name":
		if strings.HasPrefix(rt.Pattern, "/gitignore/") {
			return "Go"
		}
		return f.label
	case "license":
		return "mit"
	case "file_sha":
		return f.blob
	case "tree_sha":
		return f.tree
	case "commit_sha", "sha":
		return f.commit
	case "tag_sha":
		return f.tagSHA
	case "ref":
		if gitdb {
			if rt.Method == "GET" {
				return "heads/main"
			}
			return "heads/" + f.branch
		}
		return "main"
	case "branch":
		return f.branch
	case "basehead":
		return "main..." + f.branch
	case "path", "rest":
		if name == "rest..." || name == "rest" {
			return "main/README.md"
		}
		return "README.md"
	case "dir":
		return "."
	case "format":
		return "tar.gz"
	}
	if strings.HasSuffix(name, "_id") || strings.HasSuffix(name, "_number") {
		return "1"
	}
	return "main"
}

// path fills every parameter of rt; override replaces one parameter by an
// already escaped segment.
func (w *world) path(rt *rest.Route, tg target, override string, value string) string {
	segs := strings.Split(rt.Pattern, "/")
	for i, seg := range segs {
		if seg == "{$}" {
			segs[i] = ""
			continue
		}
		if !strings.HasPrefix(seg, "{") {
			continue
		}
		name := strings.Trim(seg, "{}")
		if name == override {
			segs[i] = value
			continue
		}
		v := w.fill(rt, name, tg)
		if strings.HasSuffix(name, "...") {
			parts := strings.Split(v, "/")
			for j := range parts {
				parts[j] = url.PathEscape(parts[j])
			}
			segs[i] = strings.Join(parts, "/")
		} else {
			segs[i] = url.PathEscape(v)
		}
	}
	return strings.Join(segs, "/")
}

// operation is the route's operation in GitHub's description (nil for
// extensions).
func (w *world) operation(rt *rest.Route) *openapi3.Operation {
	if rt.Extension {
		return nil
	}
	_, _, op := w.specs.Operation(rt.Method, catalogue.SpecPath(rt.Pattern))
	return op
}

// bodySchema is the JSON request body schema of an operation, or nil.
func bodySchema(op *openapi3.Operation) *openapi3.Schema {
	if op == nil || op.RequestBody == nil || op.RequestBody.Value == nil {
		return nil
	}
	mt := op.RequestBody.Value.Content.Get("application/json")
	if mt == nil || mt.Schema == nil {
		return nil
	}
	return mt.Schema.Value
}

// response is one answer, its body read.
type response struct {
	status int
	header http.Header
	body   []byte
}

// do sends one request to the API (path and query already escaped). body
// nil sends no body.
func (w *world) do(method, path, query, token string, body []byte) response {
	w.t.Helper()
	u := w.e.API + path
	if query != "" {
		u += "?" + query
	}
	var rd io.Reader
	if body != nil {
		rd = bytes.NewReader(body)
	}
	req, err := http.NewRequest(method, u, rd)
	if err != nil {
		w.t.Fatalf("%s %s: %v", method, trunc(u, 200), err)
	}
	req.Header.Set("Accept", "application/vnd.github+json")
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	if token != "" {
		req.Header.Set("Authorization", "token "+token)
	}
	w.sent.Add(1)
	resp, err := w.http.Do(req)
	if err != nil {
		// A handler that never answers is a defect the suite reports (status
		// 0) rather than dies of; it keeps its connection, so the test still
		// waits for it at the end.
		w.t.Logf("%s %s: %s", method, trunc(u, 200), trunc(err.Error(), 200))
		return response{header: http.Header{}}
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(io.LimitReader(resp.Body, 32<<20))
	if err != nil {
		w.t.Logf("%s %s: read: %s", method, trunc(u, 200), trunc(err.Error(), 200))
		return response{header: http.Header{}}
	}
	return response{status: resp.StatusCode, header: resp.Header, body: b}
}

// errorShape reports why a non-2xx answer is not GitHub's error JSON ("" if
// it is). Redirects and 304 carry no such body.
func errorShape(r response) string {
	if r.status < 400 {
		return ""
	}
	var m map[string]any
	if err := json.Unmarshal(r.body, &m); err != nil {
		return fmt.Sprintf("body is not a JSON object (%s): %.200q", r.header.Get("Content-Type"), r.body)
	}
	if _, ok := m["message"].(string); !ok {
		return fmt.Sprintf("no message string: %.200s", r.body)
	}
	if _, ok := m["documentation_url"].(string); !ok {
		return fmt.Sprintf("no documentation_url string: %.200s", r.body)
	}
	return ""
}

// fingerprint is the database and the refs of every repository on disk.
// Some tables are left out because they are written in the background, off
// the request that caused it: traffic (page views and clones, flushed by a
// timer), repo_facts (license and language, detected after a push, so a
// later refused request may find an earlier accepted one's row appear) and
// what the outbox consumers make of an accepted request's events (their
// cursors and gaps, the activity events), rate_counts (every request's
// rate-limit count, written once a second by the limiter's flush) and
// api_insights (every request's API insights counter, likewise).
type fingerprint map[string]string

func (w *world) fingerprint() fingerprint {
	w.t.Helper()
	// What the outbox consumers make of the last accepted request (jobs
	// they queue, webhook deliveries) lands now, not during a later
	// refused request.
	if err := w.e.Deps.Outbox.Sync(context.Background()); err != nil {
		w.t.Fatal(err)
	}
	fp, err := w.e.Store.Fingerprint(context.Background())
	if err != nil {
		w.t.Fatal(err)
	}
	delete(fp, "traffic")
	delete(fp, "repo_facts")
	delete(fp, "rate_counts")
	delete(fp, "api_insights")
	// jobs: timers of a running process queue jobs of their own (the
	// activity consumer's pruning five minutes after it starts, others on
	// their periods), whatever request is in flight then; a fuzz on
	// PostgreSQL runs long enough to meet them. A refused request that
	// queued a job would still show through the domain event its write
	// appends in the same transaction.
	delete(fp, "jobs")
	for _, t := range []string{"outbox_cursors", "outbox_gaps", "activity_events", "notification_threads"} {
		delete(fp, t)
	}
	root := filepath.Join(w.e.DataDir, "git", "repositories")
	dirs, _ := filepath.Glob(filepath.Join(root, "*", "*.git"))
	for _, d := range dirs {
		fp["git:"+strings.TrimPrefix(d, root)] = refsDigest(d)
	}
	return fp
}

// refsDigest lists HEAD, packed-refs and every loose ref of a bare
// repository.
func refsDigest(dir string) string {
	var b strings.Builder
	for _, f := range []string{"HEAD", "packed-refs"} {
		c, _ := os.ReadFile(filepath.Join(dir, f))
		fmt.Fprintf(&b, "%s=%s\n", f, c)
	}
	filepath.WalkDir(filepath.Join(dir, "refs"), func(p string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			c, _ := os.ReadFile(p)
			fmt.Fprintf(&b, "%s=%s", strings.TrimPrefix(p, dir), c)
		}
		return nil
	})
	return b.String()
}

// diff names what changed between two fingerprints.
func (a fingerprint) diff(b fingerprint) string {
	var out []string
	for k, v := range a {
		if b[k] != v {
			out = append(out, k)
		}
	}
	for k := range b {
		if _, ok := a[k]; !ok {
			out = append(out, k+" (new)")
		}
	}
	sort.Strings(out)
	return strings.Join(out, ", ")
}

func isWrite(method string) bool {
	return method == "POST" || method == "PUT" || method == "PATCH" || method == "DELETE"
}

func trunc(s string, n int) string {
	if len(s) > n {
		return s[:n] + fmt.Sprintf("…(%d bytes)", len(s))
	}
	return s
}
