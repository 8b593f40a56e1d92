package metrics

import (
	"errors"
	"net/http"
	"net/url"
	"strings"

	"github.com/hubd/hubd/internal/authz"
	"github.com/hubd/hubd/internal/community"
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
	var scan community.Files
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
			if scan, err = community.Scan(ctx, g, c.Tree); err != nil {
				return err
			}
			out.UpdatedAt = wire.TimePtr(&c.Committer.When)
		}
	}
	f := &out.Files
	f.Readme = a.healthFile(repo, scan.Readme)
	f.Contributing = a.healthFile(repo, scan.Contributing)
	f.IssueTemplate = a.healthFile(repo, scan.IssueTemplate)
	f.PullRequestTemplate = a.healthFile(repo, scan.PRTemplate)
	if c := scan.Conduct; c != nil {
		f.CodeOfConductFile = a.healthFile(repo, c)
		key, name := community.ConductKind(ctx, g, c.OID)
		html := f.CodeOfConductFile.HTMLURL
		f.CodeOfConduct = &codeOfConduct{URL: a.d.URLs.API + "/codes_of_conduct/" + key, Key: key, Name: name, HTMLURL: &html}
	}
	if l := scan.License; l != nil {
		// The file's license, detected like GET /repos/{owner}/{repo}/license
		// does; GitHub's "other" answer when it names none of the catalogue.
		spdx := "NOASSERTION"
		f.License = &licenseSimple{Key: "other", Name: "Other", SpdxID: &spdx, NodeID: "MDc6TGljZW5zZTA=", HTMLURL: a.healthFile(repo, l).HTMLURL}
		if _, text, err := g.Read(ctx, l.OID, 1<<20); err == nil {
			if lic, err := licenses.Detect(text); err == nil && lic != nil {
				s := lic.Simple(a.d.URLs)
				f.License = &licenseSimple{Key: s.Key, Name: s.Name, URL: s.URL, SpdxID: s.SpdxID, NodeID: s.NodeID, HTMLURL: f.License.HTMLURL}
			}
		}
	}
	n := 0
	for _, present := range []bool{out.Description != nil, scan.Readme != nil, scan.Conduct != nil, scan.Contributing != nil,
		scan.License != nil, scan.Security != nil, scan.IssueTemplate != nil, scan.PRTemplate != nil} {
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

func (a *API) healthFile(repo *model.Repo, f *community.File) *healthFile {
	if f == nil {
		return nil
	}
	p := escapePath(f.Path)
	view := "/blob/"
	if f.Dir {
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
