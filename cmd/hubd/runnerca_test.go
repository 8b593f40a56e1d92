package main

import (
	"bytes"
	"crypto/tls"
	"crypto/x509"
	"net"
	"net/http"
	"net/http/httputil"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/hubd/hubd/internal/clients/ghcli"
)

// TestRunnerPrivateCA: hubd served over https with a certificate of its own
// CA (a TLS proxy in front of hubd serve, as an operator's would be). A
// runner given --ca-file reaches hubd over https and its job's curl, git
// and node trust hubd; a runner without it runs the same steps into a
// certificate error.
func TestRunnerPrivateCA(t *testing.T) {
	cred := runnerUser(t)
	caPEM, leaf, err := ghcli.NewCert("127.0.0.1")
	if err != nil {
		t.Fatal(err)
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	public := "https://" + l.Addr().String()
	f := newRunnerFixture(t, "--actions-workers", "0", "--runner-offline", "3s", "--external-url", public)
	target, _ := url.Parse(f.s.base)
	proxy := httputil.NewSingleHostReverseProxy(target)
	proxy.FlushInterval = -1 // the runner's long polls and log streams
	srv := &http.Server{Handler: proxy, TLSConfig: &tls.Config{Certificates: []tls.Certificate{leaf}}}
	go srv.ServeTLS(l, "", "")
	t.Cleanup(func() { srv.Close() })

	// The CA file, readable by the runner user.
	caDir, err := os.MkdirTemp("", "hubd-ca-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(caDir) })
	os.Chmod(caDir, 0o755)
	caFile := filepath.Join(caDir, "ca.pem")
	if err := os.WriteFile(caFile, caPEM, 0o644); err != nil {
		t.Fatal(err)
	}

	// The test's own calls follow redirects to the https URL (job logs).
	pool := x509.NewCertPool()
	pool.AppendCertsFromPEM(caPEM)
	tr := http.DefaultTransport.(*http.Transport).Clone()
	tr.TLSClientConfig = &tls.Config{RootCAs: pool}
	defaultClient := http.DefaultClient
	http.DefaultClient = &http.Client{Transport: tr}
	t.Cleanup(func() { http.DefaultClient = defaultClient })

	var reg struct {
		Token string `json:"token"`
	}
	if st := f.json("POST", "/repos/mona/ci/actions/runners/registration-token", "", &reg); st != 201 {
		t.Fatalf("registration token: %d", st)
	}
	exe := installed(t)
	// Without the CA, the runner cannot even register over https.
	if out, err := startRunnerOutput(t, cred, exe, ownedDir(t, cred), "--url", public, "--token", reg.Token, "--name", "untrusting"); err == nil ||
		!strings.Contains(out, "certificate") {
		t.Fatalf("a runner without --ca-file over https: %v\n%s", err, out)
	}
	startRunner(t, cred, exe, ownedDir(t, cred), "--url", public, "--ca-file", caFile, "--token", reg.Token, "--name", "trusting",
		"--labels", "self-hosted,trusting")
	// This one reaches hubd over plain http, so its jobs see hubd's https
	// URLs without the CA.
	startRunner(t, cred, exe, ownedDir(t, cred), "--url", f.s.base, "--token", reg.Token, "--name", "plain", "--labels", "self-hosted,plain")

	steps := "    steps:\n" +
		"      - run: |\n" +
		"          set -e\n" +
		"          echo \"api $(curl -sS -o /dev/null -w '%{http_code}' \"$GITHUB_API_URL/repos/mona/ci\")\"\n" +
		"          git ls-remote \"$GITHUB_SERVER_URL/mona/ci.git\" refs/heads/main | sed 's/^/remote /'\n" +
		"          node -e 'fetch(process.env.GITHUB_API_URL + \"/repos/mona/ci\").then(r => console.log(\"node \" + r.status), e => { console.log(\"node\", e.cause && e.cause.code); process.exit(1) })'\n"
	f.workflow("trusting.yml", "name: trusting\non: push\njobs:\n  call:\n    runs-on: [self-hosted, trusting]\n"+steps)
	j, log := f.job("trusting.yml", 60*time.Second, func(j jobView, _ string) bool { return j.Status == "completed" })
	if j.Conclusion != "success" || j.RunnerName != "trusting" || !strings.Contains(log, "api 200") ||
		!strings.Contains(log, "\trefs/heads/main") || !strings.Contains(log, "node 200") {
		t.Fatalf("job with the CA: %+v, log:\n%s", j, log)
	}
	f.workflow("plain.yml", "name: plain\non: push\njobs:\n  call:\n    runs-on: [self-hosted, plain]\n"+steps)
	j, log = f.job("plain.yml", 60*time.Second, func(j jobView, _ string) bool { return j.Status == "completed" })
	if j.Conclusion != "failure" || j.RunnerName != "plain" || !strings.Contains(log, "SSL certificate problem") {
		t.Fatalf("job without the CA: %+v, log:\n%s", j, log)
	}
}

// startRunnerOutput runs `hubd runner` as the runner user until it exits
// (within 30 s) and returns what it printed.
func startRunnerOutput(t *testing.T, cred *syscall.Credential, exe, work string, args ...string) (string, error) {
	t.Helper()
	cmd := runnerCommand(cred, exe, work, args...)
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case err := <-done:
		return out.String(), err
	case <-time.After(30 * time.Second):
		syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
		<-done
		return out.String(), nil
	}
}
