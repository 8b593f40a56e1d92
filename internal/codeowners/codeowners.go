package codeowners

import (
	"context"
	"errors"
	"slices"
	"strings"

	"github.com/hubd/hubd/internal/authz"
	"github.com/hubd/hubd/internal/gitrepo"
	"github.com/hubd/hubd/internal/model"
	"github.com/hubd/hubd/internal/store"
)

// MaxSize is the largest CODEOWNERS file GitHub reads (3 MB).
const MaxSize = 3 << 20

// Service finds and resolves a repository's code owners.
type Service struct {
	Store *store.Store
	Git   *gitrepo.Manager
}

// New makes the service.
func New(st *store.Store, git *gitrepo.Manager) *Service { return &Service{Store: st, Git: git} }

// Load reads the CODEOWNERS file of a revision (a commit, branch or tag):
// nil, and no error, when it has none (or the revision does not exist).
func (s *Service) Load(ctx context.Context, repoID int64, rev string) (*File, error) {
	g := s.Git.Open(repoID)
	if !g.Exists() || rev == "" {
		return nil, nil
	}
	for _, p := range Paths {
		info, data, err := g.Read(ctx, rev+":"+p, MaxSize)
		switch {
		case errors.Is(err, gitrepo.ErrNotFound), errors.Is(err, gitrepo.ErrTooLarge):
			continue
		case err != nil:
			return nil, err
		case info.Type != "blob":
			continue
		}
		return Parse(p, data), nil
	}
	return nil, nil
}

// Resolved is an owner as the repository knows it: a user (UserID) or a
// team (TeamID); both 0 when the owner is unknown or may not write.
type Resolved struct {
	Owner
	UserID, TeamID int64
}

// resolver resolves owners once each.
type resolver struct {
	s    *Service
	repo *model.Repo
	seen map[string]Resolved
}

func (s *Service) resolver(repo *model.Repo) *resolver {
	return &resolver{s: s, repo: repo, seen: map[string]Resolved{}}
}

// resolve finds an owner with write access to the repository.
func (r *resolver) resolve(ctx context.Context, o Owner) (Resolved, error) {
	key := strings.ToLower(o.Text)
	if v, ok := r.seen[key]; ok {
		return v, nil
	}
	out := Resolved{Owner: o}
	q := r.s.Store.R()
	switch o.Kind {
	case KindUser, KindEmail:
		var u *model.Account
		var err error
		if o.Kind == KindUser {
			u, err = q.AccountByLogin(ctx, o.Login)
		} else {
			u, err = q.UserByEmail(ctx, o.Email)
		}
		if errors.Is(err, model.ErrNotFound) {
			break
		}
		if err != nil {
			return out, err
		}
		if u.Type != model.TypeUser {
			break
		}
		perm, err := UserPerm(ctx, r.s.Store, r.repo, u.ID)
		if err != nil {
			return out, err
		}
		if perm >= authz.Write {
			out.UserID = u.ID
		}
	case KindTeam:
		if r.repo.Owner == nil || !r.repo.Owner.IsOrg() || !strings.EqualFold(r.repo.Owner.Login, o.Org) {
			break
		}
		t, err := q.TeamBySlug(ctx, r.repo.Owner.ID, strings.ToLower(o.Slug))
		if errors.Is(err, model.ErrNotFound) {
			break
		}
		if err != nil {
			return out, err
		}
		perm, err := q.TeamRepo(ctx, t.ID, r.repo.ID)
		if err != nil && !errors.Is(err, model.ErrNotFound) {
			return out, err
		}
		if perm >= authz.Write {
			out.TeamID = t.ID
		}
	}
	r.seen[key] = out
	return out, nil
}

// UserPerm is a user's own permission on repo (no token limits).
func UserPerm(ctx context.Context, st *store.Store, repo *model.Repo, userID int64) (authz.Permission, error) {
	q := st.R()
	u, err := q.AccountByID(ctx, userID)
	if errors.Is(err, model.ErrNotFound) {
		return authz.None, nil
	}
	if err != nil {
		return authz.None, err
	}
	v, err := q.RepoByID(ctx, repo.ID, userID)
	if err != nil {
		return authz.None, err
	}
	return authz.RepoPermission(&authz.Caller{User: u}, v.Repo, v.Facts), nil
}

