package metrics_test

import (
	"net/http"
	"testing"

	"github.com/google/go-github/v92/github"

	"github.com/hubd/hubd/internal/apitest"
)

func TestCommunityProfile(t *testing.T) {
	e := apitest.New(t)
	_, monaTok := e.NewUser("mona", false)
	gh := e.GitHub(monaTok)

	// Nothing pushed and no description: nothing found.
	createRepo(t, e, monaTok, "bare", "", false)
	m, _, err := gh.Repositories.GetCommunityHealthMetrics(ctx, "mona", "bare")
	if err != nil || m.GetHealthPercentage() != 0 || m.Description != nil || m.UpdatedAt != nil || m.Files.Readme != nil ||
		m.Files.License != nil || m.Files.CodeOfConduct != nil || m.ContentReportsEnabled != nil {
		t.Fatalf("empty: %v %v", github.Stringify(m), err)
	}

	// A description and a README only: 2 of the 8 items.
	createRepo(t, e, monaTok, "some", "Some files.", false)
	w := newWork(t)
	w.commit(identity{"Mona", "mona@example.com", "2024-06-01T10:00:00Z"}, "readme", map[string]*string{"README": text("hello\n")})
	w.git(nil, "push", "-q", remote(e, "mona", monaTok, "mona", "some"), "main:main")
	m, _, err = gh.Repositories.GetCommunityHealthMetrics(ctx, "mona", "some")
	if err != nil || m.GetHealthPercentage() != 25 || m.GetDescription() != "Some files." || m.Files.Readme == nil ||
		m.Files.Readme.GetURL() != e.API+"/repos/mona/some/contents/README" || m.Files.Readme.GetHTMLURL() != e.URL+"/mona/some/blob/main/README" ||
		m.Files.Contributing != nil || m.UpdatedAt == nil || m.UpdatedAt.UTC().Format("2006-01-02T15:04:05Z") != "2024-06-01T10:00:00Z" {
		t.Fatalf("some: %v %v", github.Stringify(m), err)
	}

	// Every file, in the places GitHub looks: 100.
	createRepo(t, e, monaTok, "all", "Everything.", false)
	w = newWork(t)
	w.commit(identity{"Mona", "mona@example.com", "2024-06-02T10:00:00Z"}, "all", map[string]*string{
		"README.md":                     text("# All\n"),
		"LICENSE":                       text("Permission is hereby granted, free of charge...\n"),
		"CODE_OF_CONDUCT.md":            text("# Contributor Covenant Code of Conduct\n"),
		".github/CONTRIBUTING.md":       text("Send patches.\n"),
		".github/ISSUE_TEMPLATE/bug.md": text("---\nname: Bug\n---\n"),
		"docs/pull_request_template.md": text("Describe the change.\n"),
		"SECURITY.md":                   text("Report privately.\n"),
	})
	w.git(nil, "push", "-q", remote(e, "mona", monaTok, "mona", "all"), "main:main")
	m, _, err = gh.Repositories.GetCommunityHealthMetrics(ctx, "mona", "all")
	if err != nil || m.GetHealthPercentage() != 100 {
		t.Fatalf("all: %v %v", github.Stringify(m), err)
	}
	f := m.Files
	for name, got := range map[string]*github.Metric{
		"/contents/README.md":                     f.Readme,
		"/contents/CODE_OF_CONDUCT.md":            f.CodeOfConductFile,
		"/contents/.github/CONTRIBUTING.md":       f.Contributing,
		"/contents/.github/ISSUE_TEMPLATE":        f.IssueTemplate,
		"/contents/docs/pull_request_template.md": f.PullRequestTemplate,
	} {
		if got == nil || got.GetURL() != e.API+"/repos/mona/all"+name {
			t.Errorf("%s: %v", name, github.Stringify(got))
		}
	}
	if f.IssueTemplate.GetHTMLURL() != e.URL+"/mona/all/tree/main/.github/ISSUE_TEMPLATE" {
		t.Errorf("issue template html_url: %s", f.IssueTemplate.GetHTMLURL())
	}
	if c := f.CodeOfConduct; c == nil || c.GetKey() != "contributor_covenant" || c.GetName() != "Contributor Covenant" ||
		c.GetURL() != e.API+"/codes_of_conduct/contributor_covenant" || c.GetHTMLURL() != e.URL+"/mona/all/blob/main/CODE_OF_CONDUCT.md" {
		t.Errorf("code of conduct: %v", github.Stringify(c))
	}
	if l := f.License; l == nil || l.GetKey() != "other" || l.GetSPDXID() != "NOASSERTION" || l.URL != nil || l.GetHTMLURL() != e.URL+"/mona/all/blob/main/LICENSE" {
		t.Errorf("license: %v", github.Stringify(l))
	}

	// Organization repositories say whether content reports are enabled.
	org, _, err := e.GitHub(e.AdminToken).Admin.CreateOrg(ctx, &github.Organization{Login: github.Ptr("octo")}, "mona")
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := gh.Repositories.Create(ctx, org.GetLogin(), &github.Repository{Name: github.Ptr("team")}); err != nil {
		t.Fatal(err)
	}
	m, _, err = gh.Repositories.GetCommunityHealthMetrics(ctx, "octo", "team")
	if err != nil || m.ContentReportsEnabled == nil || *m.ContentReportsEnabled {
		t.Fatalf("organization: %v %v", github.Stringify(m), err)
	}

	// Anonymous callers read public profiles.
	e.Must(http.StatusOK, "GET", "/repos/mona/all/community/profile", "", nil)
}

// The license of the community profile is detected like the license
// endpoint's.
func TestCommunityProfileDetectsLicense(t *testing.T) {
	e := apitest.New(t)
	_, tok := e.NewUser("mona", false)
	gh := e.GitHub(tok)
	if _, _, err := gh.Repositories.Create(ctx, "", &github.Repository{Name: github.Ptr("licensed"), LicenseTemplate: github.Ptr("mit"), AutoInit: github.Ptr(true)}); err != nil {
		t.Fatal(err)
	}
	p, _, err := gh.Repositories.GetCommunityHealthMetrics(ctx, "mona", "licensed")
	if err != nil {
		t.Fatal(err)
	}
	if l := p.GetFiles().GetLicense(); l.GetKey() != "mit" || l.GetSPDXID() != "MIT" {
		t.Fatalf("license %+v", l)
	}
}
