package codespaces_test

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/go-github/v92/github"

	"github.com/hubd/hubd/internal/apitest"
)

const devcontainer = `{
  // JSON with comments, as VS Code writes it
  "name": "Test",
  "containerEnv": {"GREETING": "hello"},
  "postCreateCommand": "echo \"$GREETING $GITHUB_REPOSITORY\" >> created.txt",
  "postStartCommand": ["/bin/sh", "-c", "echo started >> started.txt"], /* each start */
}
`

// accepted is the codespace of a 202 answer (go-github gives 202 bodies
// as an AcceptedError).
func accepted(t *testing.T, err error) *github.Codespace {
	t.Helper()
	var ae *github.AcceptedError
	if !errors.As(err, &ae) {
		t.Fatalf("want 202, got %v", err)
	}
	var cs github.Codespace
	if err := json.Unmarshal(ae.Raw, &cs); err != nil {
		t.Fatal(err)
	}
	return &cs
}

// wait polls the codespace until it is in state (the job workers run it).
func wait(t *testing.T, gh *github.Client, name, state string) *github.Codespace {
	t.Helper()
	ctx := context.Background()
	deadline := time.Now().Add(90 * time.Second)
	for {
		cs, _, err := gh.Codespaces.Get(ctx, name)
		if err != nil {
			t.Fatalf("get %s: %v", name, err)
		}
		if cs.GetState() == state {
			return cs
		}
		if cs.GetState() == "Failed" || time.Now().After(deadline) {
			t.Fatalf("codespace %s is %s, want %s (notice: %s)", name, cs.GetState(), state, cs.GetLastKnownStopNotice())
		}
		time.Sleep(50 * time.Millisecond)
	}
}

