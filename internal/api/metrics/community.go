package metrics

import (
	"bytes"
	"context"
	"errors"
	"net/http"
	"net/url"
	"strings"

	"github.com/hubd/hubd/internal/authz"
	"github.com/hubd/hubd/internal/gitrepo"
	"github.com/hubd/hubd/internal/licenses"
	"github.com/hubd/hubd/internal/model"
	"github.com/hubd/hubd/internal/rest"
	"github.com/hubd/hubd/internal/wire"
)

type communityProfile struct {
	HealthPercentage      int            `json:"health_percentage"`
	Description           *string        `json:"description"`
	Documentation         *string        `json:"documentation"`
	Files                 communityFiles `json:"files"`
	UpdatedAt             *string        `json:"updated_at"`
	ContentReportsEnabled *bool          `json:"content_reports_enabled,omitempty"`
}

type communityFiles struct {
	CodeOfConduct       *codeOfConduct `json:"code_of_conduct"`
	CodeOfConductFile   *healthFile    `json:"code_of_conduct_file"`
	License             *licenseSimple `json:"license"`
	Contributing        *healthFile    `json:"contributing"`
	Readme              *healthFile    `json:"readme"`
	IssueTemplate       *healthFile    `json:"issue_template"`
	PullRequestTemplate *healthFile    `json:"pull_request_template"`
}

type healthFile struct {
	URL     string `json:"url"`
	HTMLURL string `json:"html_url"`
}

type codeOfConduct struct {
	URL     string  `json:"url"`
	Key     string  `json:"key"`
	Name    string  `json:"name"`
	HTMLURL *string `json:"html_url"`
}

type licenseSimple struct {
	Key     string  `json:"key"`
	Name    string  `json:"name"`
	URL     *string `json:"url"`
	SpdxID  *string `json:"spdx_id"`
	NodeID  string  `json:"node_id"`
	HTMLURL string  `json:"html_url,omitempty"`
}

// healthItems is the community profile's checklist: description, README,
// code of conduct, contributing guide, license, security policy, issue
// templates and pull request template. health_percentage is the share of
// them present.
const healthItems = 8

// foundFile is a community file of the default branch: its path and whether
// it is a directory (issue template folders).
type foundFile struct {
	path string
	dir  bool
	oid  string
}

// communityScan is what the default branch's tree holds.
type communityScan struct {
	readme, conduct, contributing, license, security, issueTemplate, prTemplate *foundFile
}

// GET /repos/{owner}/{repo}/community/profile
func (a *API) communityProfile(w http.ResponseWriter, r *http.Request) error {
	repo, _, err := a.d.Repo(r, authz.Read)
	if err != nil {
		return err
	}
	ctx := r.Context()
	out := communityProfile{Description: nonEmpty(repo.Description), Documentation: nonEmpty(repo.Homepage)}
	if repo.Owner.IsOrg() {
		off := false // hubd has no content reports
		out.ContentReportsEnabled = &off
	}
	var scan communityScan
	g := a.d.Git.Open(repo.ID)
	if g.Exists() {
		info, data, err := g.Read(ctx, "refs/heads/"+repo.DefaultBranch, 0)
		switch {
		case errors.Is(err, gitrepo.ErrNotFound):
		case err != nil:
			return err
		default:
			c, err := gitrepo.ParseCommit(info.OID, data)
			if err != nil {
				return err
			}
			if scan, err = scanCommunity(ctx, g, c.Tree); err != nil {
				return err
			}
			out.UpdatedAt = wire.TimePtr(&c.Committer.When)
		}
	}
	f := &out.Files
	f.Readme = a.healthFile(repo, scan.readme)
	f.Contributing = a.healthFile(repo, scan.contributing)
	f.IssueTemplate = a.healthFile(repo, scan.issueTemplate)
	f.PullRequestTemplate = a.healthFile(repo, scan.prTemplate)
	if c := scan.conduct; c != nil {
		f.CodeOfConductFile = a.healthFile(repo, c)
		key, name := conductKind(ctx, g, c.oid)
		html := f.CodeOfConductFile.HTMLURL
		f.CodeOfConduct = &codeOfConduct{URL: a.d.URLs.API + "/codes_of_conduct/" + key, Key: key, Name: name, HTMLURL: &html}
	}
	if l := scan.license; l != nil {
		// The file's license, detected like GET /repos/{owner}/{repo}/license
		// does; GitHub's "other" answer when it names none of the catalogue.
		spdx := "NOASSERTION"
		f.License = &licenseSimple{Key: "other", Name: "Other", SpdxID: &spdx, NodeID: "MDc6TGljZW5zZTA=", HTMLURL: a.healthFile(repo, l).HTMLURL}
		if _, text, err := g.Read(ctx, l.oid, 1<<20); err == nil {
			if lic, err := licenses.Detect(text); err == nil && lic != nil {
				s := lic.Simple(a.d.URLs)
				f.License = &licenseSimple{Key: s.Key, Name: s.Name, URL: s.URL, SpdxID: s.SpdxID, NodeID: s.NodeID, HTMLURL: f.License.HTMLURL}
			}
		}
	}
	n := 0
	for _, present := range []bool{out.Description != nil, scan.readme != nil, scan.conduct != nil, scan.contributing != nil,
		scan.license != nil, scan.security != nil, scan.issueTemplate != nil, scan.prTemplate != nil} {
		if present {
			n++
		}
	}
	out.HealthPercentage = n * 100 / healthItems
	return rest.JSON(w, 200, out)
}

