package secrets_test

import (
	"context"
	"crypto/rand"
	"encoding/base64"
	"errors"
	"fmt"
	"net/http"
	"testing"

	"github.com/google/go-github/v92/github"
	"golang.org/x/crypto/nacl/box"

	"github.com/hubd/hubd/internal/apitest"
)

var ctx = context.Background()

// TestMain doubles as `hubd actions-worker` for the job tests.
func TestMain(m *testing.M) { apitest.MainWithActionsWorker(m) }

// seal is what gh and every client do: a libsodium sealed box for the
// scope's public key, base64-encoded.
func seal(t *testing.T, key *github.PublicKey, value string) string {
	t.Helper()
	raw, err := base64.StdEncoding.DecodeString(key.GetKey())
	if err != nil || len(raw) != 32 {
		t.Fatalf("public key %q: %v", key.GetKey(), err)
	}
	var pub [32]byte
	copy(pub[:], raw)
	ct, err := box.SealAnonymous(nil, []byte(value), &pub, rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	return base64.StdEncoding.EncodeToString(ct)
}

// service is what go-github's ActionsService and AgentsService share for
// secrets.
type service interface {
	GetRepoPublicKey(ctx context.Context, owner, repo string) (*github.PublicKey, *github.Response, error)
	GetOrgPublicKey(ctx context.Context, org string) (*github.PublicKey, *github.Response, error)
	ListRepoSecrets(ctx context.Context, owner, repo string, opts *github.ListOptions) (*github.Secrets, *github.Response, error)
	ListOrgSecrets(ctx context.Context, org string, opts *github.ListOptions) (*github.Secrets, *github.Response, error)
	ListRepoOrgSecrets(ctx context.Context, owner, repo string, opts *github.ListOptions) (*github.Secrets, *github.Response, error)
	GetRepoSecret(ctx context.Context, owner, repo, name string) (*github.Secret, *github.Response, error)
	GetOrgSecret(ctx context.Context, org, name string) (*github.Secret, *github.Response, error)
	CreateOrUpdateRepoSecret(ctx context.Context, owner, repo, name string, body github.SecretRequest) (*github.Response, error)
	CreateOrUpdateOrgSecret(ctx context.Context, org, name string, body github.SecretOrgRequest) (*github.Response, error)
	DeleteRepoSecret(ctx context.Context, owner, repo, name string) (*github.Response, error)
	DeleteOrgSecret(ctx context.Context, org, name string) (*github.Response, error)
	ListSelectedReposForOrgSecret(ctx context.Context, org, name string, opts *github.ListOptions) (*github.SelectedReposList, *github.Response, error)
	SetSelectedReposForOrgSecret(ctx context.Context, org, name string, ids []int64) (*github.Response, error)
	AddSelectedRepoToOrgSecret(ctx context.Context, org, name string, repoID int64) (*github.Response, error)
	RemoveSelectedRepoFromOrgSecret(ctx context.Context, org, name string, repoID int64) (*github.Response, error)
}

// services are go-github's two clients of secrets, by the path segment
// of their operations.
var services = []struct {
	name string
	svc  func(*github.Client) service
}{
	{"actions", func(c *github.Client) service { return c.Actions }},
	{"agents", func(c *github.Client) service { return c.Agents }},
}

func status(err error) int {
	var e *github.ErrorResponse
	if errors.As(err, &e) {
		return e.Response.StatusCode
	}
	if err == nil {
		return 0
	}
	return -1
}

func message(err error) string {
	var e *github.ErrorResponse
	if errors.As(err, &e) {
		return e.Message
	}
	return fmt.Sprint(err)
}

// TestRepoSecrets: a repository's administrator keeps Actions and agents
// secrets through go-github, values sealed with the repository's public
// key; GitHub's refusals for names, keys and boxes; others find nothing.
func TestRepoSecrets(t *testing.T) {
	e := apitest.New(t)
	_, tok := e.NewUser("mona", false)
	gh := e.GitHub(tok)
	if _, _, err := gh.Repositories.Create(ctx, "", &github.Repository{Name: github.Ptr("app"), Private: github.Ptr(true)}); err != nil {
		t.Fatal(err)
	}
	_, otherTok := e.NewUser("hubot", false)
	other := e.GitHub(otherTok)
	for _, tc := range services {
		t.Run(tc.name, func(t *testing.T) {
			s := tc.svc(gh)
			key, _, err := s.GetRepoPublicKey(ctx, "mona", "app")
			if err != nil || key.GetKeyID() == "" {
				t.Fatalf("public key %+v: %v", key, err)
			}
			again, _, _ := s.GetRepoPublicKey(ctx, "mona", "app")
			if again.GetKeyID() != key.GetKeyID() || again.GetKey() != key.GetKey() {
				t.Errorf("the key changed between reads: %+v %+v", key, again)
			}
			resp, err := s.CreateOrUpdateRepoSecret(ctx, "mona", "app", "deploy_key", github.SecretRequest{KeyID: key.GetKeyID(), EncryptedValue: seal(t, key, "v1")})
			if err != nil || resp.StatusCode != http.StatusCreated {
				t.Fatalf("create: %v %v", resp, err)
			}
			resp, err = s.CreateOrUpdateRepoSecret(ctx, "mona", "app", "DEPLOY_KEY", github.SecretRequest{KeyID: key.GetKeyID(), EncryptedValue: seal(t, key, "v2")})
			if err != nil || resp.StatusCode != http.StatusNoContent {
				t.Fatalf("update: %v %v", resp, err)
			}
			for i := range 3 {
				if _, err := s.CreateOrUpdateRepoSecret(ctx, "mona", "app", fmt.Sprintf("S%d", i), github.SecretRequest{KeyID: key.GetKeyID(), EncryptedValue: seal(t, key, "x")}); err != nil {
					t.Fatal(err)
				}
			}
			list, resp, err := s.ListRepoSecrets(ctx, "mona", "app", &github.ListOptions{PerPage: 2})
			if err != nil || list.TotalCount != 4 || len(list.Secrets) != 2 || list.Secrets[0].Name != "DEPLOY_KEY" || resp.NextPage != 2 {
				t.Fatalf("list %+v next %d: %v", list, resp.NextPage, err)
			}
			sec, _, err := s.GetRepoSecret(ctx, "mona", "app", "deploy_key")
			if err != nil || sec.Name != "DEPLOY_KEY" || sec.CreatedAt.IsZero() {
				t.Fatalf("get %+v: %v", sec, err)
			}
			// No value comes back, in any form.
			raw := e.Must(http.StatusOK, "GET", "/repos/mona/app/"+tc.name+"/secrets/DEPLOY_KEY", tok, nil)
			for _, k := range []string{"value", "encrypted_value"} {
				if _, ok := raw.Map(t)[k]; ok {
					t.Errorf("%s in %s", k, raw.Body)
				}
			}

			for _, bad := range []struct {
				name, keyID, value string
				msg                string
			}{
				{"GITHUB_X", key.GetKeyID(), seal(t, key, "v"), "Secret names must not start with GITHUB_."},
				{"1ABC", key.GetKeyID(), seal(t, key, "v"), "Secret names can only contain alphanumeric characters ([a-z], [A-Z], [0-9]) or underscores (_). Spaces are not allowed. Must start with a letter ([a-z], [A-Z]) or underscores (_)."},
				{"OK", "12345", seal(t, key, "v"), "Bad request - validation failed due to an improperly encrypted secret"},
				{"OK", key.GetKeyID(), base64.StdEncoding.EncodeToString(make([]byte, 80)), "Bad request - validation failed due to an improperly encrypted secret"},
			} {
				_, err := s.CreateOrUpdateRepoSecret(ctx, "mona", "app", bad.name, github.SecretRequest{KeyID: bad.keyID, EncryptedValue: bad.value})
				if status(err) != http.StatusUnprocessableEntity || message(err) != bad.msg {
					t.Errorf("%s: %d %q", bad.name, status(err), message(err))
				}
			}
			e.Must(http.StatusUnprocessableEntity, "PUT", "/repos/mona/app/"+tc.name+"/secrets/OK", tok, map[string]any{"key_id": key.GetKeyID(), "encrypted_value": "not base64!"})
			e.Must(http.StatusUnprocessableEntity, "PUT", "/repos/mona/app/"+tc.name+"/secrets/OK", tok, map[string]any{"encrypted_value": seal(t, key, "v")})
			var big [secretsMax + 1]byte
			if _, err := s.CreateOrUpdateRepoSecret(ctx, "mona", "app", "BIG", github.SecretRequest{KeyID: key.GetKeyID(), EncryptedValue: seal(t, key, string(big[:]))}); status(err) != http.StatusUnprocessableEntity {
				t.Errorf("a value over 48 KB: %v", err)
			}
			if _, _, err := s.GetRepoSecret(ctx, "mona", "app", "OK"); status(err) != http.StatusNotFound {
				t.Errorf("a refused secret was stored: %v", err)
			}

			// Others: hidden (private repository), anonymous: 401.
			if _, _, err := tc.svc(other).ListRepoSecrets(ctx, "mona", "app", nil); status(err) != http.StatusNotFound {
				t.Errorf("stranger: %v", err)
			}
			e.Must(http.StatusUnauthorized, "GET", "/repos/mona/app/"+tc.name+"/secrets/public-key", "", nil)

			if _, err := s.DeleteRepoSecret(ctx, "mona", "app", "deploy_key"); err != nil {
				t.Fatal(err)
			}
			if _, _, err := s.GetRepoSecret(ctx, "mona", "app", "DEPLOY_KEY"); status(err) != http.StatusNotFound {
				t.Errorf("after delete: %v", err)
			}
			if _, err := s.DeleteRepoSecret(ctx, "mona", "app", "deploy_key"); status(err) != http.StatusNotFound {
				t.Errorf("delete again: %v", err)
			}
		})
	}
}

const secretsMax = 48 * 1024

// TestOrgSecrets: an organization's owner keeps its secrets with
// visibility all, private or selected repositories; repositories list the
// ones they may use; members who are not owners may not.
func TestOrgSecrets(t *testing.T) {
	e := apitest.New(t)
	_, tok := e.NewUser("mona", false)
	gh := e.GitHub(tok)
	e.Must(http.StatusCreated, "POST", "/admin/organizations", e.AdminToken, map[string]any{"login": "acme", "admin": "mona"})
	pub, _, err := gh.Repositories.Create(ctx, "acme", &github.Repository{Name: github.Ptr("site")})
	if err != nil {
		t.Fatal(err)
	}
	priv, _, err := gh.Repositories.Create(ctx, "acme", &github.Repository{Name: github.Ptr("infra"), Private: github.Ptr(true)})
	if err != nil {
		t.Fatal(err)
	}
	mine, _, err := gh.Repositories.Create(ctx, "", &github.Repository{Name: github.Ptr("own")})
	if err != nil {
		t.Fatal(err)
	}
	_, memberTok := e.NewUser("member", false)
	e.Must(http.StatusOK, "PUT", "/orgs/acme/memberships/member", tok, map[string]any{"role": "member"})
	e.Must(http.StatusOK, "PATCH", "/user/memberships/orgs/acme", memberTok, map[string]any{"state": "active"})

	for _, tc := range services {
		t.Run(tc.name, func(t *testing.T) {
			s := tc.svc(gh)
			key, _, err := s.GetOrgPublicKey(ctx, "acme")
			if err != nil {
				t.Fatal(err)
			}
			repoKey, _, _ := s.GetRepoPublicKey(ctx, "acme", "site")
			if repoKey.GetKeyID() == key.GetKeyID() {
				t.Error("the organization and a repository share a key")
			}
			put := func(name, vis string, ids []int64) (*github.Response, error) {
				return s.CreateOrUpdateOrgSecret(ctx, "acme", name, github.SecretOrgRequest{KeyID: key.GetKeyID(), EncryptedValue: seal(t, key, name), Visibility: vis, SelectedRepositoryIDs: ids})
			}
			if resp, err := put("EVERYWHERE", "all", nil); err != nil || resp.StatusCode != http.StatusCreated {
				t.Fatalf("all: %v", err)
			}
			if _, err := put("PRIVATE_ONLY", "private", nil); err != nil {
				t.Fatal(err)
			}
			if _, err := put("CHOSEN", "selected", []int64{pub.GetID()}); err != nil {
				t.Fatal(err)
			}
			// A repository outside the organization, a list without
			// "selected", a repository key for the organization.
			if _, err := put("BAD", "selected", []int64{mine.GetID()}); status(err) != http.StatusUnprocessableEntity {
				t.Errorf("outside repository: %v", err)
			}
			if _, err := put("BAD", "all", []int64{pub.GetID()}); status(err) != http.StatusUnprocessableEntity {
				t.Errorf("ids with all: %v", err)
			}
			if _, err := s.CreateOrUpdateOrgSecret(ctx, "acme", "BAD", github.SecretOrgRequest{KeyID: repoKey.GetKeyID(), EncryptedValue: seal(t, repoKey, "x"), Visibility: "all"}); status(err) != http.StatusUnprocessableEntity {
				t.Errorf("a repository's key: %v", err)
			}

			list, _, err := s.ListOrgSecrets(ctx, "acme", nil)
			if err != nil || list.TotalCount != 3 {
				t.Fatalf("list %+v: %v", list, err)
			}
			got, _, err := s.GetOrgSecret(ctx, "acme", "chosen")
			if err != nil || got.Visibility != "selected" || got.SelectedRepositoriesURL == "" {
				t.Fatalf("get %+v: %v", got, err)
			}
			repos, _, err := s.ListSelectedReposForOrgSecret(ctx, "acme", "CHOSEN", nil)
			if err != nil || repos.GetTotalCount() != 1 || repos.Repositories[0].GetID() != pub.GetID() {
				t.Fatalf("selected %+v: %v", repos, err)
			}
			if _, err := s.AddSelectedRepoToOrgSecret(ctx, "acme", "CHOSEN", priv.GetID()); err != nil {
				t.Fatal(err)
			}
			if _, err := s.RemoveSelectedRepoFromOrgSecret(ctx, "acme", "CHOSEN", pub.GetID()); err != nil {
				t.Fatal(err)
			}
			if repos, _, _ = s.ListSelectedReposForOrgSecret(ctx, "acme", "CHOSEN", nil); repos.GetTotalCount() != 1 || repos.Repositories[0].GetID() != priv.GetID() {
				t.Errorf("after add and remove: %+v", repos)
			}
			if _, err := s.AddSelectedRepoToOrgSecret(ctx, "acme", "EVERYWHERE", priv.GetID()); status(err) != http.StatusConflict {
				t.Errorf("add to a secret for all: %v", err)
			}
			// What each repository may use.
			names := func(repo string) []string {
				l, _, err := s.ListRepoOrgSecrets(ctx, "acme", repo, nil)
				if err != nil {
					t.Fatal(err)
				}
				var out []string
				for _, x := range l.Secrets {
					out = append(out, x.Name)
				}
				return out
			}
			if got := fmt.Sprint(names("site")); got != "[EVERYWHERE]" {
				t.Errorf("public repository sees %s", got)
			}
			if got := fmt.Sprint(names("infra")); got != "[CHOSEN EVERYWHERE PRIVATE_ONLY]" {
				t.Errorf("private repository sees %s", got)
			}
			if _, err := s.SetSelectedReposForOrgSecret(ctx, "acme", "CHOSEN", []int64{pub.GetID(), priv.GetID()}); err != nil {
				t.Fatal(err)
			}
			if got := fmt.Sprint(names("site")); got != "[CHOSEN EVERYWHERE]" {
				t.Errorf("after set, public repository sees %s", got)
			}
			// "selected" again without selected_repository_ids selects none.
			if _, err := put("CHOSEN", "selected", nil); err != nil {
				t.Fatal(err)
			}
			if repos, _, _ = s.ListSelectedReposForOrgSecret(ctx, "acme", "CHOSEN", nil); repos.GetTotalCount() != 0 {
				t.Errorf("selected without repositories: %+v", repos)
			}
			// Members who are not owners, strangers.
			if _, _, err := tc.svc(e.GitHub(memberTok)).ListOrgSecrets(ctx, "acme", nil); status(err) != http.StatusForbidden {
				t.Errorf("member: %v", err)
			}
			_, strangerTok := e.NewUser("stranger-"+tc.name, false)
			if _, _, err := tc.svc(e.GitHub(strangerTok)).GetOrgPublicKey(ctx, "acme"); status(err) != http.StatusNotFound {
				t.Errorf("stranger: %v", err)
			}
			// Another visibility drops the list of repositories.
			if resp, err := put("CHOSEN", "all", nil); err != nil || resp.StatusCode != http.StatusNoContent {
				t.Fatalf("to all: %v", err)
			}
			if _, err := put("CHOSEN", "selected", nil); err != nil {
				t.Fatal(err)
			}
			if repos, _, _ = s.ListSelectedReposForOrgSecret(ctx, "acme", "CHOSEN", nil); repos.GetTotalCount() != 0 {
				t.Errorf("after all and back: %+v", repos)
			}
			if _, err := s.DeleteOrgSecret(ctx, "acme", "CHOSEN"); err != nil {
				t.Fatal(err)
			}
			if _, _, err := s.GetOrgSecret(ctx, "acme", "CHOSEN"); status(err) != http.StatusNotFound {
				t.Errorf("after delete: %v", err)
			}
		})
	}
}
