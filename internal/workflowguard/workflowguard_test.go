package workflowguard_test

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/hubd/hubd/internal/actions"
	"github.com/hubd/hubd/internal/apitest"
	"github.com/hubd/hubd/internal/apps"
	"github.com/hubd/hubd/internal/authz"
	"github.com/hubd/hubd/internal/model"
	"github.com/hubd/hubd/internal/store"
)

var ctx = context.Background()

// token is one credential of the table: whether it may change workflow
// files, and GitHub's refusal of path to it.
type token struct {
	name, tok string
	may       bool
	refusal   func(path string) string
	app       bool // a GitHub App's token: merges are refused in integration words
	iat       bool // an installation token: GitHub's docs give it no update-branch
}

func refusal(who, what string) func(string) string {
	return func(path string) string {
		return "refusing to allow " + who + " to create or update workflow `" + path + "` without " + what
	}
}

// unless is no refusal for a token that may change workflows.
func unless(may bool, r func(string) string) func(string) string {
	if may {
		return nil
	}
	return r
}

var (
	patRefusal   = refusal("a Personal Access Token", "`workflow` scope")
	oauthRefusal = refusal("an OAuth App", "`workflow` scope")
	appRefusal   = refusal("a GitHub App", "`workflows` permission")
)

// tokens are mona's credentials of every kind, without and with the
// workflow scope or permission, and a job's GITHUB_TOKEN for repo.
func tokens(t *testing.T, e *apitest.Env, mona *model.Account, repo *model.Repo) []token {
	t.Helper()
	var out []token
	classic := func(name string, kind authz.TokenKind, scopes string, may bool, ref func(string) string) {
		ref = unless(may, ref)
		var tok string
		if err := e.Store.Tx(ctx, func(tx store.Q) error {
			var err error
			tok, _, err = tx.CreateToken(ctx, mona.ID, kind, authz.ParseScopes(scopes), "", nil)
			return err
		}); err != nil {
			t.Fatal(err)
		}
		out = append(out, token{name: name, tok: tok, may: may, refusal: ref})
	}
	classic("classic-repo", authz.ClassicPAT, "repo", false, patRefusal)
	classic("classic-workflow", authz.ClassicPAT, "repo,workflow", true, patRefusal)
	classic("oauth-repo", authz.OAuthApp, "repo", false, oauthRefusal)
	classic("oauth-workflow", authz.OAuthApp, "repo,workflow", true, oauthRefusal)

	write := map[string]string{"contents": "write", "pull_requests": "write", "metadata": "read"}
	withWorkflows := map[string]string{"contents": "write", "pull_requests": "write", "metadata": "read", "workflows": "write"}
	for _, fg := range []struct {
		name  string
		perms map[string]string
		may   bool
	}{{"fine-grained-contents", write, false}, {"fine-grained-workflows", withWorkflows, true}} {
		var tok string
		if err := e.Store.Tx(ctx, func(tx store.Q) error {
			var err error
			tok, err = tx.CreateFineGrainedToken(ctx, &store.FineGrainedToken{Token: store.Token{UserID: mona.ID}, Name: fg.name,
				ResourceOwnerID: mona.ID, Selection: authz.SelectionAll, Permissions: fg.perms})
			return err
		}); err != nil {
			t.Fatal(err)
		}
		out = append(out, token{name: fg.name, tok: tok, may: fg.may, refusal: unless(fg.may, patRefusal)})
	}

	for _, a := range []struct {
		name  string
		perms map[string]string
		may   bool
	}{{"app-contents", write, false}, {"app-workflows", withWorkflows, true}} {
		var app struct {
			ID       int64  `json:"id"`
			Slug     string `json:"slug"`
			ClientID string `json:"client_id"`
		}
		e.Must(201, "POST", "/admin/apps", e.AdminToken, map[string]any{"owner": "hubadmin", "name": a.name,
			"default_permissions": a.perms}).JSON(t, &app)
		var in struct {
			ID int64 `json:"id"`
		}
		e.Must(201, "POST", "/admin/apps/"+app.Slug+"/installations", e.AdminToken, map[string]any{"account": "mona"}).JSON(t, &in)
		inst, err := e.Store.R().InstallationByID(ctx, in.ID)
		if err != nil {
			t.Fatal(err)
		}
		var ghs, ghu string
		exp := e.Store.Now().Add(time.Hour)
		if err := e.Store.Tx(ctx, func(tx store.Q) error {
			if ghs, _, err = tx.CreateInstallationToken(ctx, inst, inst.Permissions, nil, exp); err != nil {
				return err
			}
			ghu, _, err = tx.CreateClientToken(ctx, authz.UserToServer, mona.ID, app.ClientID, app.ID, nil, &exp)
			return err
		}); err != nil {
			t.Fatal(err)
		}
		ref := unless(a.may, appRefusal)
		out = append(out, token{name: "ghs-" + a.name, tok: ghs, may: a.may, refusal: ref, app: true, iat: true},
			token{name: "ghu-" + a.name, tok: ghu, may: a.may, refusal: ref, app: true})
	}

	// A job's GITHUB_TOKEN, minted as the executor mints it; the workflow
	// asking for workflows: write does not get it.
	jobs := &actions.Tokens{Apps: &apps.Service{Store: e.Store}}
	job, _, err := jobs.Mint(ctx, repo, map[string]string{"metadata": "read", "contents": "write", "pull_requests": "write", "workflows": "write"})
	if err != nil {
		t.Fatal(err)
	}
	return append(out, token{name: "github-token", tok: job, may: false, refusal: appRefusal, app: true, iat: true})
}

