// Package gists is the service of gists: small git repositories of files
// owned by a user, public (listed) or secret (unlisted, visible to anyone
// with the URL), with revisions, forks, stars and comments. Every gist is a
// real git repository (gitrepo.GistStorage) that git clones and pushes to
// over smart HTTP; its row caches the current revision's file list so that
// lists need no git. REST (internal/api/gists), GraphQL and the git
// transport call it; the SQL lives in store/gists.go.
package gists

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"io"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/hubd/hubd/internal/authz"
	"github.com/hubd/hubd/internal/gitrepo"
	"github.com/hubd/hubd/internal/model"
	"github.com/hubd/hubd/internal/store"
)

// Service is the gists service.
type Service struct {
	Store *store.Store
	Git   *gitrepo.Manager
}

// New makes the service.
func New(st *store.Store, git *gitrepo.Manager) *Service { return &Service{Store: st, Git: git} }

// Domain event types (GitHub's GistEvent of the activity feeds: created,
// updated; and deleted, forked, starred and commented for audit and
// notifications).
const (
	EventCreated   = "gist.created"
	EventUpdated   = "gist.updated"
	EventDeleted   = "gist.deleted"
	EventForked    = "gist.forked"
	EventStarred   = "gist.starred"
	EventUnstarred = "gist.unstarred"
	EventCommented = "gist.commented"
)

// Limits GitHub applies to what the API returns of a gist.
const (
	MaxContent  = 1 << 20 // bytes of a file's content returned; more is truncated
	MaxFiles    = 300     // files of a gist returned; more sets truncated
	maxFileName = 255
)

// ErrRequiresAuth is GitHub's 401 for an anonymous caller.
var ErrRequiresAuth = &model.HTTPError{Status: 401, Message: "Requires authentication"}

// writer lets through a caller acting as a user who may write gists: a
// classic token needs the gist scope (GitHub answers 404 without it), a
// fine-grained token or user access token the "gists" user permission,
// and an installation acts for no user.
func writer(c *authz.Caller) error {
	if !c.Authenticated() {
		return ErrRequiresAuth
	}
	switch c.Kind {
	case authz.Installation, authz.AppJWT:
		return model.Forbidden("Resource not accessible by integration")
	case authz.UserToServer:
		if c.Permissions["gists"] != "write" {
			return model.Forbidden("Resource not accessible by integration")
		}
	case authz.FineGrained:
		if c.Permissions["gists"] != "write" {
			return model.Forbidden("Resource not accessible by personal access token")
		}
	}
	if c.User == nil {
		return model.Forbidden("Resource not accessible by integration")
	}
	if !c.HasScope("gist") {
		return model.ErrNotFound
	}
	return nil
}

// newName is a fresh public gist id: 32 hex digits, as GitHub's.
func newName() string {
	b := make([]byte, 16)
	rand.Read(b)
	return hex.EncodeToString(b)
}

// Get loads the gist named name. Secret gists are unlisted, not private:
// anyone with the id sees them.
func (s *Service) Get(ctx context.Context, name string) (*model.Gist, error) {
	if !plausibleName(name) {
		return nil, model.ErrNotFound
	}
	return s.Store.R().GistByName(ctx, name)
}

func plausibleName(s string) bool {
	if s == "" || len(s) > 64 {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z') {
			return false
		}
	}
	return true
}

// FileEdit is one entry of an update's files: new content and/or a new
// name; Delete removes the file (the entry was null).
type FileEdit struct {
	Content  *string
	Filename *string
	Delete   bool
}

// CreateInput is a new gist.
type CreateInput struct {
	Description *string
	Public      bool
	Files       map[string]string // name → content
}

// UpdateInput changes a gist: its description when SetDescription, its
// files by current name.
type UpdateInput struct {
	SetDescription bool
	Description    *string
	Files          map[string]FileEdit
}

// missingFiles is GitHub's 422 for a gist without files: blank contents
// count as no file.
func missingFiles() error { return model.Invalid("Gist", "files", "missing_field") }

func blank(s string) bool { return strings.TrimSpace(s) == "" }

