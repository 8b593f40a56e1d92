// Package advisories is the service of repository security advisories and
// private vulnerability reporting: GHSA ids, the states (a report waits in
// triage; drafts are published or closed), who may see and change what
// (repository administrators and the organization's security managers
// manage; collaborators on an advisory and its reporter work on it; a
// published advisory is read by whoever reads the repository), CVSS
// vectors scored, CWE ids, credits, the temporary private fork and CVE
// requests (recorded only: hubd is no CVE Numbering Authority).
package advisories

import (
	"context"
	"errors"
	"slices"
	"strings"
	"time"

	"github.com/hubd/hubd/internal/authz"
	"github.com/hubd/hubd/internal/forks"
	"github.com/hubd/hubd/internal/model"
	"github.com/hubd/hubd/internal/store"
)

// securityManagerRole is the predefined organization role of security
// managers (internal/roles).
const securityManagerRole = 8137

const resource = "RepositoryAdvisory"

// Service manages advisories.
type Service struct {
	Store *store.Store
	Forks *forks.Service
}

// New makes the service.
func New(st *store.Store, f *forks.Service) *Service { return &Service{Store: st, Forks: f} }

// Viewer is a caller looking at one repository's advisories.
type Viewer struct {
	Caller  *authz.Caller
	Repo    *model.Repo
	Perm    authz.Permission
	Manager bool // administers the repository or is a security manager of its organization
}

func (v Viewer) userID() int64 { return v.Caller.UserID() }

// ViewerOf works out whether the caller manages repo's advisories.
func (s *Service) ViewerOf(ctx context.Context, c *authz.Caller, repo *model.Repo, perm authz.Permission) (Viewer, error) {
	v := Viewer{Caller: c, Repo: repo, Perm: perm, Manager: perm >= authz.Admin}
	if !v.Manager && c.UserID() != 0 && repo.Owner != nil && repo.Owner.IsOrg() {
		ok, err := s.SecurityManager(ctx, repo.OwnerID, c.UserID())
		if err != nil {
			return v, err
		}
		v.Manager = ok
	}
	return v, nil
}

// SecurityManager reports whether a user holds the security manager role
// of an organization, or an enterprise role that manages the security of
// every organization (the enterprise's security_manager).
func (s *Service) SecurityManager(ctx context.Context, orgID, userID int64) (bool, error) {
	ids, err := s.Store.R().OrgRoleIDsOf(ctx, orgID, userID)
	if err != nil || slices.Contains(ids, securityManagerRole) {
		return err == nil, err
	}
	held, err := s.Store.R().EnterpriseRolesOfUser(ctx, userID)
	return authz.EnterpriseRolesGrant(held, authz.WriteEnterpriseSecurity), err
}

// CreditInput credits a user by login.
type CreditInput struct{ Login, Type string }

// Input is a create, report or update; nil fields are absent (an update
// leaves them), Set* flags mark nullable fields present.
type Input struct {
	Summary, Description *string
	SetCVE               bool
	CVEID                *string
	Vulnerabilities      *[]model.AdvisoryVulnerability
	CWEIDs               *[]string
	Credits              *[]CreditInput
	SetSeverity          bool
	Severity             *string
	SetCVSS              bool
	CVSS                 *string
	State                string
	CollabUsers          *[]string
	CollabTeams          *[]string
	StartFork            bool
}

// Advisory is an advisory with its people.
type Advisory struct {
	*model.Advisory
	People *model.AdvisoryPeople
}

// maxItems bounds each list of an advisory, so that a write stays small.
const maxItems = 100

func lenOf[T any](p *[]T) int {
	if p == nil {
		return 0
	}
	return len(*p)
}

func invalid(field, msg string) error { return model.Custom(resource, field, msg) }