func nonEmpty(s string) *string {
	if s == "" {
		return nil
	}
	return &s
}

func (a *API) healthFile(repo *model.Repo, f *foundFile) *healthFile {
	if f == nil {
		return nil
	}
	p := escapePath(f.path)
	view := "/blob/"
	if f.dir {
		view = "/tree/"
	}
	return &healthFile{
		URL:     a.d.URLs.RepoAPIURL(repo) + "/contents/" + p,
		HTMLURL: a.d.URLs.RepoHTMLURL(repo) + view + url.PathEscape(repo.DefaultBranch) + "/" + p,
	}
}

func escapePath(p string) string {
	parts := strings.Split(p, "/")
	for i, s := range parts {
		parts[i] = url.PathEscape(s)
	}
	return strings.Join(parts, "/")
}

// scanCommunity looks for the community files where GitHub does: the root,
// .github/ and docs/ (the license only at the root), reading the three
// trees through the repository's cat-file process.
func scanCommunity(ctx context.Context, g *gitrepo.Repo, root string) (communityScan, error) {
	var s communityScan
	dirs := []struct{ prefix, rev string }{{".github/", root + ":.github"}, {"", root}, {"docs/", root + ":docs"}}
	for _, d := range dirs {
		info, data, err := g.Read(ctx, d.rev, 0)
		if errors.Is(err, gitrepo.ErrNotFound) {
			continue
		}
		if err != nil {
			return s, err
		}
		if info.Type != "tree" {
			continue
		}
		entries, err := gitrepo.ParseTree(data)
		if err != nil {
			return s, err
		}
		for _, e := range entries {
			isDir := e.Type() == "tree"
			if e.Type() == "commit" {
				continue
			}
			f := &foundFile{path: d.prefix + e.Name, dir: isDir, oid: e.OID}
			base := strings.ToLower(e.Name)
			stem := base
			if i := strings.IndexByte(base, '.'); i > 0 {
				stem = base[:i]
			}
			pick := func(dst **foundFile) {
				if *dst == nil {
					*dst = f
				}
			}
			switch {
			case isDir:
				switch base {
				case "issue_template":
					pick(&s.issueTemplate)
				case "pull_request_template":
					pick(&s.prTemplate)
				}
			case stem == "readme":
				pick(&s.readme)
			case stem == "code_of_conduct" || stem == "code-of-conduct":
				pick(&s.conduct)
			case stem == "contributing":
				pick(&s.contributing)
			case stem == "security":
				pick(&s.security)
			case stem == "issue_template":
				pick(&s.issueTemplate)
			case stem == "pull_request_template":
				pick(&s.prTemplate)
			case d.prefix == "" && isLicenseName(base):
				pick(&s.license)
			}
		}
	}
	return s, nil
}

// isLicenseName recognises the names GitHub looks for a license under.
func isLicenseName(base string) bool {
	for _, stem := range []string{"license", "licence", "copying", "unlicense"} {
		if base == stem {
			return true
		}
		if rest, ok := strings.CutPrefix(base, stem); ok {
			switch rest {
			case ".md", ".markdown", ".txt", ".rst", ".html", "-mit", "-apache", "-mit.md", "-apache.md", ".mit", ".apache2":
				return true
			}
		}
	}
	return false
}

// conductKind tells the well-known codes of conduct apart by their text.
func conductKind(ctx context.Context, g *gitrepo.Repo, oid string) (key, name string) {
	_, data, err := g.Read(ctx, oid, 256<<10)
	if err == nil {
		switch {
		case bytes.Contains(data, []byte("Contributor Covenant")):
			return "contributor_covenant", "Contributor Covenant"
		case bytes.Contains(data, []byte("Citizen Code of Conduct")):
			return "citizen_code_of_conduct", "Citizen Code of Conduct"
		}
	}
	return "other", "Other"
}