// TestWorkflowFiles: every path that moves a branch refuses a change to
// .github/workflows to a token without the workflow scope or permission
// (with GitHub's answer for that path) and lets it through with it; other
// files are never refused.
func TestWorkflowFiles(t *testing.T) {
	e := apitest.New(t, apitest.Options{ManualJobs: true}) // no job needs to run
	mona, full := e.NewUser("mona", false)
	e.Must(201, "POST", "/user/repos", full, map[string]any{"name": "site", "auto_init": true})
	v, err := e.Store.R().RepoByName(ctx, "mona", "site", mona.ID)
	if err != nil {
		t.Fatal(err)
	}
	work := t.TempDir()
	apitest.MustGit(t, work, "clone", "-q", remote(e, full), "w")
	work = filepath.Join(work, "w")
	base := strings.TrimSpace(apitest.MustGit(t, work, "rev-parse", "HEAD"))

	for _, k := range tokens(t, e, mona, v.Repo) {
		t.Run(k.name, func(t *testing.T) {
			wf := func(what string) string { return ".github/workflows/" + what + "-" + k.name + ".yml" }
			refused := func(what string, r *apitest.Response, allowed, status int, msg string) {
				t.Helper()
				want := allowed
				if !k.may {
					want = status
				}
				if r.StatusCode != want {
					t.Fatalf("%s: %d, want %d: %s", what, r.StatusCode, want, r.Body)
				}
				if !k.may && message(t, r) != msg {
					t.Fatalf("%s: message %q, want %q", what, message(t, r), msg)
				}
			}
			refusedWith := func(path string) string {
				if k.may {
					return ""
				}
				return k.refusal(path)
			}

			// Contents API: GitHub's 404 for the workflow file; other
			// files are written.
			r := e.Do("PUT", "/repos/mona/site/contents/"+wf("put"), k.tok, putBody("on: workflow_dispatch"))
			refused("contents PUT", r, 201, 404, "Not Found")
			e.Must(201, "PUT", "/repos/mona/site/contents/docs/"+k.name+".md", k.tok, putBody("# docs"))
			del := wf("del")
			sha := blobSHA(t, e.Must(201, "PUT", "/repos/mona/site/contents/"+del, full, putBody("on: workflow_dispatch")))
			r = e.Do("DELETE", "/repos/mona/site/contents/"+del, k.tok, map[string]any{"message": "drop", "sha": sha})
			refused("contents DELETE", r, 200, 404, "Not Found")

			// Git database API: a commit adding a workflow that no branch
			// holds, made with a token that may.
			main := head(t, e, full, "main")
			path := wf("ref")
			commit := workflowCommit(t, e, full, main, path)
			r = e.Do("POST", "/repos/mona/site/git/refs", k.tok, map[string]any{"ref": "refs/heads/new-" + k.name, "sha": commit})
			refused("git refs POST", r, 201, 403, refusedWith(path))
			e.Must(201, "POST", "/repos/mona/site/git/refs", full, map[string]any{"ref": "refs/heads/ref-" + k.name, "sha": main})
			r = e.Do("PATCH", "/repos/mona/site/git/refs/heads/ref-"+k.name, k.tok, map[string]any{"sha": commit})
			refused("git refs PATCH", r, 200, 403, refusedWith(path))
			if got := head(t, e, full, "ref-"+k.name); (got == commit) != k.may {
				t.Fatalf("ref-%s at %s after PATCH", k.name, got)
			}

			// git push: the refusal is printed, the ref does not move.
			apitest.MustGit(t, work, "checkout", "-q", "--detach", base)
			pushPath := wf("push")
			commitFile(t, work, pushPath)
			out, err := apitest.Git(t, work, "push", remote(e, k.tok), "HEAD:refs/heads/push-"+k.name)
			if k.may != (err == nil) || !k.may && !strings.Contains(out, "[remote rejected] HEAD -> push-"+k.name+" ("+k.refusal(pushPath)+")") {
				t.Fatalf("git push (err %v):\n%s", err, out)
			}
			if got := head(t, e, full, "push-"+k.name); (got != "") != k.may {
				t.Fatalf("push-%s at %q after the push", k.name, got)
			}

			// Pull request merge bringing a workflow.
			main = head(t, e, full, "main")
			e.Must(201, "POST", "/repos/mona/site/git/refs", full, map[string]any{"ref": "refs/heads/pr-" + k.name, "sha": main})
			prPath := wf("pr")
			e.Must(201, "PUT", "/repos/mona/site/contents/"+prPath, full, putBody("on: workflow_dispatch", "branch", "pr-"+k.name))
			pr := openPull(t, e, full, "pr-"+k.name)
			r = e.Do("PUT", "/repos/mona/site/pulls/"+strconv.Itoa(pr.Number)+"/merge", k.tok, map[string]any{})
			mergeMsg := refusedWith(prPath)
			if k.app {
				mergeMsg = "Resource not accessible by integration"
			}
			refused("pull merge", r, 200, 403, mergeMsg)

			// update-branch: the base gained a workflow since the head
			// branched.
			main = head(t, e, full, "main")
			e.Must(201, "POST", "/repos/mona/site/git/refs", full, map[string]any{"ref": "refs/heads/upd-" + k.name, "sha": main})
			e.Must(201, "PUT", "/repos/mona/site/contents/docs/upd-"+k.name+".md", full, putBody("# x", "branch", "upd-"+k.name))
			upd := openPull(t, e, full, "upd-"+k.name)
			updPath := wf("upd")
			e.Must(201, "PUT", "/repos/mona/site/contents/"+updPath, full, putBody("on: workflow_dispatch"))
			r = e.Do("PUT", "/repos/mona/site/pulls/"+strconv.Itoa(upd.Number)+"/update-branch", k.tok, map[string]any{})
			if k.iat {
				if r.StatusCode != 403 || message(t, r) != "Resource not accessible by integration" {
					t.Fatalf("update-branch by an installation: %d %s", r.StatusCode, r.Body)
				}
			} else {
				refused("update-branch", r, 202, 403, refusedWith(updPath))
			}

			// GraphQL mergePullRequest.
			if k.name == "classic-repo" || k.name == "oauth-repo" {
				errs := graphql(t, e, k.tok, `mutation($id: ID!) { mergePullRequest(input: {pullRequestId: $id}) { pullRequest { merged } } }`,
					map[string]any{"id": pr.NodeID})
				if len(errs) != 1 || errs[0].Type != "FORBIDDEN" || errs[0].Message != k.refusal(prPath) {
					t.Fatalf("mergePullRequest: %+v", errs)
				}
			}
		})
	}
}

