package enterprise_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-github/v92/github"

	"github.com/hubd/hubd/internal/apitest"
	"github.com/hubd/hubd/internal/model"
	"github.com/hubd/hubd/internal/store"
)

func status(s string) *string { return github.Ptr(s) }

// commitAs commits a file in dir with author and committer name <email>.
func commitAs(t *testing.T, dir, email, file string) {
	t.Helper()
	if err := os.WriteFile(filepath.Join(dir, file), []byte(file+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	apitest.MustGit(t, dir, "add", file)
	apitest.MustGit(t, dir, "-c", "user.email="+email, "commit", "-q", "-m", "add "+file)
}

func TestAdvancedSecurityCommitters(t *testing.T) {
	ctx := context.Background()
	e := apitest.New(t)
	olga, olgaTok := e.NewUser("olga", false)
	mike, mikeTok := e.NewUser("mike", false)
	_, outTok := e.NewUser("outsider", false)
	org := store.NewOrg("octo")
	err := e.Store.Tx(ctx, func(tx store.Q) error {
		if err := tx.CreateOrg(ctx, org, olga.ID); err != nil {
			return err
		}
		mike.Email = "Mike@Example.com"
		if err := tx.UpdateAccount(ctx, mike); err != nil {
			return err
		}
		return tx.SetMembership(ctx, &model.Membership{OrgID: org.ID, UserID: mike.ID, Role: model.RoleMember, State: store.StateActive})
	})
	if err != nil {
		t.Fatal(err)
	}
	gh := e.GitHub(olgaTok)
	for _, name := range []string{"core", "side"} {
		if _, _, err := gh.Repositories.Create(ctx, "octo", &github.Repository{Name: github.Ptr(name), Private: github.Ptr(true)}); err != nil {
			t.Fatal(err)
		}
	}
	if _, _, err := gh.Repositories.Create(ctx, "", &github.Repository{Name: github.Ptr("mine"), Private: github.Ptr(true)}); err != nil {
		t.Fatal(err)
	}

	// The setting: off until an administrator turns it on, shown to
	// administrators only.
	got, _, err := gh.Repositories.Get(ctx, "octo", "core")
	if err != nil {
		t.Fatal(err)
	}
	if s := got.GetSecurityAndAnalysis(); s == nil || s.GetAdvancedSecurity().GetStatus() != "disabled" || s.GetSecretScanning().GetStatus() != "disabled" {
		t.Fatalf("security_and_analysis = %+v", s)
	}
	edit := &github.Repository{SecurityAndAnalysis: &github.SecurityAndAnalysis{
		AdvancedSecurity: &github.AdvancedSecurity{Status: status("enabled")},
		SecretScanning:   &github.SecretScanning{Status: status("enabled")},
	}}
	got, _, err = gh.Repositories.Edit(ctx, "octo", "core", edit)
	if err != nil {
		t.Fatal(err)
	}
	if s := got.GetSecurityAndAnalysis(); s.GetAdvancedSecurity().GetStatus() != "enabled" || s.GetSecretScanning().GetStatus() != "enabled" ||
		s.GetSecretScanningPushProtection().GetStatus() != "disabled" {
		t.Fatalf("after edit: %+v", s)
	}
	var seen map[string]any
	e.Must(200, "GET", "/repos/octo/core", mikeTok, nil).JSON(t, &seen)
	if _, ok := seen["security_and_analysis"]; ok {
		t.Fatalf("a member who does not administer the repository sees security_and_analysis")
	}
	// GitHub's rules, each a 422 that changes nothing.
	for _, c := range []struct {
		repo string
		body string
	}{
		{"octo/side", `{"advanced_security":{"status":"disabled"},"secret_scanning":{"status":"enabled"}}`},
		{"octo/side", `{"secret_scanning_push_protection":{"status":"enabled"}}`},
		{"octo/core", `{"advanced_security":{"status":"on"}}`},
		{"octo/core", `{"code_security":{"status":"enabled"}}`},
		{"olga/mine", `{"advanced_security":{"status":"enabled"}}`},
	} {
		r := e.Do("PATCH", "/repos/"+c.repo, olgaTok, `{"security_and_analysis":`+c.body+`}`)
		if r.StatusCode != 422 {
			t.Fatalf("%s %s: %d %s", c.repo, c.body, r.StatusCode, r.Body)
		}
	}
	// Only administrators change it.
	e.Must(403, "PATCH", "/repos/octo/core", mikeTok, map[string]any{"security_and_analysis": map[string]any{"advanced_security": map[string]any{"status": "disabled"}}})
	// Turning secret scanning off turns push protection off with it.
	e.Must(200, "PATCH", "/repos/octo/side", olgaTok, map[string]any{"security_and_analysis": map[string]any{
		"advanced_security": map[string]any{"status": "enabled"}, "secret_scanning": map[string]any{"status": "enabled"},
		"secret_scanning_push_protection": map[string]any{"status": "enabled"}}})
	e.Must(200, "PATCH", "/repos/octo/side", olgaTok, map[string]any{"security_and_analysis": map[string]any{
		"secret_scanning": map[string]any{"status": "disabled"}}}).JSON(t, &seen)
	sa := seen["security_and_analysis"].(map[string]any)
	if sa["secret_scanning_push_protection"].(map[string]any)["status"] != "disabled" || sa["advanced_security"].(map[string]any)["status"] != "enabled" {
		t.Fatalf("side: %v", sa)
	}
	e.Must(200, "PATCH", "/repos/octo/side", olgaTok, map[string]any{"security_and_analysis": map[string]any{
		"advanced_security": map[string]any{"status": "disabled"}}})
	// Each change is audited (the events' audit entries).
	var entries []map[string]any
	e.Must(200, "GET", apitest.Query("/orgs/octo/audit-log", "phrase", "repo:octo/side", "per_page", "100"), olgaTok, nil).JSON(t, &entries)
	var actions []string
	for _, en := range entries {
		actions = append(actions, en["action"].(string))
	}
	joined := strings.Join(actions, " ")
	for _, want := range []string{"repo.advanced_security_enabled", "repo.advanced_security_disabled", "repository_secret_scanning.enable",
		"repository_secret_scanning.disable", "repository_secret_scanning_push_protection.enable", "repository_secret_scanning_push_protection.disable"} {
		if !strings.Contains(joined, want) {
			t.Fatalf("audit actions %v lack %s", actions, want)
		}
	}

	// Pushes: mike's commit and a stranger's to core (enabled), olga's
	// (by her no-reply address) to side (disabled).
	noreply := "olga@" + e.Deps.URLs.NoreplyDomain()
	dir := t.TempDir()
	apitest.MustGit(t, dir, "clone", "-q", e.Remote("octo", "core", "olga", olgaTok), "core")
	core := filepath.Join(dir, "core")
	commitAs(t, core, "mike@example.com", "a.txt")
	commitAs(t, core, "stranger@example.org", "b.txt")
	apitest.MustGit(t, core, "push", "-q", "origin", "HEAD:main")
	apitest.MustGit(t, dir, "clone", "-q", e.Remote("octo", "side", "olga", olgaTok), "side")
	side := filepath.Join(dir, "side")
	commitAs(t, side, noreply, "c.txt")
	apitest.MustGit(t, side, "push", "-q", "origin", "HEAD:main")
	// A new branch with no new commits brings no committer.
	apitest.MustGit(t, side, "push", "-q", "origin", "HEAD:refs/heads/copy")
	e.RunJobs()

	billing := e.GitHub(olgaTok).Billing
	ac, _, err := billing.GetOrganizationAdvancedSecurityActiveCommitters(ctx, "octo", nil)
	if err != nil {
		t.Fatal(err)
	}
	if ac.GetTotalAdvancedSecurityCommitters() != 1 || ac.GetTotalCount() != 1 || ac.GetMaximumAdvancedSecurityCommitters() != 2 ||
		len(ac.Repositories) != 1 || ac.PurchasedAdvancedSecurityCommitters != nil {
		t.Fatalf("committers = %+v", ac)
	}
	r0 := ac.Repositories[0]
	today := time.Now().UTC().Format("2006-01-02")
	if r0.Name != "octo/core" || r0.AdvancedSecurityCommitters != 1 || len(r0.AdvancedSecurityCommittersBreakdown) != 1 {
		t.Fatalf("core = %+v", r0)
	}
	if b := r0.AdvancedSecurityCommittersBreakdown[0]; b.UserLogin != "mike" || b.LastPushedEmail != "mike@example.com" ||
		(b.LastPushedDate != today && b.LastPushedDate != time.Now().UTC().Add(-time.Hour).Format("2006-01-02")) {
		t.Fatalf("breakdown = %+v", b)
	}

	// Enabling side counts olga's push there; a push older than 90 days
	// counts for nothing.
	e.Must(200, "PATCH", "/repos/octo/side", olgaTok, map[string]any{"security_and_analysis": map[string]any{
		"advanced_security": map[string]any{"status": "enabled"}}})
	old := time.Now().Add(-91 * 24 * time.Hour)
	sideRepo, _, err := gh.Repositories.Get(ctx, "octo", "side")
	if err != nil {
		t.Fatal(err)
	}
	_, staleTok := e.NewUser("stale", false)
	_ = staleTok
	stale, err := e.Store.R().AccountByLogin(ctx, "stale")
	if err != nil {
		t.Fatal(err)
	}
	if err := e.Store.Tx(ctx, func(tx store.Q) error {
		return tx.RecordPushCommitters(ctx, sideRepo.GetID(), old, map[int64]string{stale.ID: "stale@example.com"})
	}); err != nil {
		t.Fatal(err)
	}
	ac, resp, err := billing.GetOrganizationAdvancedSecurityActiveCommitters(ctx, "octo", &github.ActiveCommittersListOptions{ListOptions: github.ListOptions{PerPage: 1, Page: 2}})
	if err != nil {
		t.Fatal(err)
	}
	if ac.GetTotalAdvancedSecurityCommitters() != 2 || ac.GetTotalCount() != 2 || len(ac.Repositories) != 1 || ac.Repositories[0].Name != "octo/side" ||
		ac.Repositories[0].AdvancedSecurityCommitters != 1 || ac.Repositories[0].AdvancedSecurityCommittersBreakdown[0].LastPushedEmail != noreply {
		t.Fatalf("page 2 = %+v %+v", ac, ac.Repositories)
	}
	if resp.PrevPage != 1 || resp.FirstPage != 1 {
		t.Fatalf("Link: %s", resp.Header.Get("Link"))
	}

	// The enterprise's view: every organization, for its owners.
	var ent map[string]any
	e.Must(200, "GET", "/enterprises/hubd/settings/billing/advanced-security", e.Token(e.Admin, "manage_billing:enterprise"), nil).JSON(t, &ent)
	if ent["total_advanced_security_committers"].(float64) != 2 || ent["total_count"].(float64) != 2 {
		t.Fatalf("enterprise = %v", ent)
	}
	e.Must(200, "GET", e.URL+"/enterprises/hubd/settings/billing/advanced-security", e.Token(e.Admin, "read:enterprise"), nil)
	e.Must(403, "GET", "/enterprises/hubd/settings/billing/advanced-security", olgaTok, nil)

	// Who may read an organization's: its owners.
	e.Must(403, "GET", "/orgs/octo/settings/billing/advanced-security", mikeTok, nil)
	e.Must(404, "GET", "/orgs/octo/settings/billing/advanced-security", outTok, nil)
	e.Must(401, "GET", "/orgs/octo/settings/billing/advanced-security", "", nil)
	e.Must(403, "GET", "/orgs/octo/settings/billing/advanced-security", e.Token(olga, "repo"), nil)
	e.Must(422, "GET", "/orgs/octo/settings/billing/advanced-security?advanced_security_product=code_security", olgaTok, nil)
}
