package actionspolicy

import (
	"context"
	"crypto"
	"crypto/rand"
	"crypto/rsa"
	"crypto/sha256"
	"crypto/x509"
	"encoding/base64"
	"encoding/json"
	"encoding/pem"
	"errors"
	"fmt"
	"math/big"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/hubd/hubd/internal/model"
	"github.com/hubd/hubd/internal/store"
)

// hubd is the OIDC issuer of its jobs, as GitHub Enterprise Server is
// (https://HOST/_services/token): a job allowed id-token: write asks the
// token endpoint for a JWT whose claims describe the run, signed with an
// RS256 key that hubd makes once and keeps (server_keys), published with
// the discovery document and the JWKS under the issuer's URL.

// oidcKeyName is the server key holding the PEM of the signing key.
const oidcKeyName = "actions-oidc-rsa"

// TokenLifetime is how long an OIDC token is valid (GitHub: minutes).
const TokenLifetime = 5 * time.Minute

// Issuer signs jobs' OIDC tokens.
type Issuer struct {
	Store *store.Store
	// URL is the issuer (hubd's web URL + /_services/token).
	URL string
	// Enterprise is the enterprise's slug (the custom issuer policy adds
	// it to the issuer URL).
	Enterprise string

	mu  sync.Mutex
	key *rsa.PrivateKey
	kid string
}

// errNoKey: no job asked for the OIDC variables yet, so there is no key.
var errNoKey = errors.New("oidc: no signing key yet")

// Ensure makes the signing key the first time of all (when a job that may
// request OIDC tokens starts: off the request path, whose reads never
// write).
func (i *Issuer) Ensure(ctx context.Context) error {
	if _, _, err := i.signingKey(ctx); !errors.Is(err, errNoKey) {
		return err
	}
	k, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		return err
	}
	candidate := pem.EncodeToMemory(&pem.Block{Type: "RSA PRIVATE KEY", Bytes: x509.MarshalPKCS1PrivateKey(k)})
	_, err = i.Store.ServerKey(ctx, oidcKeyName, string(candidate))
	return err
}

// signingKey loads the signing key (errNoKey when none was made).
func (i *Issuer) signingKey(ctx context.Context) (*rsa.PrivateKey, string, error) {
	i.mu.Lock()
	defer i.mu.Unlock()
	if i.key != nil {
		return i.key, i.kid, nil
	}
	stored, ok, err := i.Store.R().StoredServerKey(ctx, oidcKeyName)
	if err != nil {
		return nil, "", err
	}
	if !ok {
		return nil, "", errNoKey
	}
	b, _ := pem.Decode([]byte(stored))
	if b == nil {
		return nil, "", errors.New("oidc: the stored signing key is not PEM")
	}
	k, err := x509.ParsePKCS1PrivateKey(b.Bytes)
	if err != nil {
		return nil, "", err
	}
	der, _ := x509.MarshalPKIXPublicKey(&k.PublicKey)
	sum := sha256.Sum256(der)
	i.key, i.kid = k, strings.ToUpper(fmt.Sprintf("%x", sum[:20]))
	return i.key, i.kid, nil
}

// IssuerURL is the iss of the tokens (with the enterprise's slug when its
// custom issuer policy says so).
func (i *Issuer) IssuerURL(s Settings) string {
	if s.OIDC.IncludeEnterpriseSlug && i.Enterprise != "" {
		return i.URL + "/" + i.Enterprise
	}
	return i.URL
}

// Configuration is the OpenID Provider discovery document of issuer iss.
func Configuration(iss string) map[string]any {
	return map[string]any{
		"issuer": iss, "jwks_uri": iss + "/.well-known/jwks",
		"subject_types_supported":               []string{"public", "pairwise"},
		"response_types_supported":              []string{"id_token"},
		"claims_supported":                      []string{"sub", "aud", "exp", "iat", "iss", "jti", "nbf", "ref", "sha", "repository", "repository_id", "repository_owner", "repository_owner_id", "enterprise", "enterprise_id", "run_id", "run_number", "run_attempt", "actor", "actor_id", "workflow", "workflow_ref", "workflow_sha", "head_ref", "base_ref", "event_name", "ref_type", "ref_protected", "environment", "environment_node_id", "job_workflow_ref", "job_workflow_sha", "repository_visibility", "runner_environment", "issuer_scope"},
		"id_token_signing_alg_values_supported": []string{"RS256"},
		"scopes_supported":                      []string{"openid"},
	}
}

// JWKS is the key set of the issuer.
func (i *Issuer) JWKS(ctx context.Context) (map[string]any, error) {
	k, kid, err := i.signingKey(ctx)
	if errors.Is(err, errNoKey) {
		return map[string]any{"keys": []any{}}, nil
	}
	if err != nil {
		return nil, err
	}
	enc := base64.RawURLEncoding.EncodeToString
	return map[string]any{"keys": []map[string]any{{"kty": "RSA", "alg": "RS256", "use": "sig", "kid": kid,
		"n": enc(k.PublicKey.N.Bytes()), "e": enc(big.NewInt(int64(k.PublicKey.E)).Bytes())}}}, nil
}

