package wire

import (
	"github.com/hubd/hubd/internal/model"
)

// RepositoryAdvisory is components/schemas/repository-advisory.
type RepositoryAdvisory struct {
	GHSAID             string                  `json:"ghsa_id"`
	CVEID              *string                 `json:"cve_id"`
	URL                string                  `json:"url"`
	HTMLURL            string                  `json:"html_url"`
	Summary            string                  `json:"summary"`
	Description        *string                 `json:"description"`
	Severity           *string                 `json:"severity"`
	Author             *SimpleUser             `json:"author"`
	Publisher          *SimpleUser             `json:"publisher"`
	Identifiers        []AdvisoryIdentifier    `json:"identifiers"`
	State              string                  `json:"state"`
	CreatedAt          *string                 `json:"created_at"`
	UpdatedAt          *string                 `json:"updated_at"`
	PublishedAt        *string                 `json:"published_at"`
	ClosedAt           *string                 `json:"closed_at"`
	WithdrawnAt        *string                 `json:"withdrawn_at"`
	Submission         *AdvisorySubmission     `json:"submission"`
	Vulnerabilities    []AdvisoryVulnerability `json:"vulnerabilities"`
	CVSS               CVSS                    `json:"cvss"`
	CVSSSeverities     CVSSSeverities          `json:"cvss_severities"`
	CWEs               []CWE                   `json:"cwes"`
	CWEIDs             []string                `json:"cwe_ids"`
	Credits            []AdvisoryCreditInput   `json:"credits"`
	CreditsDetailed    []AdvisoryCredit        `json:"credits_detailed"`
	CollaboratingUsers []SimpleUser            `json:"collaborating_users"`
	CollaboratingTeams []TeamWithParent        `json:"collaborating_teams"`
	PrivateFork        *RepoBase               `json:"private_fork"`
}

// AdvisoryIdentifier is one of an advisory's ids (GHSA, CVE).
type AdvisoryIdentifier struct {
	Type  string `json:"type"`
	Value string `json:"value"`
}

// AdvisorySubmission marks a private vulnerability report.
type AdvisorySubmission struct {
	Accepted bool `json:"accepted"`
}

// AdvisoryPackage names an affected package.
type AdvisoryPackage struct {
	Ecosystem string  `json:"ecosystem"`
	Name      *string `json:"name"`
}

// AdvisoryVulnerability is repository-advisory-vulnerability.
type AdvisoryVulnerability struct {
	Package         *AdvisoryPackage `json:"package"`
	VulnerableRange *string          `json:"vulnerable_version_range"`
	PatchedVersions *string          `json:"patched_versions"`
	Functions       []string         `json:"vulnerable_functions"`
}

// CVSS is a vector and its score (null for a v4 vector: hubd does not
// compute v4 scores).
type CVSS struct {
	VectorString *string  `json:"vector_string"`
	Score        *float64 `json:"score"`
}

// CVSSSeverities is cvss-severities.
type CVSSSeverities struct {
	V3 CVSS `json:"cvss_v3"`
	V4 CVSS `json:"cvss_v4"`
}

// CWE is a weakness with its name.
type CWE struct {
	ID   string `json:"cwe_id"`
	Name string `json:"name"`
}

// AdvisoryCreditInput is the short form of a credit (credits).
type AdvisoryCreditInput struct {
	Login string `json:"login"`
	Type  string `json:"type"`
}

// AdvisoryCredit is repository-advisory-credit.
type AdvisoryCredit struct {
	User  SimpleUser `json:"user"`
	Type  string     `json:"type"`
	State string     `json:"state"`
}

// AdvisoryRefs are what an advisory's conversion needs loaded: its
// accounts, teams and forks by id, the CVSS v3 score and CWE names.
type AdvisoryRefs struct {
	Accounts map[int64]*model.Account
	Teams    map[int64]*model.Team
	Forks    map[int64]*model.Repo
	Score    func(vector string) (float64, bool)
	CWEName  func(id string) string
}