// apply validates in and writes it onto a (people too); it checks
// logins and teams with q.
func (s *Service) apply(ctx context.Context, q store.Q, v Viewer, a *model.Advisory, p *model.AdvisoryPeople, in Input) error {
	for field, n := range map[string]int{"vulnerabilities": lenOf(in.Vulnerabilities), "cwe_ids": lenOf(in.CWEIDs),
		"credits": lenOf(in.Credits), "collaborating_users": lenOf(in.CollabUsers), "collaborating_teams": lenOf(in.CollabTeams)} {
		if n > maxItems {
			return invalid(field, field+" may list at most 100 items")
		}
	}
	if in.Summary != nil {
		if strings.TrimSpace(*in.Summary) == "" {
			return model.Invalid(resource, "summary", "missing_field")
		}
		a.Summary = *in.Summary
	}
	if in.Description != nil {
		a.Description = in.Description
	}
	if in.SetCVE {
		if in.CVEID != nil && !cveRE.MatchString(*in.CVEID) {
			return invalid("cve_id", "cve_id must be a CVE id such as CVE-2024-12345")
		}
		a.CVEID = in.CVEID
	}
	if in.Vulnerabilities != nil {
		a.Vulnerabilities = *in.Vulnerabilities
	}
	if in.CWEIDs != nil {
		for _, id := range *in.CWEIDs {
			if !cweRE.MatchString(id) {
				return invalid("cwe_ids", "Invalid CWE id: "+id)
			}
		}
		a.CWEIDs = slices.Compact(slices.Sorted(slices.Values(*in.CWEIDs)))
	}
	if in.SetSeverity && in.SetCVSS && in.Severity != nil && in.CVSS != nil {
		return invalid("cvss_vector_string", "You must choose between setting severity or cvss_vector_string")
	}
	if in.SetSeverity && in.Severity != nil {
		// A severity chosen by hand replaces the CVSS v3 one it would
		// contradict.
		a.Severity, a.CVSSv3 = in.Severity, nil
	} else if in.SetSeverity {
		a.Severity = nil
	}
	if in.SetCVSS {
		if err := setCVSS(a, in.CVSS); err != nil {
			return err
		}
	}
	if in.Credits != nil {
		credits := []model.AdvisoryCredit{}
		old := map[int64]model.AdvisoryCredit{}
		for _, c := range p.Credits {
			old[c.UserID] = c
		}
		seen := map[int64]bool{}
		for _, c := range *in.Credits {
			u, err := q.AccountByLogin(ctx, c.Login)
			if errors.Is(err, model.ErrNotFound) || err == nil && u.IsOrg() {
				return invalid("credits", "Could not find user "+c.Login)
			} else if err != nil {
				return err
			}
			if seen[u.ID] {
				continue
			}
			seen[u.ID] = true
			state := "pending"
			if o, ok := old[u.ID]; ok {
				state = o.State
			} else if u.ID == v.userID() {
				state = "accepted" // crediting yourself needs no answer
			}
			credits = append(credits, model.AdvisoryCredit{UserID: u.ID, Type: c.Type, State: state})
		}
		p.Credits = credits
	}
	if in.CollabUsers != nil || in.CollabTeams != nil {
		if !v.Manager {
			return model.Forbidden("Only repository administrators and security managers may change an advisory's collaborators.")
		}
	}
	if in.CollabUsers != nil {
		p.Users = []int64{}
		for _, login := range *in.CollabUsers {
			u, err := q.AccountByLogin(ctx, login)
			if errors.Is(err, model.ErrNotFound) || err == nil && u.IsOrg() {
				return invalid("collaborating_users", "Could not find user "+login)
			} else if err != nil {
				return err
			}
			if !slices.Contains(p.Users, u.ID) {
				p.Users = append(p.Users, u.ID)
			}
		}
	}
	if in.CollabTeams != nil {
		p.Teams = []int64{}
		for _, slug := range *in.CollabTeams {
			if !v.Repo.Owner.IsOrg() {
				return invalid("collaborating_teams", "Could not find team "+slug)
			}
			t, err := q.TeamBySlug(ctx, v.Repo.OwnerID, slug)
			if errors.Is(err, model.ErrNotFound) {
				return invalid("collaborating_teams", "Could not find team "+slug)
			} else if err != nil {
				return err
			}
			if !slices.Contains(p.Teams, t.ID) {
				p.Teams = append(p.Teams, t.ID)
			}
		}
	}
	return nil
}