var errNoFile = &model.HTTPError{Status: 404, Message: "Not Found"}

// Errors are the problems of the CODEOWNERS file of ref (the default
// branch when ""): syntax errors and owners that do not exist or may not
// write to the repository, in line order. 404 when ref or the file is
// missing.
func (s *Service) Errors(ctx context.Context, repo *model.Repo, ref string) ([]Error, error) {
	if ref == "" {
		ref = repo.DefaultBranch
	}
	f, err := s.Load(ctx, repo.ID, ref)
	if err != nil {
		return nil, err
	}
	if f == nil {
		return nil, errNoFile
	}
	r := s.resolver(repo)
	out := []Error{}
	i := 0
	for _, rule := range f.Rules {
		for i < len(f.Errors) && f.Errors[i].Line <= rule.Line {
			out = append(out, f.Errors[i])
			i++
		}
		for _, o := range rule.Owners {
			v, err := r.resolve(ctx, o)
			if err != nil {
				return nil, err
			}
			if v.UserID == 0 && v.TeamID == 0 {
				out = append(out, Error{Line: rule.Line, Column: o.column, Kind: "Unknown owner", Path: f.Path,
					Source:     f.lines[rule.Line-1],
					Suggestion: "make sure " + o.Text + " exists and has write access to the repository"})
			}
		}
	}
	out = append(out, f.Errors[i:]...)
	return out, nil
}

// Ownership is who owns each owned file a change touches: the rule of
// each path with its owners resolved (unknown owners left out; a file
// whose rule names none is not owned).
type Ownership struct {
	Files map[string][]Resolved
}

// Users and Teams are the distinct owners of all files, in the order
// first met.
func (o *Ownership) Users() []int64 {
	var out []int64
	seen := map[int64]bool{}
	for _, path := range o.paths() {
		for _, r := range o.Files[path] {
			if r.UserID != 0 && !seen[r.UserID] {
				seen[r.UserID] = true
				out = append(out, r.UserID)
			}
		}
	}
	return out
}

// Teams: see Users.
func (o *Ownership) Teams() []int64 {
	var out []int64
	seen := map[int64]bool{}
	for _, path := range o.paths() {
		for _, r := range o.Files[path] {
			if r.TeamID != 0 && !seen[r.TeamID] {
				seen[r.TeamID] = true
				out = append(out, r.TeamID)
			}
		}
	}
	return out
}

func (o *Ownership) paths() []string {
	out := make([]string, 0, len(o.Files))
	for p := range o.Files {
		out = append(out, p)
	}
	slices.Sort(out)
	return out
}

// OfPull is the ownership of the files a pull request changes, by the
// CODEOWNERS file of its base branch (nil when it has none).
func (s *Service) OfPull(ctx context.Context, repo *model.Repo, p *model.Pull) (*Ownership, error) {
	f, err := s.Load(ctx, repo.ID, "refs/heads/"+p.BaseRef)
	if err != nil || f == nil || len(f.Rules) == 0 {
		return nil, err
	}
	g := s.Git.Open(repo.ID)
	base, err := g.MergeBase(ctx, p.BaseSHA, p.HeadSHA)
	if errors.Is(err, gitrepo.ErrNotFound) {
		return &Ownership{Files: map[string][]Resolved{}}, nil
	}
	if err != nil {
		return nil, err
	}
	// No patch is read: the window of kept patches starts past every file.
	changes, err := g.DiffStats(ctx, base, p.HeadSHA)
	if err != nil {
		return nil, err
	}
	r := s.resolver(repo)
	out := &Ownership{Files: map[string][]Resolved{}}
	for _, ch := range changes {
		paths := []string{ch.Path}
		if ch.OldPath != "" && ch.OldPath != ch.Path {
			paths = append(paths, ch.OldPath)
		}
		for _, path := range paths {
			rule := f.Match(path)
			if rule == nil {
				continue
			}
			var owners []Resolved
			for _, o := range rule.Owners {
				v, err := r.resolve(ctx, o)
				if err != nil {
					return nil, err
				}
				if v.UserID != 0 || v.TeamID != 0 {
					owners = append(owners, v)
				}
			}
			if len(owners) > 0 {
				out.Files[path] = owners
			}
		}
	}
	return out, nil
}