// checkName refuses file names git or GitHub would not keep.
func checkName(name string) error {
	if name == "" || len(name) > maxFileName || strings.ContainsAny(name, "/\\\x00\n\r") || name == "." || name == ".." || strings.HasPrefix(name, ".git") && (name == ".git" || name == ".gitmodules") {
		return model.Custom("Gist", "files", "contents can't be in a subdirectory and names can't be blank or reserved")
	}
	return nil
}

// Create makes a gist for the caller: its git repository with one commit,
// then its row.
func (s *Service) Create(ctx context.Context, c *authz.Caller, in CreateInput) (*model.Gist, error) {
	if err := writer(c); err != nil {
		return nil, err
	}
	files := map[string]string{}
	n := 0
	for name, content := range in.Files {
		if blank(content) {
			continue
		}
		if name == "" {
			n++
			name = "gistfile" + strconv.Itoa(n) + ".txt"
		}
		if err := checkName(name); err != nil {
			return nil, err
		}
		files[name] = content
	}
	if len(files) == 0 {
		return nil, missingFiles()
	}
	g := &model.Gist{Name: newName(), OwnerID: c.User.ID, Owner: c.User, Public: in.Public, Description: in.Description}
	// The row reserves the storage id; it stays hidden until the first
	// revision is recorded, so a failure in git leaves only an orphan.
	if err := s.Store.Tx(ctx, func(tx store.Q) error { return tx.InsertGist(ctx, g) }); err != nil {
		return nil, err
	}
	repo, err := s.Git.Init(ctx, gitrepo.GistStorage(g.ID), "main")
	if err != nil {
		return nil, err
	}
	head, list, err := s.commit(ctx, repo, "", nil, files, c.User)
	if err != nil {
		return nil, err
	}
	err = s.Store.Tx(ctx, func(tx store.Q) error {
		if err := tx.SetGistRevision(ctx, g.ID, list, head, false, nil); err != nil {
			return err
		}
		return tx.AppendEvent(ctx, EventCreated, c.User.ID, 0, 0, map[string]any{"action": "create", "gist_id": g.Name, "public": g.Public})
	})
	if err != nil {
		return nil, err
	}
	return s.Store.R().GistByName(ctx, g.Name)
}

// commit writes a revision: the tree of parent's files (none for a new
// gist) with set written and removed names gone, as a commit on main.
// It returns the new head and its file list.
func (s *Service) commit(ctx context.Context, repo *gitrepo.Repo, parent string, base []model.GistFile, set map[string]string, author *model.Account) (string, []model.GistFile, error) {
	byName := map[string]model.GistFile{}
	for _, f := range base {
		byName[f.Name] = f
	}
	for name, content := range set {
		oid, err := repo.WriteObject(ctx, "blob", []byte(content))
		if err != nil {
			return "", nil, err
		}
		byName[name] = model.GistFile{Name: name, Size: int64(len(content)), OID: oid}
	}
	entries := make([]gitrepo.TreeEntry, 0, len(byName))
	list := make([]model.GistFile, 0, len(byName))
	for _, f := range byName {
		entries = append(entries, gitrepo.TreeEntry{Mode: "100644", Name: f.Name, OID: f.OID})
		list = append(list, f)
	}
	sort.Slice(list, func(i, j int) bool { return list[i].Name < list[j].Name })
	data, err := gitrepo.EncodeTree(entries)
	if err != nil {
		return "", nil, err
	}
	tree, err := repo.WriteObject(ctx, "tree", data)
	if err != nil {
		return "", nil, err
	}
	name := author.Name
	if name == "" {
		name = author.Login
	}
	sig := gitrepo.Signature{Name: name, Email: author.Login + "@users.noreply.hubd", When: s.Store.Now()}
	cm := &gitrepo.Commit{Tree: tree, Author: sig, Committer: sig}
	old := gitrepo.ZeroOID
	if parent != "" {
		cm.Parents, old = []string{parent}, parent
	}
	head, err := repo.WriteObject(ctx, "commit", gitrepo.EncodeCommit(cm))
	if err != nil {
		return "", nil, err
	}
	if err := repo.UpdateRef(ctx, "refs/heads/main", head, old); err != nil {
		if errors.Is(err, gitrepo.ErrRefConflict) {
			return "", nil, &model.HTTPError{Status: 409, Message: "Gist was updated concurrently; try again"}
		}
		return "", nil, err
	}
	return head, list, nil
}