// Sign makes an RS256 JWT of claims.
func (i *Issuer) Sign(ctx context.Context, claims map[string]any) (string, error) {
	k, kid, err := i.signingKey(ctx)
	if err != nil {
		return "", err
	}
	enc := base64.RawURLEncoding.EncodeToString
	h, _ := json.Marshal(map[string]string{"alg": "RS256", "typ": "JWT", "kid": kid})
	c, err := json.Marshal(claims)
	if err != nil {
		return "", err
	}
	signing := enc(h) + "." + enc(c)
	sum := sha256.Sum256([]byte(signing))
	sig, err := rsa.SignPKCS1v15(rand.Reader, k, crypto.SHA256, sum[:])
	if err != nil {
		return "", err
	}
	return signing + "." + enc(sig), nil
}

// JobToken is what an OIDC token describes.
type JobToken struct {
	Repo     *model.Repo
	Run      *model.WorkflowRun
	Job      *model.WorkflowJob
	Actor    *model.Account // the run's triggering actor (nil: unknown)
	Audience string         // empty: the owner's URL, as GitHub's default
	Web      string         // hubd's web URL
	// Environment is the job's environment (`environment:`), if any: the
	// environment claim and the default subject's context.
	Environment string
}

// Token mints the OIDC token of a job.
func (s *Service) Token(ctx context.Context, i *Issuer, t JobToken) (string, error) {
	repo, run := t.Repo, t.Run
	org := int64(0)
	if repo.Owner.IsOrg() {
		org = repo.Owner.ID
	}
	c, err := s.Chain(ctx, Scope{Repo, repo.ID}, org)
	if err != nil {
		return "", err
	}
	now := time.Now()
	full := repo.FullName()
	refType := "branch"
	if strings.HasPrefix(run.Ref, "refs/tags/") {
		refType = "tag"
	}
	wfRef := full + "/" + run.WorkflowPath + "@" + run.Ref
	aud := t.Audience
	if aud == "" {
		aud = t.Web + "/" + repo.Owner.Login
	}
	jti := make([]byte, 16)
	_, _ = rand.Read(jti)
	claims := map[string]any{
		"jti": fmt.Sprintf("%x-%x-%x-%x-%x", jti[0:4], jti[4:6], jti[6:8], jti[8:10], jti[10:]),
		"aud": aud, "ref": run.Ref, "sha": run.HeadSHA, "repository": full,
		"repository_owner": repo.Owner.Login, "repository_owner_id": strconv.FormatInt(repo.Owner.ID, 10),
		"repository_id": strconv.FormatInt(repo.ID, 10), "repository_visibility": string(repo.Visibility),
		"run_id": strconv.FormatInt(run.ID, 10), "run_number": strconv.FormatInt(run.RunNumber, 10),
		"run_attempt": strconv.FormatInt(t.Job.RunAttempt, 10), "workflow": run.Name, "head_ref": "", "base_ref": "",
		"event_name": run.Event, "ref_type": refType, "ref_protected": "false",
		"workflow_ref": wfRef, "workflow_sha": run.HeadSHA, "job_workflow_ref": wfRef, "job_workflow_sha": run.HeadSHA,
		"runner_environment": "self-hosted", "enterprise": i.Enterprise,
		"iss": i.IssuerURL(c.Enterprise), "nbf": now.Add(-5 * time.Second).Unix(), "iat": now.Unix(), "exp": now.Add(TokenLifetime).Unix(),
	}
	if t.Actor != nil {
		claims["actor"], claims["actor_id"] = t.Actor.Login, strconv.FormatInt(t.Actor.ID, 10)
	}
	if t.Environment != "" {
		claims["environment"] = t.Environment
	}
	claims["sub"] = subject(c, claims)
	return i.Sign(ctx, claims)
}

// context is the default subject's part after repo:OWNER/REPO.
func contextClaim(claims map[string]any) string {
	if env, ok := claims["environment"].(string); ok && env != "" {
		return "environment:" + env
	}
	if claims["event_name"] == "pull_request" {
		return "pull_request"
	}
	return "ref:" + fmt.Sprint(claims["ref"])
}

// subject is the sub claim: the repository's template (when it does not
// use the default), else its organization's, else GitHub's default
// repo:OWNER/REPO:<context>.
func subject(c Chain, claims map[string]any) string {
	keys := []string{"repo", "context"}
	if c.Org != nil && len(c.Org.OIDC.IncludeClaimKeys) > 0 {
		keys = c.Org.OIDC.IncludeClaimKeys
	}
	if c.Repo != nil && c.Repo.OIDC.UseDefault != nil && !*c.Repo.OIDC.UseDefault && len(c.Repo.OIDC.IncludeClaimKeys) > 0 {
		keys = c.Repo.OIDC.IncludeClaimKeys
	}
	parts := make([]string, 0, len(keys))
	for _, k := range keys {
		switch k {
		case "context":
			parts = append(parts, contextClaim(claims))
		case "repo":
			parts = append(parts, "repo:"+fmt.Sprint(claims["repository"]))
		default:
			parts = append(parts, k+":"+fmt.Sprint(claims[k]))
		}
	}
	return strings.Join(parts, ":")
}