// ToRepositoryAdvisory converts an advisory of repo.
func (u URLs) ToRepositoryAdvisory(repo *model.Repo, a *model.Advisory, p *model.AdvisoryPeople, refs AdvisoryRefs) RepositoryAdvisory {
	user := func(id int64) *SimpleUser {
		if acc := refs.Accounts[id]; acc != nil {
			s := u.ToSimpleUser(acc)
			return &s
		}
		return nil
	}
	ghsa := a.GHSAID
	out := RepositoryAdvisory{
		GHSAID: ghsa, CVEID: a.CVEID, URL: u.RepoAPIURL(repo) + "/security-advisories/" + ghsa,
		HTMLURL: u.RepoHTMLURL(repo) + "/security/advisories/" + ghsa, Summary: a.Summary, Description: a.Description,
		Severity: a.Severity, Author: user(a.AuthorID), Publisher: user(a.PublisherID),
		Identifiers: []AdvisoryIdentifier{{Type: "GHSA", Value: ghsa}}, State: a.State,
		CreatedAt: TimePtr(&a.CreatedAt), UpdatedAt: TimePtr(&a.UpdatedAt), PublishedAt: TimePtr(a.PublishedAt),
		ClosedAt: TimePtr(a.ClosedAt), WithdrawnAt: TimePtr(a.WithdrawnAt),
		Vulnerabilities: []AdvisoryVulnerability{}, CWEs: []CWE{}, CWEIDs: append([]string{}, a.CWEIDs...),
		Credits: []AdvisoryCreditInput{}, CreditsDetailed: []AdvisoryCredit{},
		CollaboratingUsers: []SimpleUser{}, CollaboratingTeams: []TeamWithParent{},
	}
	if a.CVEID != nil {
		out.Identifiers = append(out.Identifiers, AdvisoryIdentifier{Type: "CVE", Value: *a.CVEID})
	}
	if a.Reported {
		out.Submission = &AdvisorySubmission{Accepted: a.Accepted}
	}
	for _, v := range a.Vulnerabilities {
		fns := v.Functions
		if fns == nil {
			fns = []string{}
		}
		out.Vulnerabilities = append(out.Vulnerabilities, AdvisoryVulnerability{
			Package: &AdvisoryPackage{Ecosystem: v.Ecosystem, Name: v.Name}, VulnerableRange: v.VulnerableRange,
			PatchedVersions: v.Patched, Functions: fns})
	}
	if a.CVSSv3 != nil {
		v3 := CVSS{VectorString: a.CVSSv3}
		if s, ok := refs.Score(*a.CVSSv3); ok {
			v3.Score = &s
		}
		out.CVSS, out.CVSSSeverities.V3 = v3, v3
	}
	if a.CVSSv4 != nil {
		out.CVSSSeverities.V4 = CVSS{VectorString: a.CVSSv4}
	}
	for _, id := range a.CWEIDs {
		out.CWEs = append(out.CWEs, CWE{ID: id, Name: refs.CWEName(id)})
	}
	if p != nil {
		for _, c := range p.Credits {
			acc := refs.Accounts[c.UserID]
			if acc == nil {
				continue
			}
			out.Credits = append(out.Credits, AdvisoryCreditInput{Login: acc.Login, Type: c.Type})
			out.CreditsDetailed = append(out.CreditsDetailed, AdvisoryCredit{User: u.ToSimpleUser(acc), Type: c.Type, State: c.State})
		}
		for _, id := range p.Users {
			if s := user(id); s != nil {
				out.CollaboratingUsers = append(out.CollaboratingUsers, *s)
			}
		}
		for _, id := range p.Teams {
			if t := refs.Teams[id]; t != nil {
				if t.Org == nil {
					t.Org = repo.Owner
				}
				out.CollaboratingTeams = append(out.CollaboratingTeams, TeamWithParent{Team: u.ToTeam(t)})
			}
		}
	}
	if f := refs.Forks[a.PrivateForkID]; f != nil && a.PrivateForkID != 0 {
		b := u.ToRepoBase(f)
		out.PrivateFork = &b
	}
	return out
}
