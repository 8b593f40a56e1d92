package forks

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sort"
	"strconv"
	"time"

	"github.com/hubd/hubd/internal/authz"
	"github.com/hubd/hubd/internal/gitrepo"
	"github.com/hubd/hubd/internal/jobs"
	"github.com/hubd/hubd/internal/model"
	"github.com/hubd/hubd/internal/names"
	"github.com/hubd/hubd/internal/store"
)

// JobGenerate is the job kind that fills a repository generated from a
// template with the template's files.
const JobGenerate = "template.generate"

// GenerateInput is a request to make a repository from a template.
type GenerateInput struct {
	Owner              string // "" makes it the caller's
	Name               string
	Description        string
	IncludeAllBranches bool
	// Visibility is public or private (REST's private flag), or internal
	// in an organization (GraphQL).
	Visibility model.Visibility
}

// generateJob is the payload of a JobGenerate job.
type generateJob struct {
	RepoID      int64 `json:"repo_id"`
	TemplateID  int64 `json:"template_id"`
	ActorID     int64 `json:"actor_id"`
	AllBranches bool  `json:"include_all_branches"`
	At          int64 `json:"at"` // the commits' date (unix seconds)
}

// errNotTemplate is the 422 for a repository that is no template.
func errNotTemplate(r *model.Repo) error {
	return model.Unprocessable(r.FullName() + " is not a template repository")
}

// Generate makes a repository from template tmpl, which caller sees with
// perm, as GitHub's "Use this template" does: a new repository of owner
// with the template's default branch (or all its branches), each a single
// "Initial commit" of the template's files, no history and no fork
// relation; template_repository names the template. The row is made at
// once; the files follow in a job, as a fork's copy does.
func (s *Service) Generate(ctx context.Context, c *authz.Caller, tmpl *model.Repo, perm authz.Permission, in GenerateInput) (*model.Repo, error) {
	if c == nil || c.User == nil {
		return nil, model.Forbidden("Resource not accessible by integration")
	}
	if !authz.CanSee(perm) {
		return nil, model.ErrNotFound
	}
	if !tmpl.IsTemplate {
		return nil, errNotTemplate(tmpl)
	}
	if in.Name == "" {
		return nil, model.Invalid("Repository", "name", "missing_field")
	}
	name, err := names.NormalizeRepo(in.Name)
	if err != nil {
		return nil, &model.ValidationError{Errors: []model.FieldError{{Resource: "Repository", Field: "name", Code: "invalid", Value: in.Name}}}
	}
	if in.Visibility == "" {
		in.Visibility = model.Public
	}
	owner, member, err := s.account(ctx, c, in.Owner)
	if err != nil {
		return nil, err
	}
	if in.Visibility == model.Internal && !owner.IsOrg() {
		return nil, model.Custom("Repository", "visibility", "internal repositories can only be created within an organization")
	}
	// A template that is not public serves its owner, or the members of
	// the organization that owns it.
	if tmpl.Visibility != model.Public && !s.insider(ctx, c, tmpl) {
		return nil, model.ErrNotFound
	}
	scope := "public_repo"
	if in.Visibility != model.Public {
		scope = "repo"
	}
	if !c.HasScope(scope) {
		return nil, model.Forbidden("Resource not accessible by personal access token")
	}
	if member && !memberMayCreate(owner, in.Visibility) {
		return nil, errOrgCreate
	}
	repo := &model.Repo{
		OwnerID: owner.ID, Owner: owner, Name: name, Description: in.Description, Visibility: in.Visibility,
		DefaultBranch: tmpl.DefaultBranch, Topics: []string{},
		HasIssues: true, HasProjects: true, HasWiki: true, HasDownloads: true,
		AllowSquashMerge: true, AllowMergeCommit: true, AllowRebaseMerge: true, AllowForking: true,
		SquashMergeCommitTitle: "COMMIT_OR_PR_TITLE", SquashMergeCommitMessage: "COMMIT_MESSAGES",
		MergeCommitTitle: "MERGE_MESSAGE", MergeCommitMessage: "PR_TITLE",
		TemplateID: tmpl.ID,
	}
	err = s.Store.Tx(ctx, func(tx store.Q) error {
		if err := s.createRow(ctx, tx, c, repo, member, map[string]any{"template_id": tmpl.ID}); err != nil {
			return err
		}
		if err := tx.SetRepoTemplate(ctx, repo.ID, tmpl.ID); err != nil {
			return err
		}
		return jobs.Enqueue(ctx, tx, jobs.Job{Kind: JobGenerate, Key: "template:" + strconv.FormatInt(repo.ID, 10), MaxAttempts: 5,
			Payload: generateJob{RepoID: repo.ID, TemplateID: tmpl.ID, ActorID: c.User.ID, AllBranches: in.IncludeAllBranches,
				At: s.Store.Now().Unix()}})
	})
	if errors.Is(err, store.ErrDuplicate) {
		return nil, ErrNameTaken
	}
	if err != nil {
		return nil, err
	}
	s.Jobs.Notify()
	return repo, nil
}