// owned loads gist name for a write by the caller: a gist they do not own
// is not found, as on GitHub.
func (s *Service) owned(ctx context.Context, c *authz.Caller, name string) (*model.Gist, error) {
	if err := writer(c); err != nil {
		return nil, err
	}
	g, err := s.Get(ctx, name)
	if err != nil {
		return nil, err
	}
	if g.OwnerID != c.User.ID {
		return nil, model.ErrNotFound
	}
	return g, nil
}

// Update changes a gist's description and files: a new revision when the
// files change.
func (s *Service) Update(ctx context.Context, c *authz.Caller, name string, in UpdateInput) (*model.Gist, error) {
	g, err := s.owned(ctx, c, name)
	if err != nil {
		return nil, err
	}
	cur := map[string]model.GistFile{}
	for _, f := range g.Files {
		cur[f.Name] = f
	}
	set := map[string]string{}
	removed := map[string]bool{}
	repo := s.Git.Open(gitrepo.GistStorage(g.ID))
	for old, e := range in.Files {
		f, exists := cur[old]
		if e.Delete || (e.Content == nil && e.Filename == nil) {
			if exists {
				removed[old] = true
			}
			continue
		}
		if e.Content != nil && blank(*e.Content) {
			// GitHub deletes a file sent with empty content (a client
			// renaming a file by sending the new name and the old one
			// emptied is left with one file), and drops a new one.
			if exists {
				removed[old] = true
			}
			continue
		}
		target := old
		if e.Filename != nil && *e.Filename != "" {
			target = *e.Filename
		}
		if err := checkName(target); err != nil {
			return nil, err
		}
		content := ""
		switch {
		case e.Content != nil:
			content = *e.Content
		case exists:
			_, data, err := repo.Read(ctx, f.OID, 0)
			if err != nil {
				return nil, err
			}
			content = string(data)
		default:
			// A rename of a file that does not exist.
			return nil, model.Invalid("Gist", "files", "missing_field")
		}
		if exists && target != old {
			removed[old] = true
		}
		set[target] = content
		delete(removed, target)
	}
	changed := len(removed) > 0
	for name, content := range set {
		if f, ok := cur[name]; !ok || f.OID != gitrepo.HashObject("blob", []byte(content)) {
			changed = true
		}
	}
	base := make([]model.GistFile, 0, len(g.Files))
	for _, f := range g.Files {
		if !removed[f.Name] {
			base = append(base, f)
		}
	}
	if len(base) == 0 && len(set) == 0 {
		return nil, missingFiles()
	}
	head, list := g.Head, g.Files
	if changed {
		if head, list, err = s.commit(ctx, repo, g.Head, base, set, c.User); err != nil {
			return nil, err
		}
	}
	if !changed && !in.SetDescription {
		return g, nil
	}
	err = s.Store.Tx(ctx, func(tx store.Q) error {
		if err := tx.SetGistRevision(ctx, g.ID, list, head, in.SetDescription, in.Description); err != nil {
			return err
		}
		return tx.AppendEvent(ctx, EventUpdated, c.User.ID, 0, 0, map[string]any{"action": "update", "gist_id": g.Name, "public": g.Public})
	})
	if err != nil {
		return nil, err
	}
	return s.Store.R().GistByName(ctx, g.Name)
}