// TestRangeAndCreation: a push whose commits add a workflow and take it
// away again is refused (a commit of the range touched the directory);
// a branch or a release's tag made from commits a branch already holds,
// a rename and a deletion are not; one at a commit no branch holds is.
func TestRangeAndCreation(t *testing.T) {
	e := apitest.New(t, apitest.Options{ManualJobs: true})
	mona, full := e.NewUser("mona", false)
	e.Must(201, "POST", "/user/repos", full, map[string]any{"name": "site", "auto_init": true})
	repoOnly := e.Token(mona, "repo")
	work := t.TempDir()
	apitest.MustGit(t, work, "clone", "-q", remote(e, full), "w")
	work = filepath.Join(work, "w")

	commitFile(t, work, ".github/workflows/gone.yml")
	apitest.MustGit(t, work, "rm", "-q", ".github/workflows/gone.yml")
	apitest.MustGit(t, work, "commit", "-q", "-m", "undo")
	commitFile(t, work, "README.more")
	out, err := apitest.Git(t, work, "push", remote(e, repoOnly), "HEAD:main")
	if err == nil || !strings.Contains(out, "[remote rejected] HEAD -> main ("+patRefusal(".github/workflows/gone.yml")+")") {
		t.Fatalf("a range touching the workflows was pushed (err %v):\n%s", err, out)
	}
	// With the scope it goes; then a copy of main, and a rename, need none.
	apitest.MustGit(t, work, "push", "-q", remote(e, full), "HEAD:main")
	apitest.MustGit(t, work, "push", "-q", remote(e, repoOnly), "HEAD:refs/heads/copy")
	e.Must(201, "POST", "/repos/mona/site/branches/copy/rename", repoOnly, map[string]any{"new_name": "copied"})
	// Deleting a branch whose workflows differ from main's needs none.
	commitFile(t, work, ".github/workflows/side.yml")
	out, err = apitest.Git(t, work, "push", remote(e, repoOnly), "HEAD:main")
	if err == nil || !strings.Contains(out, "[remote rejected] HEAD -> main ("+patRefusal(".github/workflows/side.yml")+")") {
		t.Fatalf("an update adding a workflow was pushed (err %v):\n%s", err, out)
	}
	apitest.MustGit(t, work, "push", "-q", remote(e, full), "HEAD:refs/heads/side")
	apitest.MustGit(t, work, "push", "-q", remote(e, repoOnly), ":side")
	// A new branch, or a release's tag, at a commit no branch holds that
	// adds a workflow is; a release of main is not.
	side := strings.TrimSpace(apitest.MustGit(t, work, "rev-parse", "HEAD"))
	r := e.Do("POST", "/repos/mona/site/git/refs", repoOnly, map[string]any{"ref": "refs/heads/again", "sha": side})
	if r.StatusCode != 403 || message(t, r) != patRefusal(".github/workflows/side.yml") {
		t.Fatalf("branch at an unheld workflow commit: %d %s", r.StatusCode, r.Body)
	}
	r = e.Do("POST", "/repos/mona/site/releases", repoOnly, map[string]any{"tag_name": "v1", "target_commitish": side})
	if r.StatusCode != 403 || message(t, r) != patRefusal(".github/workflows/side.yml") {
		t.Fatalf("release tag at an unheld workflow commit: %d %s", r.StatusCode, r.Body)
	}
	e.Must(201, "POST", "/repos/mona/site/releases", repoOnly, map[string]any{"tag_name": "v1", "target_commitish": "main"})
}