// setCVSS stores a CVSS vector by its version (nil clears the v3 one and
// the severity it gave); a v3 vector sets the severity from its score.
func setCVSS(a *model.Advisory, vector *string) error {
	if vector == nil {
		if a.CVSSv3 != nil {
			a.Severity = nil
		}
		a.CVSSv3 = nil
		return nil
	}
	vec := strings.TrimSpace(*vector)
	if strings.HasPrefix(vec, "CVSS:4.0/") {
		if !ValidCVSS4(vec) {
			return invalid("cvss_vector_string", "Invalid CVSS v4.0 vector string: "+vec)
		}
		a.CVSSv4 = &vec
		return nil
	}
	score, ok := CVSS3Score(vec)
	if !ok {
		return invalid("cvss_vector_string", "Invalid CVSS v3 vector string: "+vec)
	}
	a.CVSSv3, a.Severity = &vec, SeverityOf(score)
	return nil
}

// checkPublishable is GitHub's requirement of an affected package before
// an advisory goes public.
func checkPublishable(a *model.Advisory) error {
	if len(a.Vulnerabilities) == 0 {
		return invalid("vulnerabilities", "A published advisory must name at least one affected product")
	}
	for _, v := range a.Vulnerabilities {
		if v.Name == nil || strings.TrimSpace(*v.Name) == "" {
			return invalid("vulnerabilities", "Package name can't be blank")
		}
	}
	return nil
}

func orgOf(r *model.Repo) int64 {
	if r.Owner != nil && r.Owner.IsOrg() {
		return r.Owner.ID
	}
	return 0
}

// Create makes a draft advisory (managers only), with its temporary
// private fork when asked.
func (s *Service) Create(ctx context.Context, v Viewer, in Input) (*Advisory, error) {
	if !v.Manager {
		return nil, model.Forbidden("You must be an administrator or security manager of this repository to create a security advisory.")
	}
	return s.create(ctx, v, in, false)
}

// Report files a private vulnerability report: anyone signed in who reads
// a public repository that accepts them.
func (s *Service) Report(ctx context.Context, v Viewer, in Input) (*Advisory, error) {
	on, err := s.Store.R().PrivateReporting(ctx, v.Repo.ID)
	if err != nil {
		return nil, err
	}
	if !on || v.Repo.Private() {
		return nil, model.Forbidden("Private vulnerability reporting is not enabled for this repository.")
	}
	// Reporters name no collaborators and no credits but their own.
	in.CollabUsers, in.CollabTeams, in.Credits = nil, nil, nil
	if !v.Manager {
		in.StartFork = false
	}
	return s.create(ctx, v, in, true)
}

func (s *Service) create(ctx context.Context, v Viewer, in Input, report bool) (*Advisory, error) {
	if in.Summary == nil {
		return nil, model.Invalid(resource, "summary", "missing_field")
	}
	if v.Repo.Archived {
		return nil, model.ErrArchived
	}
	state := model.AdvisoryDraft
	if report {
		state = model.AdvisoryTriage
	}
	a := &model.Advisory{RepoID: v.Repo.ID, State: state, AuthorID: v.userID(), Reported: report, CWEIDs: []string{}, Vulnerabilities: []model.AdvisoryVulnerability{}}
	p := &model.AdvisoryPeople{}
	var fork *model.Repo
	for attempt := 0; ; attempt++ {
		a.GHSAID = NewGHSAID()
		err := s.Store.Tx(ctx, func(tx store.Q) error {
			if err := s.apply(ctx, tx, v, a, p, in); err != nil {
				return err
			}
			if report {
				p.Credits = []model.AdvisoryCredit{{UserID: v.userID(), Type: "reporter", State: "accepted"}}
			}
			if err := tx.CreateAdvisory(ctx, a); err != nil {
				return err
			}
			if err := tx.SetAdvisoryPeople(ctx, a.ID, *p); err != nil {
				return err
			}
			kind := "repository_advisory.created"
			if report {
				kind = "repository_advisory.reported"
			}
			if err := tx.AppendEvent(ctx, kind, v.userID(), v.Repo.ID, orgOf(v.Repo), map[string]any{"advisory_id": a.ID, "ghsa_id": a.GHSAID}); err != nil {
				return err
			}
			if in.StartFork {
				var err error
				fork, err = s.insertFork(ctx, tx, v, a, p)
				return err
			}
			return nil
		})
		if errors.Is(err, store.ErrDuplicate) && attempt < 3 {
			continue // a GHSA id drawn twice: draw again
		}
		if err != nil {
			return nil, err
		}
		break
	}
	if fork != nil {
		s.Forks.Notify()
	}
	return &Advisory{Advisory: a, People: p}, nil
}