func TestCodespacesLifecycle(t *testing.T) {
	e := apitest.New(t)
	ctx := context.Background()
	alice, _ := e.NewUser("alice", false)
	tok := e.Token(alice, "repo,codespace,admin:org")
	gh := e.GitHub(tok)
	e.Must(201, "POST", "/admin/organizations", e.AdminToken, map[string]any{"login": "acme", "admin": "alice"})
	if _, _, err := gh.Repositories.Create(ctx, "", &github.Repository{Name: github.Ptr("elsewhere"), Private: github.Ptr(true)}); err != nil {
		t.Fatal(err)
	}
	repo, _, err := gh.Repositories.Create(ctx, "acme", &github.Repository{Name: github.Ptr("app"), AutoInit: github.Ptr(true)})
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := gh.Repositories.CreateFile(ctx, "acme", "app", ".devcontainer/devcontainer.json", &github.RepositoryContentFileOptions{
		Message: github.Ptr("devcontainer"), Content: []byte(devcontainer)}); err != nil {
		t.Fatal(err)
	}

	// Discovery, defaults, permissions and machines.
	dcs, _, err := gh.Codespaces.ListDevContainerConfigurations(ctx, "acme", "app", nil)
	if err != nil || dcs.TotalCount != 1 || dcs.Devcontainers[0].Path != ".devcontainer/devcontainer.json" || dcs.Devcontainers[0].GetName() != "Test" {
		t.Fatalf("devcontainers: %+v %v", dcs, err)
	}
	def, _, err := gh.Codespaces.GetDefaultAttributes(ctx, "acme", "app", nil)
	if err != nil || def.Defaults.GetDevcontainerPath() != ".devcontainer/devcontainer.json" || def.BillableOwner.GetLogin() != "alice" {
		t.Fatalf("defaults: %+v %v", def, err)
	}
	perm, _, err := gh.Codespaces.CheckPermissions(ctx, "acme", "app", "main", ".devcontainer/devcontainer.json")
	if err != nil || !perm.Accepted {
		t.Fatalf("permissions_check: %+v %v", perm, err)
	}
	if _, _, err := gh.Codespaces.CheckPermissions(ctx, "acme", "app", "main", ".devcontainer/nope.json"); apitest.Status(err) != 422 {
		t.Fatalf("permissions_check of a missing file: %v", err)
	}
	ms, _, err := gh.Codespaces.ListRepositoryMachineTypes(ctx, "acme", "app", nil)
	if err != nil || ms.TotalCount < 1 || ms.Machines[0].GetCPUs() < 1 || ms.Machines[0].GetMemoryInBytes() <= 0 {
		t.Fatalf("machines: %+v %v", ms, err)
	}

	// Create: 202 Queued, then Available with postCreateCommand run.
	_, _, err = gh.Codespaces.CreateInRepo(ctx, "acme", "app", github.CreateCodespaceRequest{DisplayName: github.Ptr("my space")})
	cs := accepted(t, err)
	if cs.GetState() != "Queued" {
		t.Fatalf("create: %+v", cs)
	}
	name := cs.GetName()
	cs = wait(t, gh, name, "Available")
	if cs.GetDevcontainerPath() != ".devcontainer/devcontainer.json" || cs.GetDisplayName() != "my space" || cs.GetRepository().GetID() != repo.GetID() {
		t.Fatalf("codespace: %+v", cs)
	}
	if !strings.HasSuffix(cs.GetWebURL(), "/codespaces/"+name+"/") {
		t.Fatalf("web_url %s", cs.GetWebURL())
	}
	dir := filepath.Join(e.DataDir, "codespaces", name)
	read := func(f string) string {
		b, _ := os.ReadFile(filepath.Join(dir, f))
		return string(b)
	}
	if got := read("created.txt"); got != "hello acme/app\n" {
		t.Fatalf("postCreateCommand wrote %q", got)
	}
	if got := read("started.txt"); got != "started\n" {
		t.Fatalf("postStartCommand wrote %q", got)
	}
	if got := read(".git/config"); !strings.Contains(got, "name = alice") || !strings.Contains(got, "+alice@users.noreply.") {
		t.Fatalf("git identity: %s", got)
	}

	// Start while running: 409. Stop, start: postCreate not again.
	if _, _, err := gh.Codespaces.Start(ctx, name); apitest.Status(err) != 409 {
		t.Fatalf("start while running: %v", err)
	}
	if _, _, err := gh.Codespaces.Stop(ctx, name); err != nil {
		t.Fatal(err)
	}
	wait(t, gh, name, "Shutdown")
	if _, _, err := gh.Codespaces.Start(ctx, name); err != nil {
		t.Fatal(err)
	}
	wait(t, gh, name, "Available")
	if got := read("created.txt"); got != "hello acme/app\n" {
		t.Fatalf("postCreateCommand ran again: %q", got)
	}
	if got := read("started.txt"); got != "started\nstarted\n" {
		t.Fatalf("postStartCommand at the second start: %q", got)
	}

	// PATCH.
	up, _, err := gh.Codespaces.Update(ctx, name, github.UpdateCodespaceRequest{DisplayName: github.Ptr("renamed"), RecentFolders: []string{"/workspaces/app"}})
	if err != nil || up.GetDisplayName() != "renamed" || len(up.RecentFolders) != 1 {
		t.Fatalf("update: %+v %v", up, err)
	}
	if _, _, err := gh.Codespaces.Update(ctx, name, github.UpdateCodespaceRequest{Machine: github.Ptr("nonsense")}); apitest.Status(err) != 422 {
		t.Fatalf("update to an unknown machine: %v", err)
	}
	if m, _, err := gh.Codespaces.ListCodespaceMachineTypes(ctx, name); err != nil || m.TotalCount < 1 {
		t.Fatalf("codespace machines: %v", err)
	}

	// Lists.
	for _, l := range []func() (*github.ListCodespaces, *github.Response, error){
		func() (*github.ListCodespaces, *github.Response, error) { return gh.Codespaces.List(ctx, nil) },
		func() (*github.ListCodespaces, *github.Response, error) {
			return gh.Codespaces.List(ctx, &github.ListCodespacesOptions{RepositoryID: repo.GetID()})
		},
		func() (*github.ListCodespaces, *github.Response, error) {
			return gh.Codespaces.ListInRepo(ctx, "acme", "app", nil)
		},
		func() (*github.ListCodespaces, *github.Response, error) {
			return gh.Codespaces.ListInOrg(ctx, "acme", nil)
		},
		func() (*github.ListCodespaces, *github.Response, error) {
			return gh.Codespaces.ListUserCodespacesInOrg(ctx, "acme", "alice", nil)
		},
	} {
		list, _, err := l()
		if err != nil || list.GetTotalCount() != 1 || list.Codespaces[0].GetName() != name {
			t.Fatalf("list: %+v %v", list, err)
		}
	}

	// Another user sees none of it.
	bob, _ := e.NewUser("bob", false)
	bobGH := e.GitHub(e.Token(bob, "repo,codespace,admin:org"))
	if _, _, err := bobGH.Codespaces.Get(ctx, name); apitest.Status(err) != 404 {
		t.Fatalf("bob gets alice's codespace: %v", err)
	}
	if _, _, err := bobGH.Codespaces.ListInOrg(ctx, "acme", nil); apitest.Status(err) != 404 {
		t.Fatalf("a non-member lists the organization's codespaces: %v", err)
	}
	// Without the codespace scope: 403.
	if _, _, err := e.GitHub(e.Token(alice, "repo")).Codespaces.Get(ctx, name); apitest.Status(err) != 403 {
		t.Fatalf("without the codespace scope: %v", err)
	}

	// Export: an edit in the workspace reaches a branch git clone sees.
	if err := os.WriteFile(filepath.Join(dir, "edit.txt"), []byte("made in the codespace\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	_, _, err = gh.Codespaces.ExportCodespace(ctx, name)
	var ae *github.AcceptedError
	if !errors.As(err, &ae) {
		t.Fatalf("export: %v", err)
	}
	var ex *github.CodespaceExport
	if err := json.Unmarshal(ae.Raw, &ex); err != nil || ex.GetState() != "in_progress" {
		t.Fatalf("export: %s %v", ae.Raw, err)
	}
	deadline := time.Now().Add(60 * time.Second)
	for ex.GetState() == "in_progress" && time.Now().Before(deadline) {
		time.Sleep(50 * time.Millisecond)
		if ex, _, err = gh.Codespaces.GetLatestCodespaceExport(ctx, name); err != nil {
			t.Fatal(err)
		}
	}
	if ex.GetState() != "succeeded" || ex.GetBranch() != "codespace-"+name || len(ex.GetSHA()) != 40 {
		t.Fatalf("export: %+v", ex)
	}
	byID, _, err := e.GitHub(tok).Codespaces.GetLatestCodespaceExport(ctx, name)
	if err != nil || byID.GetSHA() != ex.GetSHA() {
		t.Fatalf("export by id: %v", err)
	}
	e.Must(200, "GET", "/user/codespaces/"+name+"/exports/"+ex.GetID(), tok, nil)
	e.Must(404, "GET", "/user/codespaces/"+name+"/exports/99999", tok, nil)
	clone := t.TempDir()
	apitest.MustGit(t, clone, "clone", "-q", "-b", ex.GetBranch(), e.Remote("acme", "app", "alice", tok), "c")
	if b, err := os.ReadFile(filepath.Join(clone, "c", "edit.txt")); err != nil || string(b) != "made in the codespace\n" {
		t.Fatalf("exported branch: %q %v", b, err)
	}

	// The workspace's credential reaches its repository only.
	cred := strings.TrimSpace(read(".git/hubd-credentials"))
	at := strings.Index(cred, "@")
	wsToken := cred[strings.LastIndex(cred[:at], ":")+1 : at]
	e.Must(200, "GET", "/repos/acme/app", wsToken, nil)
	e.Must(404, "GET", "/repos/alice/elsewhere", wsToken, nil)

	// The owner stops and deletes a member's codespace.
	if _, err := gh.Codespaces.StopUserCodespaceInOrg(ctx, "acme", "alice", name); err != nil {
		t.Fatal(err)
	}
	wait(t, gh, name, "Shutdown")
	if _, err := gh.Codespaces.DeleteUserCodespaceInOrg(ctx, "acme", "alice", name); !errors.As(err, &ae) {
		t.Fatal(err)
	}
	gone(t, gh, name)
	if _, err := os.Stat(dir); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("workspace left: %v", err)
	}
	// Stopping revoked the token.
	e.Must(401, "GET", "/repos/acme/app", wsToken, nil)
}

// gone waits until the codespace is deleted.
func gone(t *testing.T, gh *github.Client, name string) {
	t.Helper()
	deadline := time.Now().Add(60 * time.Second)
	for {
		_, _, err := gh.Codespaces.Get(context.Background(), name)
		if apitest.Status(err) == 404 {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("codespace %s not deleted: %v", name, err)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

func TestCodespaceFromPullAndUserCreate(t *testing.T) {
	e := apitest.New(t)
	ctx := context.Background()
	alice, _ := e.NewUser("alice", false)
	tok := e.Token(alice, "repo,codespace")
	gh := e.GitHub(tok)
	repo, _, err := gh.Repositories.Create(ctx, "", &github.Repository{Name: github.Ptr("lib"), AutoInit: github.Ptr(true)})
	if err != nil {
		t.Fatal(err)
	}
	main, _, err := gh.Git.GetRef(ctx, "alice", "lib", "heads/main")
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := gh.Git.CreateRef(ctx, "alice", "lib", github.CreateRef{Ref: "refs/heads/topic", SHA: main.Object.GetSHA()}); err != nil {
		t.Fatal(err)
	}
	if _, _, err := gh.Repositories.CreateFile(ctx, "alice", "lib", "topic.txt", &github.RepositoryContentFileOptions{
		Message: github.Ptr("topic"), Content: []byte("on topic\n"), Branch: github.Ptr("topic")}); err != nil {
		t.Fatal(err)
	}
	pr, _, err := gh.PullRequests.Create(ctx, "alice", "lib", github.CreatePullRequest{Title: github.Ptr("t"), Head: "topic", Base: "main"})
	if err != nil {
		t.Fatal(err)
	}
	_, _, err = gh.Codespaces.CreateFromPullRequest(ctx, "alice", "lib", pr.GetNumber(), github.CreateCodespaceRequest{})
	cs := wait(t, gh, accepted(t, err).GetName(), "Available")
	if cs.GetPullsURL() == "" || cs.GetGitStatus().GetRef() != "topic" {
		t.Fatalf("codespace of a pull: %+v", cs)
	}
	if b, err := os.ReadFile(filepath.Join(e.DataDir, "codespaces", cs.GetName(), "topic.txt")); err != nil || string(b) != "on topic\n" {
		t.Fatalf("workspace of the pull's head: %q %v", b, err)
	}
	// POST /user/codespaces with a repository id, and bad input.
	_, _, err = gh.Codespaces.Create(ctx, github.CreateCodespaceForUserRequest{RepositoryID: github.Ptr(repo.GetID()), Ref: github.Ptr("topic"), IdleTimeoutMinutes: github.Ptr(5)})
	other := accepted(t, err)
	if other.GetIdleTimeoutMinutes() != 5 {
		t.Fatalf("create for user: %+v", other)
	}
	if _, _, err := gh.Codespaces.Create(ctx, github.CreateCodespaceForUserRequest{RepositoryID: github.Ptr(repo.GetID()), Ref: github.Ptr("nope")}); apitest.Status(err) != 422 {
		t.Fatalf("create at an unknown ref: %v", err)
	}
	if _, _, err := gh.Codespaces.Create(ctx, github.CreateCodespaceForUserRequest{RepositoryID: github.Ptr(int64(999999))}); apitest.Status(err) != 404 {
		t.Fatalf("create in an unknown repository: %v", err)
	}
	wait(t, gh, other.GetName(), "Available")
	var ae *github.AcceptedError
	if _, err := gh.Codespaces.Delete(ctx, other.GetName()); !errors.As(err, &ae) {
		t.Fatal(err)
	}
	gone(t, gh, other.GetName())
	resp2 := e.Do("GET", "/user/codespaces", tok, nil)
	if resp2.StatusCode != http.StatusOK {
		t.Fatalf("list: %d", resp2.StatusCode)
	}
}

// TestIdleTimeoutAndRetention: a codespace unused for its idle timeout
// stops itself, and one stopped for its retention period is deleted.
func TestIdleTimeoutAndRetention(t *testing.T) {
	e := apitest.New(t)
	var offset atomic.Int64
	e.Store.SetClock(func() time.Time { return time.Now().Add(time.Duration(offset.Load())) })
	ctx := context.Background()
	alice, _ := e.NewUser("alice", false)
	gh := e.GitHub(e.Token(alice, "repo,codespace"))
	if _, _, err := gh.Repositories.Create(ctx, "", &github.Repository{Name: github.Ptr("lib"), AutoInit: github.Ptr(true)}); err != nil {
		t.Fatal(err)
	}
	_, _, err := gh.Codespaces.CreateInRepo(ctx, "alice", "lib", github.CreateCodespaceRequest{IdleTimeoutMinutes: github.Ptr(5), RetentionPeriodMinutes: github.Ptr(60)})
	name := accepted(t, err).GetName()
	wait(t, gh, name, "Available")
	for _, bad := range []map[string]any{{"idle_timeout_minutes": 1}, {"retention_period_minutes": 50000}, {"location": "Mars"}, {"machine": "huge"}} {
		e.Must(422, "POST", "/repos/alice/lib/codespaces", e.Token(alice, "repo,codespace"), bad)
	}
	offset.Store(int64(6 * time.Minute))
	e.Deps.Jobs.Notify()
	cs := wait(t, gh, name, "Shutdown")
	if cs.RetentionExpiresAt == nil {
		t.Fatalf("a stopped codespace has no retention_expires_at: %+v", cs)
	}
	offset.Store(int64(70 * time.Minute))
	e.Deps.Jobs.Notify()
	gone(t, gh, name)
}

// TestPublish: a codespace made from a template repository becomes a new
// repository of its owner with the workspace's files.
func TestPublish(t *testing.T) {
	e := apitest.New(t)
	ctx := context.Background()
	alice, _ := e.NewUser("alice", false)
	tok := e.Token(alice, "repo,codespace")
	gh := e.GitHub(tok)
	if _, _, err := gh.Repositories.Create(ctx, "", &github.Repository{Name: github.Ptr("tmpl"), AutoInit: github.Ptr(true), IsTemplate: github.Ptr(true)}); err != nil {
		t.Fatal(err)
	}
	if _, _, err := gh.Repositories.Create(ctx, "", &github.Repository{Name: github.Ptr("plain"), AutoInit: github.Ptr(true)}); err != nil {
		t.Fatal(err)
	}
	_, _, err := gh.Codespaces.CreateInRepo(ctx, "alice", "tmpl", github.CreateCodespaceRequest{})
	name := accepted(t, err).GetName()
	wait(t, gh, name, "Available")
	if m := e.Must(200, "GET", "/user/codespaces/"+name, tok, nil).Map(t); m["publish_url"] == nil {
		t.Fatal("a template's codespace has no publish_url")
	}
	if err := os.WriteFile(filepath.Join(e.DataDir, "codespaces", name, "mine.txt"), []byte("mine\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	pub, resp, err := gh.Codespaces.Publish(ctx, name, github.PublishCodespaceRequest{Name: github.Ptr("mine"), Private: github.Ptr(true)})
	if err != nil || resp.StatusCode != 201 || pub.GetRepository().GetFullName() != "alice/mine" || !pub.GetRepository().GetPrivate() {
		t.Fatalf("publish: %+v %v", pub, err)
	}
	if _, _, err := gh.Codespaces.Publish(ctx, name, github.PublishCodespaceRequest{Name: github.Ptr("again")}); apitest.Status(err) != 422 {
		t.Fatalf("publishing twice: %v", err)
	}
	f, _, _, err := gh.Repositories.GetContents(ctx, "alice", "mine", "mine.txt", nil)
	if err != nil {
		t.Fatal(err)
	}
	if s, _ := f.GetContent(); s != "mine\n" {
		t.Fatalf("published file: %q", s)
	}
	_, _, err = gh.Codespaces.CreateInRepo(ctx, "alice", "plain", github.CreateCodespaceRequest{})
	plain := accepted(t, err).GetName()
	wait(t, gh, plain, "Available")
	if _, _, err := gh.Codespaces.Publish(ctx, plain, github.PublishCodespaceRequest{Name: github.Ptr("x")}); apitest.Status(err) != 422 {
		t.Fatalf("publishing a codespace of a non-template: %v", err)
	}
}

// TestDevcontainerDiscovery: the three places GitHub reads, in its order.
func TestDevcontainerDiscovery(t *testing.T) {
	e := apitest.New(t)
	ctx := context.Background()
	alice, _ := e.NewUser("alice", false)
	gh := e.GitHub(e.Token(alice, "repo,codespace"))
	if _, _, err := gh.Repositories.Create(ctx, "", &github.Repository{Name: github.Ptr("multi"), AutoInit: github.Ptr(true)}); err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{".devcontainer/python/devcontainer.json", ".devcontainer.json", ".devcontainer/devcontainer.json", ".devcontainer/go/devcontainer.json", ".devcontainer/a/b/devcontainer.json"} {
		if _, _, err := gh.Repositories.CreateFile(ctx, "alice", "multi", p, &github.RepositoryContentFileOptions{Message: github.Ptr(p), Content: []byte("{}")}); err != nil {
			t.Fatal(err)
		}
	}
	list, _, err := gh.Codespaces.ListDevContainerConfigurations(ctx, "alice", "multi", nil)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, d := range list.Devcontainers {
		got = append(got, d.Path)
	}
	want := []string{".devcontainer/devcontainer.json", ".devcontainer.json", ".devcontainer/go/devcontainer.json", ".devcontainer/python/devcontainer.json"}
	if strings.Join(got, " ") != strings.Join(want, " ") || list.TotalCount != 4 || list.Devcontainers[2].GetName() != "go" {
		t.Fatalf("devcontainers %v, want %v", got, want)
	}
	page, resp, err := gh.Codespaces.ListDevContainerConfigurations(ctx, "alice", "multi", &github.ListOptions{PerPage: 3, Page: 2})
	if err != nil || len(page.Devcontainers) != 1 || resp.NextPage != 0 || resp.PrevPage != 1 {
		t.Fatalf("page 2: %v %v", page, err)
	}
}

// TestExportToFork: a user who may not push to the repository exports to
// their fork of it.
func TestExportToFork(t *testing.T) {
	e := apitest.New(t)
	ctx := context.Background()
	alice, _ := e.NewUser("alice", false)
	bob, _ := e.NewUser("bob", false)
	if _, _, err := e.GitHub(e.Token(alice, "repo")).Repositories.Create(ctx, "", &github.Repository{Name: github.Ptr("lib"), AutoInit: github.Ptr(true)}); err != nil {
		t.Fatal(err)
	}
	btok := e.Token(bob, "repo,codespace")
	gh := e.GitHub(btok)
	_, _, err := gh.Codespaces.CreateInRepo(ctx, "alice", "lib", github.CreateCodespaceRequest{})
	name := accepted(t, err).GetName()
	wait(t, gh, name, "Available")
	if err := os.WriteFile(filepath.Join(e.DataDir, "codespaces", name, "bob.txt"), []byte("bob\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	export := func() *github.CodespaceExport {
		t.Helper()
		if _, _, err := gh.Codespaces.ExportCodespace(ctx, name); !errors.As(err, new(*github.AcceptedError)) {
			t.Fatalf("export: %v", err)
		}
		deadline := time.Now().Add(60 * time.Second)
		for {
			ex, _, err := gh.Codespaces.GetLatestCodespaceExport(ctx, name)
			if err != nil {
				t.Fatal(err)
			}
			if ex.GetState() != "in_progress" {
				return ex
			}
			if time.Now().After(deadline) {
				t.Fatal("export still in progress")
			}
			time.Sleep(50 * time.Millisecond)
		}
	}
	// No fork yet: the export fails and says why.
	if ex := export(); ex.GetState() != "failed" {
		t.Fatalf("export without a fork: %+v", ex)
	}
	if _, _, err := gh.Repositories.CreateFork(ctx, "alice", "lib", nil); err != nil && !errors.As(err, new(*github.AcceptedError)) {
		t.Fatal(err)
	}
	deadline := time.Now().Add(60 * time.Second)
	for e.Do("GET", "/repos/bob/lib/branches/main", btok, nil).StatusCode != 200 {
		if time.Now().After(deadline) {
			t.Fatal("fork not made")
		}
		time.Sleep(50 * time.Millisecond)
	}
	ex := export()
	if ex.GetState() != "succeeded" || !strings.Contains(ex.GetHTMLURL(), "/bob/lib/tree/") {
		t.Fatalf("export to the fork: %+v", ex)
	}
	clone := t.TempDir()
	apitest.MustGit(t, clone, "clone", "-q", "-b", ex.GetBranch(), e.Remote("bob", "lib", "bob", btok), "c")
	if b, err := os.ReadFile(filepath.Join(clone, "c", "bob.txt")); err != nil || string(b) != "bob\n" {
		t.Fatalf("exported branch in the fork: %q %v", b, err)
	}
	e.Must(404, "GET", "/repos/alice/lib/branches/"+ex.GetBranch(), btok, nil)
}

// TestFailingLifecycleCommand: a failing postCreateCommand leaves the
// codespace Available with the failure in its notice (as GitHub's
// recovery-less creation log says), and does not run again at a start.
func TestFailingLifecycleCommand(t *testing.T) {
	e := apitest.New(t)
	ctx := context.Background()
	alice, _ := e.NewUser("alice", false)
	gh := e.GitHub(e.Token(alice, "repo,codespace"))
	if _, _, err := gh.Repositories.Create(ctx, "", &github.Repository{Name: github.Ptr("bad"), AutoInit: github.Ptr(true)}); err != nil {
		t.Fatal(err)
	}
	if _, _, err := gh.Repositories.CreateFile(ctx, "alice", "bad", ".devcontainer.json", &github.RepositoryContentFileOptions{
		Message: github.Ptr("dc"), Content: []byte(`{"postCreateCommand": "echo tried >> tried.txt; exit 3"}`)}); err != nil {
		t.Fatal(err)
	}
	_, _, err := gh.Codespaces.CreateInRepo(ctx, "alice", "bad", github.CreateCodespaceRequest{})
	name := accepted(t, err).GetName()
	cs := wait(t, gh, name, "Available")
	if !strings.Contains(cs.GetLastKnownStopNotice(), "postCreateCommand failed with exit code 3") {
		t.Fatalf("notice: %q", cs.GetLastKnownStopNotice())
	}
	if _, _, err := gh.Codespaces.Stop(ctx, name); err != nil {
		t.Fatal(err)
	}
	wait(t, gh, name, "Shutdown")
	if _, _, err := gh.Codespaces.Start(ctx, name); err != nil {
		t.Fatal(err)
	}
	wait(t, gh, name, "Available")
	if b, _ := os.ReadFile(filepath.Join(e.DataDir, "codespaces", name, "tried.txt")); string(b) != "tried\n" {
		t.Fatalf("postCreateCommand ran %q", b)
	}
}

// TestDeleteWhileQueued: a codespace deleted before its provisioning ran
// is never provisioned, and goes.
func TestDeleteWhileQueued(t *testing.T) {
	e := apitest.New(t, apitest.Options{ManualJobs: true})
	ctx := context.Background()
	alice, _ := e.NewUser("alice", false)
	tok := e.Token(alice, "repo,codespace")
	gh := e.GitHub(tok)
	if _, _, err := gh.Repositories.Create(ctx, "", &github.Repository{Name: github.Ptr("lib"), AutoInit: github.Ptr(true)}); err != nil {
		t.Fatal(err)
	}
	_, _, err := gh.Codespaces.CreateInRepo(ctx, "alice", "lib", github.CreateCodespaceRequest{})
	name := accepted(t, err).GetName()
	if _, _, err := gh.Codespaces.Create(ctx, github.CreateCodespaceForUserRequest{}); apitest.Status(err) != 422 {
		t.Fatalf("create without a repository: %v", err)
	}
	e.Must(202, "DELETE", "/user/codespaces/"+name, tok, nil)
	if s := e.Must(200, "GET", "/user/codespaces/"+name, tok, nil).Map(t)["state"]; s != "Deleted" {
		t.Fatalf("state %v, want Deleted", s)
	}
	e.Must(409, "POST", "/user/codespaces/"+name+"/start", tok, nil)
	e.RunJobs()
	e.Must(404, "GET", "/user/codespaces/"+name, tok, nil)
	if _, err := os.Stat(filepath.Join(e.DataDir, "codespaces", name)); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("a workspace was made: %v", err)
	}
}