// --- helpers ---

func putBody(content string, extra ...string) map[string]any {
	b := map[string]any{"message": "write", "content": base64.StdEncoding.EncodeToString([]byte(content + "\n"))}
	for i := 0; i+1 < len(extra); i += 2 {
		b[extra[i]] = extra[i+1]
	}
	return b
}

func message(t *testing.T, r *apitest.Response) string {
	t.Helper()
	var m struct {
		Message string `json:"message"`
	}
	r.JSON(t, &m)
	return m.Message
}

func blobSHA(t *testing.T, r *apitest.Response) string {
	t.Helper()
	var out struct {
		Content struct {
			SHA string `json:"sha"`
		} `json:"content"`
	}
	r.JSON(t, &out)
	return out.Content.SHA
}

// head is the commit a branch of mona/site points to ("" when missing).
func head(t *testing.T, e *apitest.Env, tok, branch string) string {
	t.Helper()
	r := e.Do("GET", "/repos/mona/site/git/ref/heads/"+branch, tok, nil)
	if r.StatusCode == 404 {
		return ""
	}
	var ref struct {
		Object struct {
			SHA string `json:"sha"`
		} `json:"object"`
	}
	r.JSON(t, &ref)
	return ref.Object.SHA
}

// workflowCommit makes, through the Git database API, a commit on parent
// that adds a workflow file at path.
func workflowCommit(t *testing.T, e *apitest.Env, tok, parent, path string) string {
	t.Helper()
	var c struct {
		SHA  string `json:"sha"`
		Tree struct {
			SHA string `json:"sha"`
		} `json:"tree"`
	}
	e.Must(200, "GET", "/repos/mona/site/git/commits/"+parent, tok, nil).JSON(t, &c)
	var tree struct {
		SHA string `json:"sha"`
	}
	e.Must(201, "POST", "/repos/mona/site/git/trees", tok, map[string]any{"base_tree": c.Tree.SHA,
		"tree": []map[string]any{{"path": path, "mode": "100644", "type": "blob", "content": "on: workflow_dispatch\n"}}}).JSON(t, &tree)
	var out struct {
		SHA string `json:"sha"`
	}
	e.Must(201, "POST", "/repos/mona/site/git/commits", tok, map[string]any{"message": "add " + path, "tree": tree.SHA,
		"parents": []string{parent}}).JSON(t, &out)
	return out.SHA
}