// visible answers whether the viewer may read a.
func (s *Service) visible(ctx context.Context, v Viewer, a *model.Advisory) (collaborator bool, err error) {
	if v.userID() != 0 {
		if a.AuthorID == v.userID() {
			return true, nil
		}
		ok, err := s.Store.R().AdvisoryCollaborator(ctx, a.ID, v.userID())
		if err != nil || ok {
			return ok, err
		}
	}
	return false, nil
}

// Get is one advisory the viewer may see (404 otherwise).
func (s *Service) Get(ctx context.Context, v Viewer, ghsa string) (*Advisory, bool, error) {
	if !ValidGHSAID(ghsa) {
		return nil, false, model.ErrNotFound
	}
	a, err := s.Store.R().AdvisoryByGHSA(ctx, v.Repo.ID, ghsa)
	if err != nil {
		return nil, false, err
	}
	collab, err := s.visible(ctx, v, a)
	if err != nil {
		return nil, false, err
	}
	if !v.Manager && !collab && a.State != model.AdvisoryPublished {
		return nil, false, model.ErrNotFound
	}
	people, err := s.Store.R().AdvisoryPeopleOf(ctx, []int64{a.ID})
	if err != nil {
		return nil, false, err
	}
	return &Advisory{Advisory: a, People: people[a.ID]}, collab, nil
}

// editable is an advisory the viewer may change: managers, and its
// collaborators and reporter; others who see it get 403.
func (s *Service) editable(ctx context.Context, v Viewer, ghsa string) (*Advisory, error) {
	if v.userID() == 0 {
		return nil, model.ErrNotFound
	}
	a, collab, err := s.Get(ctx, v, ghsa)
	if err != nil {
		return nil, err
	}
	if !v.Manager && !collab {
		return nil, model.Forbidden("You do not have permission to edit this security advisory.")
	}
	return a, nil
}

// transition checks a state change and stamps it.
func transition(v Viewer, a *model.Advisory, to string, now time.Time) error {
	from := a.State
	if to == "" || to == from {
		return nil
	}
	if !v.Manager {
		return model.Forbidden("Only repository administrators and security managers may change an advisory's state.")
	}
	ok := map[string][]string{
		model.AdvisoryTriage: {model.AdvisoryDraft, model.AdvisoryClosed},
		model.AdvisoryDraft:  {model.AdvisoryPublished, model.AdvisoryClosed},
		model.AdvisoryClosed: {model.AdvisoryDraft},
	}[from]
	if !slices.Contains(ok, to) {
		return invalid("state", "An advisory in state "+from+" cannot be moved to "+to)
	}
	switch to {
	case model.AdvisoryDraft:
		if from == model.AdvisoryTriage {
			a.Accepted = true
		}
		a.ClosedAt = nil
	case model.AdvisoryClosed:
		a.ClosedAt = &now
	case model.AdvisoryPublished:
		if err := checkPublishable(a); err != nil {
			return err
		}
		a.PublishedAt, a.PublisherID = &now, v.userID()
	}
	a.State = to
	return nil
}