// insider reports whether c owns tmpl or is an active member of the
// organization that owns it.
func (s *Service) insider(ctx context.Context, c *authz.Caller, tmpl *model.Repo) bool {
	if tmpl.OwnerID == c.User.ID {
		return true
	}
	if !tmpl.Owner.IsOrg() {
		return false
	}
	m, err := s.Store.R().Membership(ctx, tmpl.OwnerID, c.User.ID)
	return err == nil && m.State == "active"
}

// account is the owner of a new repository: the caller (login "" or their
// own), or an organization they may create repositories in (member: as a
// member whom the organization's settings limit).
func (s *Service) account(ctx context.Context, c *authz.Caller, login string) (*model.Account, bool, error) {
	if login == "" || login == c.User.Login {
		return c.User, false, nil
	}
	a, err := s.Store.R().AccountByLogin(ctx, login)
	if errors.Is(err, model.ErrNotFound) {
		return nil, false, &model.ValidationError{Errors: []model.FieldError{{Resource: "Repository", Field: "owner", Code: "invalid", Value: login}}}
	}
	if err != nil {
		return nil, false, err
	}
	if !a.IsOrg() {
		return nil, false, model.Forbidden("You cannot create repositories for another user.")
	}
	return s.orgCreator(ctx, c, a)
}

// generate is the JobGenerate handler: it writes the template's files
// into the new repository and records its branches as pushed. A
// repository deleted meanwhile needs nothing; a template deleted meanwhile
// leaves it empty.
func (s *Service) generate(ctx context.Context, payload []byte) error {
	var j generateJob
	if err := json.Unmarshal(payload, &j); err != nil {
		return jobs.Permanent(fmt.Errorf("template job payload: %w", err))
	}
	v, err := s.Store.R().RepoByID(ctx, j.RepoID, 0)
	if errors.Is(err, model.ErrNotFound) {
		return nil
	} else if err != nil {
		return err
	}
	repo := v.Repo
	branches := []string{repo.DefaultBranch}
	if j.AllBranches && s.Git.Open(j.TemplateID).Exists() {
		refs, err := s.Git.Open(j.TemplateID).Refs(ctx, "refs/heads/")
		if err != nil && !errors.Is(err, gitrepo.ErrNotFound) {
			return err
		}
		for _, r := range refs {
			if b := r.Name[len("refs/heads/"):]; b != repo.DefaultBranch {
				branches = append(branches, b)
			}
		}
		sort.Strings(branches[1:])
	}
	var actor *model.Account
	if a, err := s.Store.R().AccountByID(ctx, j.ActorID); err == nil {
		actor = a
	} else if !errors.Is(err, model.ErrNotFound) {
		return err
	}
	sig := s.signature(actor, time.Unix(j.At, 0).UTC())
	made, err := s.Git.Generate(ctx, j.TemplateID, repo.ID, branches, repo.DefaultBranch, sig)
	if err != nil {
		return err
	}
	var updates []RefUpdate
	for _, b := range branches {
		if oid, ok := made[b]; ok {
			updates = append(updates, RefUpdate{Ref: "refs/heads/" + b, Old: gitrepo.ZeroOID, New: oid})
		}
	}
	if len(updates) == 0 || s.RecordPush == nil {
		return nil
	}
	return s.RecordPush(ctx, repo, j.ActorID, updates)
}

// signature is u's commit identity (nil: the instance's).
func (s *Service) signature(u *model.Account, when time.Time) gitrepo.Signature {
	if s.Identity != nil {
		return s.Identity(u, when)
	}
	if u == nil {
		return gitrepo.Signature{Name: "GitHub", Email: "noreply@localhost", When: when}
	}
	return gitrepo.Signature{Name: u.Login, Email: u.Login + "@localhost", When: when}
}