// Delete removes a gist: its row in a transaction, then its storage.
func (s *Service) Delete(ctx context.Context, c *authz.Caller, name string) error {
	g, err := s.owned(ctx, c, name)
	if err != nil {
		return err
	}
	err = s.Store.Tx(ctx, func(tx store.Q) error {
		if err := tx.DeleteGist(ctx, g.ID); err != nil {
			return err
		}
		return tx.AppendEvent(ctx, EventDeleted, c.User.ID, 0, 0, map[string]any{"action": "delete", "gist_id": g.Name, "public": g.Public})
	})
	if err != nil {
		return err
	}
	return s.Git.Remove(gitrepo.GistStorage(g.ID))
}

// ListQuery is a page of a gist list.
type ListQuery struct {
	Since  *time.Time
	Limit  int
	Offset int
	// OrderUpdated and Asc order by last update and oldest first (GraphQL's
	// orderBy); REST lists newest first.
	OrderUpdated, Asc bool
	// Privacy is GraphQL's GistPrivacy for the owner's own lists: PUBLIC,
	// SECRET or ALL ("" = ALL).
	Privacy string
}

func (q ListQuery) filter() store.GistFilter {
	return store.GistFilter{Since: q.Since, Limit: q.Limit, Offset: q.Offset, OrderUpdated: q.OrderUpdated, Asc: q.Asc}
}

// Mine lists the caller's gists, secret ones too (GET /gists signed in);
// anonymous callers get every public gist.
func (s *Service) Mine(ctx context.Context, c *authz.Caller, q ListQuery) ([]*model.Gist, int, error) {
	if c.User == nil {
		return s.Public(ctx, q)
	}
	return s.ByUser(ctx, c, c.User, q)
}

// Public lists every public gist.
func (s *Service) Public(ctx context.Context, q ListQuery) ([]*model.Gist, int, error) {
	f := q.filter()
	f.PublicOnly = true
	return s.Store.R().Gists(ctx, f)
}

// ByUser lists u's gists: their public ones, and secret ones too when the
// caller is u (with a token that may read gists).
func (s *Service) ByUser(ctx context.Context, c *authz.Caller, u *model.Account, q ListQuery) ([]*model.Gist, int, error) {
	f := q.filter()
	f.OwnerID = u.ID
	own := c.UserID() == u.ID
	f.PublicOnly = !own || q.Privacy == "PUBLIC"
	if own && q.Privacy == "SECRET" {
		f.SecretOnly = true
	}
	return s.Store.R().Gists(ctx, f)
}

// Starred lists the gists the caller starred.
func (s *Service) Starred(ctx context.Context, c *authz.Caller, q ListQuery) ([]*model.Gist, int, error) {
	if !c.Authenticated() {
		return nil, 0, ErrRequiresAuth
	}
	if c.User == nil {
		return nil, 0, model.Forbidden("Resource not accessible by integration")
	}
	f := q.filter()
	f.StarredBy = c.User.ID
	return s.Store.R().Gists(ctx, f)
}

// Forks lists the forks of gist g, oldest first.
func (s *Service) Forks(ctx context.Context, g *model.Gist, limit, offset int) ([]*model.Gist, int, error) {
	return s.Store.R().Gists(ctx, store.GistFilter{ForkOf: g.ID, Asc: true, Limit: limit, Offset: offset})
}

// Parents loads the gists the given gists were forked from, in one query.
func (s *Service) Parents(ctx context.Context, list []*model.Gist) (map[int64]*model.Gist, error) {
	var ids []int64
	for _, g := range list {
		if g.ForkOf != 0 {
			ids = append(ids, g.ForkOf)
		}
	}
	return s.Store.R().GistsByID(ctx, ids)
}