type pull struct {
	Number int    `json:"number"`
	NodeID string `json:"node_id"`
}

func openPull(t *testing.T, e *apitest.Env, tok, branch string) pull {
	t.Helper()
	var p pull
	e.Must(201, "POST", "/repos/mona/site/pulls", tok, map[string]any{"title": branch, "head": branch, "base": "main"}).JSON(t, &p)
	return p
}

type gqlError struct {
	Type    string `json:"type"`
	Message string `json:"message"`
}

func graphql(t *testing.T, e *apitest.Env, tok, query string, vars map[string]any) []gqlError {
	t.Helper()
	body, _ := json.Marshal(map[string]any{"query": query, "variables": vars})
	req, _ := http.NewRequest("POST", e.URL+"/api/graphql", bytes.NewReader(body))
	req.Header.Set("Authorization", "bearer "+tok)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var out struct {
		Errors []gqlError `json:"errors"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&out); err != nil {
		t.Fatal(err)
	}
	return out.Errors
}

// remote is mona/site's clone URL with a token as the password.
func remote(e *apitest.Env, tok string) string { return e.Remote("mona", "site", "mona", tok) }

func commitFile(t *testing.T, dir, file string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(filepath.Join(dir, file)), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, file), []byte("on: workflow_dispatch\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	apitest.MustGit(t, dir, "add", file)
	apitest.MustGit(t, dir, "commit", "-q", "-m", "add "+file)
}