// Update edits an advisory and moves it between states.
func (s *Service) Update(ctx context.Context, v Viewer, ghsa string, in Input) (*Advisory, error) {
	adv, err := s.editable(ctx, v, ghsa)
	if err != nil {
		return nil, err
	}
	if v.Repo.Archived {
		return nil, model.ErrArchived
	}
	a, p := adv.Advisory, adv.People
	from := a.State
	err = s.Store.Tx(ctx, func(tx store.Q) error {
		if err := s.apply(ctx, tx, v, a, p, in); err != nil {
			return err
		}
		if err := transition(v, a, in.State, tx.Now().UTC().Truncate(time.Second)); err != nil {
			return err
		}
		if err := tx.UpdateAdvisory(ctx, a); err != nil {
			return err
		}
		if err := tx.SetAdvisoryPeople(ctx, a.ID, *p); err != nil {
			return err
		}
		kind := "repository_advisory.updated"
		if a.State != from {
			kind = "repository_advisory." + a.State
		}
		return tx.AppendEvent(ctx, kind, v.userID(), v.Repo.ID, orgOf(v.Repo), map[string]any{"advisory_id": a.ID, "ghsa_id": a.GHSAID, "from": from})
	})
	if err != nil {
		return nil, err
	}
	return adv, nil
}

// RequestCVE records a request for a CVE id (managers; public
// repositories; not once published, nor when it has one or asked already).
// hubd is no CVE Numbering Authority: the request is kept, nothing is sent.
func (s *Service) RequestCVE(ctx context.Context, v Viewer, ghsa string) error {
	adv, err := s.editable(ctx, v, ghsa)
	if err != nil {
		return err
	}
	a := adv.Advisory
	switch {
	case !v.Manager:
		return model.Forbidden("You must be an administrator or security manager of this repository to request a CVE.")
	case v.Repo.Private():
		return model.Unprocessable("CVEs can only be requested for advisories of public repositories.")
	case a.State == model.AdvisoryPublished || a.State == model.AdvisoryClosed:
		return model.Unprocessable("A CVE can only be requested for a draft advisory.")
	case a.CVEID != nil:
		return model.Unprocessable("This advisory already has a CVE id.")
	case a.CVERequestedAt != nil:
		return model.Unprocessable("A CVE has already been requested for this advisory.")
	}
	now := s.Store.Now().UTC().Truncate(time.Second)
	a.CVERequestedAt = &now
	return s.Store.Tx(ctx, func(tx store.Q) error {
		if err := tx.UpdateAdvisory(ctx, a); err != nil {
			return err
		}
		return tx.AppendEvent(ctx, "repository_advisory.cve_requested", v.userID(), v.Repo.ID, orgOf(v.Repo), map[string]any{"advisory_id": a.ID, "ghsa_id": a.GHSAID})
	})
}

// ErrForkExists is the 422 for an advisory that has its temporary private
// fork already.
var ErrForkExists = model.Unprocessable("A temporary private fork already exists for this security advisory.")

// CreateFork makes the advisory's temporary private fork (managers and the
// advisory's collaborators).
func (s *Service) CreateFork(ctx context.Context, v Viewer, ghsa string) (*model.Repo, error) {
	adv, err := s.editable(ctx, v, ghsa)
	if err != nil {
		return nil, err
	}
	if adv.PrivateForkID != 0 {
		return nil, ErrForkExists
	}
	if adv.State == model.AdvisoryPublished || adv.State == model.AdvisoryClosed {
		return nil, model.Unprocessable("A temporary private fork can only be created for an advisory in draft or triage.")
	}
	var fork *model.Repo
	err = s.Store.Tx(ctx, func(tx store.Q) error {
		// Taken under the transaction: two requests make one fork.
		cur, err := tx.AdvisoryByGHSA(ctx, v.Repo.ID, adv.GHSAID)
		if err != nil {
			return err
		}
		if cur.PrivateForkID != 0 {
			return ErrForkExists
		}
		fork, err = s.insertFork(ctx, tx, v, adv.Advisory, adv.People)
		return err
	})
	if errors.Is(err, store.ErrDuplicate) {
		return nil, ErrForkExists
	}
	if err != nil {
		return nil, err
	}
	s.Forks.Notify()
	return fork, nil
}

