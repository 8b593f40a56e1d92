package codespaces_test

import (
	"context"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/google/go-github/v92/github"

	"github.com/hubd/hubd/internal/apitest"
)

// A codespace's web_url is its browser IDE (code-server behind hubd's
// proxy), for its owner only: the owner's token opens the workbench of the
// workspace; another user, or nobody, gets 404; a stopped codespace's IDE
// is gone (409) until it starts again.
func TestCodespaceWebURL(t *testing.T) {
	e := apitest.New(t, apitest.Options{CodespaceIDE: true})
	ctx := context.Background()
	alice, _ := e.NewUser("alice", false)
	tok := e.Token(alice, "repo,codespace")
	gh := e.GitHub(tok)
	bob, _ := e.NewUser("bob", false)
	bobTok := e.Token(bob, "repo,codespace")
	if _, _, err := gh.Repositories.Create(ctx, "", &github.Repository{Name: github.Ptr("app"), AutoInit: github.Ptr(true)}); err != nil {
		t.Fatal(err)
	}
	// A server of the codespace on the host's loopback (the sandbox keeps
	// the network), which its devcontainer.json forwards.
	app := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { io.WriteString(w, "dev server at "+r.URL.Path) }))
	defer app.Close()
	_, port, _ := net.SplitHostPort(app.Listener.Addr().String())
	if _, _, err := gh.Repositories.CreateFile(ctx, "alice", "app", ".devcontainer.json", &github.RepositoryContentFileOptions{
		Message: github.Ptr("devcontainer"), Content: []byte(`{"forwardPorts": [` + port + `, "db:5432"]}`)}); err != nil {
		t.Fatal(err)
	}
	_, _, err := gh.Codespaces.CreateInRepo(ctx, "alice", "app", github.CreateCodespaceRequest{})
	name := accepted(t, err).GetName()
	cs := wait(t, gh, name, "Available")
	if n := cs.GetLastKnownStopNotice(); !strings.Contains(n, "Forwarded ports (forwardPorts): "+port+",") || !strings.Contains(n, `"db:5432" is another host's port`) {
		t.Fatalf("notes: %s", n)
	}

	get := func(token string) (int, string) {
		t.Helper()
		req, _ := http.NewRequest("GET", cs.GetWebURL(), nil)
		if token != "" {
			req.Header.Set("Authorization", "token "+token)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, string(b)
	}
	if code, body := get(tok); code != 200 || !strings.Contains(body, "workbench") {
		t.Fatalf("owner: %d %.500s", code, body)
	}
	for who, token := range map[string]string{"another user": bobTok, "nobody": ""} {
		if code, body := get(token); code != 404 {
			t.Errorf("%s: %d %.300s", who, code, body)
		}
	}

	// The IDE is not served at hubd's origin: web_url (there) signs the
	// owner's browser over to the IDEs' own origin, whose cookie then
	// opens the IDE; the hand-off works once per browser, for that
	// codespace only, and hubd's session never reaches the IDE's origin
	// as a credential.
	if !strings.HasPrefix(cs.GetWebURL(), e.URL+"/codespaces/") || e.CodespacesURL == "" || e.CodespacesURL == e.URL {
		t.Fatalf("web_url %s, hubd %s, IDEs %s", cs.GetWebURL(), e.URL, e.CodespacesURL)
	}
	e.SetPassword("alice", "correct horse battery")
	e.SetPassword("bob", "correct horse battery")
	b := e.Browser()
	b.SignIn("alice", "correct horse battery")
	p := b.Get(cs.GetWebURL())
	if p.Status != 303 || !strings.HasPrefix(p.Location, e.CodespacesURL+"/codespaces/"+name+"/?hubd_handoff=") {
		t.Fatalf("hand-off: %d %q", p.Status, p.Location)
	}
	handoff := p.Location
	if p = b.Get(handoff); p.Status != 303 || p.Location != "/codespaces/"+name+"/" {
		t.Fatalf("IDE origin, hand-off: %d %q", p.Status, p.Location)
	}
	p = b.Get(e.CodespacesURL + p.Location)
	if p.Status == 302 && strings.HasPrefix(p.Location, "./?folder=") { // code-server opens the workspace
		p = b.Get(e.CodespacesURL + "/codespaces/" + name + "/" + strings.TrimPrefix(p.Location, "./"))
	}
	if p.Status != 200 || !strings.Contains(p.Body, "workbench") {
		t.Fatalf("IDE origin, with its cookie: %d %.300s", p.Status, p.Body)
	}
	// The forwarded port, through the same cookie; no other port.
	if p = b.Get(e.CodespacesURL + "/codespaces/" + name + "/proxy/" + port + "/hi"); p.Status != 200 || p.Body != "dev server at /hi" {
		t.Fatalf("forwarded port: %d %.300s", p.Status, p.Body)
	}
	if p = b.Get(e.CodespacesURL + "/codespaces/" + name + "/proxy/5432/"); p.Status != 404 {
		t.Fatalf("a port not forwarded: %d", p.Status)
	}
	// Without the hand-off's cookie, hubd's session opens nothing there.
	other := e.Browser()
	other.SignIn("alice", "correct horse battery")
	if p = other.Get(e.CodespacesURL + "/codespaces/" + name + "/"); p.Status != 404 {
		t.Fatalf("IDE origin, hubd's session only: %d", p.Status)
	}
	// A hand-off is the owner's and that codespace's: bob's browser can
	// not be signed over, and a forged or altered one is refused.
	bb := e.Browser()
	bb.SignIn("bob", "correct horse battery")
	if p = bb.Get(cs.GetWebURL()); p.Status != 404 {
		t.Fatalf("bob's hand-off: %d %q", p.Status, p.Location)
	}
	if p = bb.Get(e.CodespacesURL + "/codespaces/" + name + "/proxy/" + port + "/hi"); p.Status != 404 {
		t.Fatalf("bob at the forwarded port: %d", p.Status)
	}
	forged := strings.Replace(handoff, "hubd_handoff=", "hubd_handoff=9", 1)
	if p = bb.Get(forged); p.Status != 404 {
		t.Fatalf("forged hand-off: %d %q", p.Status, p.Location)
	}
	// The IDEs' origin serves the IDEs only.
	if p = b.Get(e.CodespacesURL + "/user"); p.Status != 404 {
		t.Fatalf("IDE origin, API path: %d", p.Status)
	}

	if _, _, err := gh.Codespaces.Stop(ctx, name); err != nil && apitest.Status(err) != 202 {
		t.Fatal(err)
	}
	wait(t, gh, name, "Shutdown")
	if code, _ := get(tok); code != 409 {
		t.Fatalf("stopped codespace's IDE: %d", code)
	}
}
