package actions_test

import (
	"crypto"
	"crypto/rsa"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"math/big"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"
)

const policyWorkflow = `name: Policy
on: push
permissions:
  id-token: write
  contents: read
  pull-requests: write
jobs:
  pr:
    runs-on: ubuntu-latest
    steps:
      - run: |
          curl -sS -X POST -H "Authorization: token ${{ github.token }}" "$GITHUB_API_URL/repos/mona/app/pulls" -d '{"title":"From a job","head":"feature","base":"main"}' | tr -d '\n' | sed 's/^/pr-response /'
          echo
  oidc:
    runs-on: ubuntu-latest
    steps:
      - run: |
          curl -sS -H "Authorization: bearer $ACTIONS_ID_TOKEN_REQUEST_TOKEN" "$ACTIONS_ID_TOKEN_REQUEST_URL&audience=sts.example.com" | sed 's/^/token-response /'
  deploy:
    runs-on: ubuntu-latest
    environment: production
    steps:
      - run: |
          curl -sS -H "Authorization: bearer $ACTIONS_ID_TOKEN_REQUEST_TOKEN" "$ACTIONS_ID_TOKEN_REQUEST_URL&audience=sts.example.com" | sed 's/^/token-response /'
  remote:
    runs-on: ubuntu-latest
    steps:
      - uses: actions/checkout@v4
`