// insertFork makes the fork (named as GitHub names it: the repository's
// name and the advisory's GHSA id) and records it on the advisory.
func (s *Service) insertFork(ctx context.Context, tx store.Q, v Viewer, a *model.Advisory, p *model.AdvisoryPeople) (*model.Repo, error) {
	writers := append([]int64{}, p.Users...)
	if len(p.Teams) > 0 {
		for _, t := range p.Teams {
			members, _, err := tx.TeamMembers(ctx, t, "all", 100, 0)
			if err != nil {
				return nil, err
			}
			for _, m := range members {
				writers = append(writers, m.ID)
			}
		}
	}
	if a.AuthorID != 0 {
		writers = append(writers, a.AuthorID)
	}
	slices.Sort(writers)
	writers = slices.Compact(writers)
	name := v.Repo.Name + "-" + strings.ToLower(a.GHSAID)
	if len(name) > 100 {
		name = name[len(name)-100:]
	}
	fork, err := s.Forks.InsertTemporary(ctx, tx, v.Caller, v.Repo, name, writers)
	if err != nil {
		return nil, err
	}
	a.PrivateForkID = fork.ID
	if err := tx.UpdateAdvisory(ctx, a); err != nil {
		return nil, err
	}
	return fork, tx.AppendEvent(ctx, "repository_advisory.fork_created", v.userID(), v.Repo.ID, orgOf(v.Repo), map[string]any{"advisory_id": a.ID, "ghsa_id": a.GHSAID, "fork_id": fork.ID})
}

// ListQuery selects a page of advisories.
type ListQuery = store.AdvisoryQuery

// List is a page of a repository's advisories the viewer may see.
func (s *Service) List(ctx context.Context, v Viewer, q ListQuery) ([]*Advisory, bool, error) {
	q.RepoID, q.OrgID = v.Repo.ID, 0
	if !v.Manager {
		q.ViewerID = v.userID()
		if q.ViewerID == 0 {
			q.ViewerID = -1 // anonymous: published ones only
		}
	}
	return s.page(ctx, q)
}

// ListOrg is a page of the advisories of an organization's repositories,
// for its owners and security managers.
func (s *Service) ListOrg(ctx context.Context, org *model.Account, c *authz.Caller, owner bool, q ListQuery) ([]*Advisory, bool, error) {
	if !owner {
		ok, err := s.SecurityManager(ctx, org.ID, c.UserID())
		if err != nil {
			return nil, false, err
		}
		if !ok {
			return nil, false, model.Forbidden("You must be an organization owner or security manager to list the organization's security advisories.")
		}
	}
	q.OrgID, q.RepoID, q.ViewerID = org.ID, 0, 0
	return s.page(ctx, q)
}

func (s *Service) page(ctx context.Context, q ListQuery) ([]*Advisory, bool, error) {
	list, more, err := s.Store.R().Advisories(ctx, q)
	if err != nil {
		return nil, false, err
	}
	ids := make([]int64, len(list))
	for i, a := range list {
		ids[i] = a.ID
	}
	people, err := s.Store.R().AdvisoryPeopleOf(ctx, ids)
	if err != nil {
		return nil, false, err
	}
	out := make([]*Advisory, len(list))
	for i, a := range list {
		out[i] = &Advisory{Advisory: a, People: people[a.ID]}
	}
	return out, more, nil
}

// PrivateReporting reports whether repo accepts private vulnerability
// reports (administrators and security managers ask).
func (s *Service) PrivateReporting(ctx context.Context, v Viewer) (bool, error) {
	if !v.Manager {
		return false, model.Forbidden("Must have admin rights to Repository.")
	}
	return s.Store.R().PrivateReporting(ctx, v.Repo.ID)
}

// SetPrivateReporting turns private vulnerability reporting on or off
// (public repositories only, as on GitHub).
func (s *Service) SetPrivateReporting(ctx context.Context, v Viewer, on bool) error {
	if !v.Manager {
		return model.Forbidden("Must have admin rights to Repository.")
	}
	if v.Repo.Private() {
		return model.Unprocessable("Private vulnerability reporting is only available for public repositories.")
	}
	kind := "private_vulnerability_reporting.disabled"
	if on {
		kind = "private_vulnerability_reporting.enabled"
	}
	return s.Store.Tx(ctx, func(tx store.Q) error {
		if err := tx.SetPrivateReporting(ctx, v.Repo.ID, v.userID(), on); err != nil {
			return err
		}
		return tx.AppendEvent(ctx, kind, v.userID(), v.Repo.ID, orgOf(v.Repo), map[string]any{"enabled": on})
	})
}