// Fork copies gist name for the caller: a new gist whose repository is a
// copy of the original's. Forking one's own gist is refused, as on GitHub.
func (s *Service) Fork(ctx context.Context, c *authz.Caller, name string) (*model.Gist, error) {
	if err := writer(c); err != nil {
		return nil, err
	}
	parent, err := s.Get(ctx, name)
	if err != nil {
		return nil, err
	}
	if parent.OwnerID == c.User.ID {
		return nil, &model.HTTPError{Status: 422, Message: "You cannot fork your own gist."}
	}
	g := &model.Gist{Name: newName(), OwnerID: c.User.ID, Owner: c.User, Public: parent.Public, Description: parent.Description, ForkOf: parent.ID}
	if err := s.Store.Tx(ctx, func(tx store.Q) error { return tx.InsertGist(ctx, g) }); err != nil {
		return nil, err
	}
	if err := s.Git.Fork(ctx, gitrepo.GistStorage(parent.ID), gitrepo.GistStorage(g.ID), "main", true); err != nil {
		return nil, err
	}
	err = s.Store.Tx(ctx, func(tx store.Q) error {
		if err := tx.SetGistRevision(ctx, g.ID, parent.Files, parent.Head, false, nil); err != nil {
			return err
		}
		return tx.AppendEvent(ctx, EventForked, c.User.ID, 0, 0, map[string]any{"action": "fork", "gist_id": parent.Name, "fork_id": g.Name})
	})
	if err != nil {
		return nil, err
	}
	return s.Store.R().GistByName(ctx, g.Name)
}

// Star stars a gist for the caller (nothing changes when starred).
func (s *Service) Star(ctx context.Context, c *authz.Caller, name string, star bool) error {
	if err := writer(c); err != nil {
		return err
	}
	g, err := s.Get(ctx, name)
	if err != nil {
		return err
	}
	return s.Store.Tx(ctx, func(tx store.Q) error {
		var changed bool
		var err error
		typ := EventStarred
		if star {
			changed, err = tx.StarGist(ctx, c.User.ID, g.ID)
		} else {
			typ = EventUnstarred
			changed, err = tx.UnstarGist(ctx, c.User.ID, g.ID)
		}
		if err != nil || !changed {
			return err
		}
		return tx.AppendEvent(ctx, typ, c.User.ID, 0, 0, map[string]any{"gist_id": g.Name})
	})
}

// IsStarred reports whether the caller starred gist name.
func (s *Service) IsStarred(ctx context.Context, c *authz.Caller, name string) (bool, error) {
	if !c.Authenticated() {
		return false, ErrRequiresAuth
	}
	g, err := s.Get(ctx, name)
	if err != nil {
		return false, err
	}
	return s.Store.R().HasStarredGist(ctx, c.UserID(), g.ID)
}

// StarCounts counts the stars of gists in one query.
func (s *Service) StarCounts(ctx context.Context, list []*model.Gist) (map[int64]int, error) {
	ids := make([]int64, len(list))
	for i, g := range list {
		ids[i] = g.ID
	}
	return s.Store.R().GistStarCounts(ctx, ids)
}

// StarredBy reports which of list userID starred, in one query.
func (s *Service) StarredBy(ctx context.Context, userID int64, list []*model.Gist) (map[int64]bool, error) {
	ids := make([]int64, len(list))
	for i, g := range list {
		ids[i] = g.ID
	}
	return s.Store.R().GistsStarredBy(ctx, userID, ids)
}

// History is one page of a gist's revisions, newest first, and their
// total.
func (s *Service) History(ctx context.Context, g *model.Gist, limit, offset int) ([]gitrepo.Revision, int, error) {
	repo := s.Git.Open(gitrepo.GistStorage(g.ID))
	total, err := repo.CountCommits(ctx, g.Head)
	if err != nil {
		return nil, 0, err
	}
	list, err := repo.History(ctx, g.Head, limit, offset)
	return list, total, err
}

// AtRevision is gist g as of revision sha (a commit of its history): its
// files then. An unknown revision is not found.
func (s *Service) AtRevision(ctx context.Context, g *model.Gist, sha string) (*model.Gist, error) {
	if !gitrepo.ValidOID(sha) {
		return nil, model.ErrNotFound
	}
	repo := s.Git.Open(gitrepo.GistStorage(g.ID))
	cm, err := repo.Commit(ctx, sha)
	if err != nil {
		if errors.Is(err, gitrepo.ErrNotFound) {
			return nil, model.ErrNotFound
		}
		return nil, err
	}
	if ok, err := repo.IsAncestor(ctx, sha, g.Head); err != nil || !ok {
		return nil, model.ErrNotFound
	}
	files, err := s.treeFiles(ctx, repo, cm.Tree)
	if err != nil {
		return nil, err
	}
	at := *g
	at.Files, at.Head = files, sha
	return &at, nil
}