// TestActionsPolicyInRuns: a job gets an OIDC token verified against the
// JWKS (sub per the default template), a uses: that allowed_actions
// local_only forbids fails the job with GitHub's message, the job's token
// may not open a pull request (can_approve_pull_request_reviews off), and
// a push to a
// repository whose Actions are disabled starts no run.
func TestActionsPolicyInRuns(t *testing.T) {
	f := newFixture(t)
	e := f.e
	e.Must(204, "PUT", "/repos/mona/app/actions/permissions", f.token, map[string]any{"enabled": true, "allowed_actions": "local_only"})
	f.git(t, "checkout", "-q", "-b", "feature")
	if err := os.WriteFile(filepath.Join(f.dir, "feature.txt"), []byte("x\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	f.git(t, "add", "-A")
	f.git(t, "commit", "-q", "-m", "feature")
	f.git(t, "push", "-q", "origin", "HEAD:feature")
	f.git(t, "checkout", "-q", "main")
	head := f.push(t, "policy", map[string]string{".github/workflows/policy.yml": policyWorkflow})
	run := f.waitRun(t, head, true)
	jobs := f.jobs(t, run.GetID())
	if c := jobs["remote"].GetConclusion(); c != "failure" {
		t.Fatalf("remote job: %s", c)
	}
	if log := f.jobLog(t, jobs["remote"].GetID()); !strings.Contains(log, "The action actions/checkout@v4 is not allowed in mona/app because all actions must be from a repository owned by mona.") {
		t.Fatalf("remote job's log: %s", log)
	}
	// can_approve_pull_request_reviews is off: the job's token opens no
	// pull request.
	if log := f.jobLog(t, jobs["pr"].GetID()); !strings.Contains(log, "GitHub Actions is not permitted to create or approve pull requests.") {
		t.Fatalf("pr job's log: %s", log)
	}
	if c := jobs["oidc"].GetConclusion(); c != "success" {
		t.Fatalf("oidc job: %s: %s", c, f.jobLog(t, jobs["oidc"].GetID()))
	}
	log := f.jobLog(t, jobs["oidc"].GetID())
	m := regexp.MustCompile(`token-response (\{.*\})`).FindStringSubmatch(log)
	if m == nil {
		t.Fatalf("no token in the log: %s", log)
	}
	var resp struct {
		Value string `json:"value"`
	}
	if err := json.Unmarshal([]byte(m[1]), &resp); err != nil {
		t.Fatal(err)
	}
	claims := verifyJWT(t, f, resp.Value)
	want := map[string]any{"sub": "repo:mona/app:ref:refs/heads/main", "aud": "sts.example.com", "iss": e.URL + "/_services/token",
		"repository": "mona/app", "ref": "refs/heads/main", "sha": head, "actor": "mona", "event_name": "push",
		"job_workflow_ref": "mona/app/.github/workflows/policy.yml@refs/heads/main"}
	for k, v := range want {
		if claims[k] != v {
			t.Errorf("claim %s = %v, want %v", k, claims[k], v)
		}
	}
	// A job in an environment: its claim, and the default subject's
	// context is the environment.
	dlog := f.jobLog(t, jobs["deploy"].GetID())
	dm := regexp.MustCompile(`token-response (\{.*\})`).FindStringSubmatch(dlog)
	if dm == nil || json.Unmarshal([]byte(dm[1]), &resp) != nil {
		t.Fatalf("no token in the deploy job's log: %s", dlog)
	}
	if dc := verifyJWT(t, f, resp.Value); dc["environment"] != "production" || dc["sub"] != "repo:mona/app:environment:production" {
		t.Errorf("environment job's claims: environment %v, sub %v", dc["environment"], dc["sub"])
	}
	if exp, _ := claims["exp"].(float64); time.Unix(int64(exp), 0).Before(time.Now()) {
		t.Errorf("token expired: %v", claims["exp"])
	}
	// The discovery document names the JWKS.
	var conf map[string]any
	e.Must(200, "GET", e.URL+"/_services/token/.well-known/openid-configuration", "", nil).JSON(t, &conf)
	if conf["issuer"] != e.URL+"/_services/token" || conf["jwks_uri"] != e.URL+"/_services/token/.well-known/jwks" {
		t.Fatalf("configuration: %v", conf)
	}
	// A request token that is no running job's gets no OIDC token.
	e.Must(403, "GET", e.URL+"/_services/token/idtoken?audience=x", f.token, nil)

	// The permissive default token (no permissions: in the workflow) with
	// approvals allowed opens the pull request.
	e.Must(204, "PUT", "/repos/mona/app/actions/permissions/workflow", f.token, map[string]any{"default_workflow_permissions": "write", "can_approve_pull_request_reviews": true})
	open := strings.Replace(policyWorkflow[:strings.Index(policyWorkflow, "  oidc:")], "permissions:\n  id-token: write\n  contents: read\n  pull-requests: write\n", "", 1)
	if strings.Contains(open, "permissions:") {
		t.Fatalf("the workflow keeps its permissions: %s", open)
	}
	head = f.push(t, "open", map[string]string{".github/workflows/policy.yml": open})
	run = f.waitRun(t, head, true)
	jobs = f.jobs(t, run.GetID())
	if log := f.jobLog(t, jobs["pr"].GetID()); !strings.Contains(log, `"title":"From a job"`) || !strings.Contains(log, `"login":"github-actions[bot]"`) {
		t.Fatalf("pr job's log with the permissive default: %s", log)
	}

	// Actions disabled: a push starts no run.
	e.Must(204, "PUT", "/repos/mona/app/actions/permissions", f.token, map[string]any{"enabled": false})
	head = f.push(t, "disabled", map[string]string{"README.md": "off\n"})
	e.RunJobs()
	time.Sleep(500 * time.Millisecond)
	runs := e.Must(200, "GET", "/repos/mona/app/actions/runs?head_sha="+head, f.token, nil).Map(t)
	if runs["total_count"].(float64) != 0 {
		t.Fatalf("a run started with Actions disabled: %v", runs)
	}
}

// verifyJWT checks an RS256 JWT against hubd's JWKS and returns its claims.
func verifyJWT(t *testing.T, f *fixture, tok string) map[string]any {
	t.Helper()
	parts := strings.Split(tok, ".")
	if len(parts) != 3 {
		t.Fatalf("not a JWT: %q", tok)
	}
	dec := func(s string) []byte {
		b, err := base64.RawURLEncoding.DecodeString(s)
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	var header struct{ Alg, Kid string }
	_ = json.Unmarshal(dec(parts[0]), &header)
	var jwks struct {
		Keys []struct{ Kid, N, E string }
	}
	f.e.Must(200, "GET", f.e.URL+"/_services/token/.well-known/jwks", "", nil).JSON(t, &jwks)
	for _, k := range jwks.Keys {
		if k.Kid != header.Kid {
			continue
		}
		pub := &rsa.PublicKey{N: new(big.Int).SetBytes(dec(k.N)), E: int(new(big.Int).SetBytes(dec(k.E)).Int64())}
		sum := sha256.Sum256([]byte(parts[0] + "." + parts[1]))
		if err := rsa.VerifyPKCS1v15(pub, crypto.SHA256, sum[:], dec(parts[2])); err != nil {
			t.Fatalf("signature: %v", err)
		}
		var claims map[string]any
		_ = json.Unmarshal(dec(parts[1]), &claims)
		return claims
	}
	t.Fatalf("no key %q in the JWKS (alg %s)", header.Kid, header.Alg)
	return nil
}
