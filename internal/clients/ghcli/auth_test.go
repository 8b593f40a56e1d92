package ghcli_test

import (
	"bufio"
	"context"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/hubd/hubd/internal/apitest"
	"github.com/hubd/hubd/internal/clients/ghcli"
)

// TestGhAuthLoginWeb runs an unmodified `gh auth login --hostname H --web`:
// gh starts the device flow with the GitHub CLI's OAuth app (which hubd
// knows out of the box, as GitHub Enterprise Server does) and prints its
// one-time code; a browser signs in to hubd and enters the code; gh's
// polling gets a gho_ token, which it saves and `gh api user` then uses.
func TestGhAuthLoginWeb(t *testing.T) {
	env := apitest.New(t)
	mona, _ := env.NewUser("mona", false)
	env.SetPassword(mona.Login, "correct horse battery")
	g := ghcli.Start(t, env)

	ctx, cancel := context.WithTimeout(context.Background(), ghcli.Timeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, g.Bin, "auth", "login", "--hostname", ghcli.Host, "--web", "--git-protocol", "https", "--insecure-storage")
	cmd.Dir, cmd.Env = g.Home, g.Environ()
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	var stdout strings.Builder
	cmd.Stdout = &stdout
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	// gh prints "! First copy your one-time code: XXXX-XXXX" and then
	// polls; the browser enters the code meanwhile.
	codeRE := regexp.MustCompile(`one-time code: ([A-Z0-9]{4}-[A-Z0-9]{4})`)
	var printed strings.Builder
	code := ""
	sc := bufio.NewScanner(stderr)
	for code == "" && sc.Scan() {
		printed.WriteString(sc.Text() + "\n")
		if m := codeRE.FindStringSubmatch(sc.Text()); m != nil {
			code = m[1]
		}
	}
	if code == "" {
		cmd.Wait()
		t.Fatalf("gh printed no one-time code:\n%s", printed.String())
	}
	env.ApproveDevice(mona.Login, "correct horse battery", code, true)
	rest, _ := io.ReadAll(stderr)
	printed.Write(rest)
	start := time.Now()
	if err := cmd.Wait(); err != nil {
		t.Fatalf("gh auth login: %v\nstdout:\n%s\nstderr:\n%s", err, stdout.String(), printed.String())
	}
	t.Logf("gh finished %s after the approval", time.Since(start).Round(time.Second))
	if !strings.Contains(printed.String(), "Logged in as mona") {
		t.Errorf("gh did not report the login:\n%s", printed.String())
	}
	hosts, err := os.ReadFile(filepath.Join(g.ConfigDir, "hosts.yml"))
	if err != nil || !strings.Contains(string(hosts), "oauth_token: gho_") || !strings.Contains(string(hosts), "user: mona") {
		t.Fatalf("hosts.yml holds no gho_ token for mona (%v):\n%s", err, hosts)
	}
	var user struct{ Login string }
	decode(t, g.Must("api", "user"), &user)
	if user.Login != "mona" {
		t.Errorf("gh api user: login %q, want mona", user.Login)
	}
	status := g.Run("auth", "status", "--hostname", ghcli.Host)
	if status.Err != nil || !strings.Contains(status.Stdout+status.Stderr, "Token scopes: 'gist', 'read:org', 'repo'") {
		t.Errorf("gh auth status:\n%s", status)
	}
}
