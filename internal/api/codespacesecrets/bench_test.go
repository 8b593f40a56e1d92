package codespacesecrets_test

import (
	"fmt"
	"testing"

	"github.com/google/go-github/v92/github"

	"github.com/hubd/hubd/internal/apitest"
	cs "github.com/hubd/hubd/internal/codespaces/secrets"
	sealed "github.com/hubd/hubd/internal/secrets"
)

// BenchmarkEnvFor is what starting a codespace costs in secrets: the
// repository and three queries (organization and repository secrets, the
// user's), then opening 150 values (50 at each level, 25 names shared).
func BenchmarkEnvFor(b *testing.B) {
	e := apitest.New(b)
	mona, _, gh := user(e, "mona")
	e.Must(201, "POST", "/admin/organizations", e.AdminToken, map[string]any{"login": "acme", "admin": "mona"})
	site, _, err := gh.Repositories.Create(ctx, "acme", &github.Repository{Name: github.Ptr("site"), Private: github.Ptr(true)})
	if err != nil {
		b.Fatal(err)
	}
	svc := cs.New(e.Store, &sealed.Service{Store: e.Store})
	put := func(key *github.PublicKey, f func(*github.EncryptedSecret) error, prefix string, i int) {
		name := fmt.Sprintf("%s_%d", prefix, i)
		if i < 25 {
			name = fmt.Sprintf("SHARED_%d", i)
		}
		if err := f(&github.EncryptedSecret{Name: name, KeyID: key.GetKeyID(), EncryptedValue: seal(b, key, name), Visibility: "all", SelectedRepositoryIDs: github.SelectedRepoIDs{site.GetID()}}); err != nil {
			b.Fatal(err)
		}
	}
	okey, _, _ := gh.Codespaces.GetOrgPublicKey(ctx, "acme")
	rkey, _, _ := gh.Codespaces.GetRepoPublicKey(ctx, "acme", "site")
	ukey, _, _ := gh.Codespaces.GetUserPublicKey(ctx)
	for i := range 50 {
		put(okey, func(s *github.EncryptedSecret) error {
			s.SelectedRepositoryIDs = nil
			_, err := gh.Codespaces.CreateOrUpdateOrgSecret(ctx, "acme", s)
			return err
		}, "ORG", i)
		put(rkey, func(s *github.EncryptedSecret) error {
			s.Visibility, s.SelectedRepositoryIDs = "", nil
			_, err := gh.Codespaces.CreateOrUpdateRepoSecret(ctx, "acme", "site", s)
			return err
		}, "REPO", i)
		put(ukey, func(s *github.EncryptedSecret) error {
			s.Visibility = ""
			_, err := gh.Codespaces.CreateOrUpdateUserSecret(ctx, s)
			return err
		}, "USER", i)
	}
	env, err := svc.EnvFor(ctx, mona.ID, site.GetID())
	if err != nil || len(env) != 25+3*25 {
		b.Fatalf("env: %d %v", len(env), err)
	}
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		if _, err := svc.EnvFor(ctx, mona.ID, site.GetID()); err != nil {
			b.Fatal(err)
		}
	}
}