// treeFiles lists the files of a gist tree (subdirectories, which a push
// may create, are not gist files).
func (s *Service) treeFiles(ctx context.Context, repo *gitrepo.Repo, tree string) ([]model.GistFile, error) {
	list := []model.GistFile{}
	err := repo.LsTree(ctx, tree, false, func(e gitrepo.LsTreeEntry) bool {
		if e.Type == "blob" {
			list = append(list, model.GistFile{Name: e.Path, Size: e.Size, OID: e.OID})
		}
		return true
	})
	sort.Slice(list, func(i, j int) bool { return list[i].Name < list[j].Name })
	return list, err
}

// Content is a file's content as the API returns it: at most MaxContent
// bytes, truncated marking more.
type Content struct {
	Text      string
	Truncated bool
}

// Contents reads the contents of g's files (the first MaxFiles).
func (s *Service) Contents(ctx context.Context, g *model.Gist) (map[string]Content, error) {
	out := map[string]Content{}
	for i, f := range g.Files {
		if i == MaxFiles {
			break
		}
		c, err := s.Text(ctx, g, f, MaxContent)
		if err != nil {
			return nil, err
		}
		out[f.Name] = c
	}
	return out, nil
}

// Text reads file f of gist g, at most max bytes (truncated marking more).
func (s *Service) Text(ctx context.Context, g *model.Gist, f model.GistFile, max int64) (Content, error) {
	repo := s.Git.Open(gitrepo.GistStorage(g.ID))
	if f.Size <= max {
		_, data, err := repo.Read(ctx, f.OID, 0)
		return Content{Text: string(data)}, err
	}
	rc, err := repo.OpenBlob(ctx, f.OID)
	if err != nil {
		return Content{}, err
	}
	defer rc.Close()
	data, err := io.ReadAll(io.LimitReader(rc, max))
	return Content{Text: string(data), Truncated: true}, err
}

// Raw opens the content of file name of gist g at revision rev (a commit
// of its history or the file's blob id), for raw_url.
func (s *Service) Raw(ctx context.Context, g *model.Gist, rev, name string) (io.ReadCloser, error) {
	if !gitrepo.ValidOID(rev) {
		return nil, model.ErrNotFound
	}
	repo := s.Git.Open(gitrepo.GistStorage(g.ID))
	info, err := repo.Info(ctx, rev)
	if err != nil {
		return nil, model.ErrNotFound
	}
	oid := rev
	if info.Type != "blob" {
		at, err := s.AtRevision(ctx, g, rev)
		if err != nil {
			return nil, err
		}
		oid = ""
		for _, f := range at.Files {
			if f.Name == name {
				oid = f.OID
			}
		}
		if oid == "" {
			return nil, model.ErrNotFound
		}
	}
	return repo.OpenBlob(ctx, oid)
}

// Pushed records a push to a gist's repository: its new head's files
// become the current revision.
func (s *Service) Pushed(ctx context.Context, gistID, actorID int64) error {
	repo := s.Git.Open(gitrepo.GistStorage(gistID))
	head, err := repo.ResolveRef(ctx, "refs/heads/main")
	if err != nil {
		return err
	}
	cm, err := repo.Commit(ctx, head)
	if err != nil {
		return err
	}
	files, err := s.treeFiles(ctx, repo, cm.Tree)
	if err != nil {
		return err
	}
	return s.Store.Tx(ctx, func(tx store.Q) error {
		if err := tx.SetGistRevision(ctx, gistID, files, head, false, nil); err != nil {
			return err
		}
		byID, err := tx.GistsByID(ctx, []int64{gistID})
		if err != nil || byID[gistID] == nil {
			return err
		}
		g := byID[gistID]
		return tx.AppendEvent(ctx, EventUpdated, actorID, 0, 0, map[string]any{"action": "update", "gist_id": g.Name, "public": g.Public, "push": true})
	})
}
