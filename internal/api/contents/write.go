package contents

import (
	"context"
	"encoding/base64"
	"errors"
	"net/http"
	"strings"
	"time"

	"github.com/hubd/hubd/internal/api"
	"github.com/hubd/hubd/internal/authz"
	"github.com/hubd/hubd/internal/gitrepo"
	"github.com/hubd/hubd/internal/model"
	"github.com/hubd/hubd/internal/rest"
	"github.com/hubd/hubd/internal/wire"
	"github.com/hubd/hubd/internal/workflowguard"
)

var (
	// errBadPath is GitHub's 422 for a path git would refuse.
	errBadPath = &model.ValidationError{Message: "path contains a malformed path component", Errors: []model.FieldError{{Resource: "Commit", Field: "path", Code: "invalid"}}}
	errNotDir  = model.Unprocessable("path contains a file where a directory was expected")
	errNoSHA   = model.Unprocessable("Invalid request.\n\n\"sha\" wasn't supplied.")
)

// person is the author or committer of a body.
type person struct {
	Name  *string `json:"name"`
	Email *string `json:"email"`
	Date  *string `json:"date"`
}

// fileBody is the body of the create, update and delete operations.
type fileBody struct {
	Message   *string `json:"message"`
	Content   *string `json:"content"`
	SHA       *string `json:"sha"`
	Branch    *string `json:"branch"`
	Committer *person `json:"committer"`
	Author    *person `json:"author"`
}

// PUT /repos/{owner}/{repo}/contents/{path}: one commit on the branch that
// creates the file (201) or, given the sha of the blob it replaces, updates
// it (200). The first file of an empty repository creates its branch.
func (a *API) putFile(w http.ResponseWriter, r *http.Request) error {
	repo, in, err := a.writeRequest(r)
	if err != nil {
		return err
	}
	var missing []string
	if in.Message == nil {
		missing = append(missing, "message")
	}
	if in.Content == nil {
		missing = append(missing, "content")
	}
	if err := notSupplied(missing); err != nil {
		return err
	}
	data, ok := decode64(*in.Content)
	if !ok {
		return model.Unprocessable("content is not valid Base64")
	}
	ch, err := a.change(r, in)
	if err != nil {
		return err
	}
	ch.data = data
	res, err := a.commitChange(r.Context(), repo, ch)
	if err != nil {
		return err
	}
	s := &snapshot{repo: repo, ref: res.branch}
	item := a.d.URLs.ToContentItem(repo, res.branch, wire.ContentEntry{Type: "file", Path: ch.path, SHA: res.blob, Size: int64(len(data)), DownloadURL: a.downloadURL(s, ch.path)}, false)
	status := http.StatusOK
	if res.created {
		status = http.StatusCreated
	}
	return rest.JSON(w, status, a.d.URLs.ToFileCommit(repo, &item, res.commit))
}

// DELETE /repos/{owner}/{repo}/contents/{path}: one commit that removes the
// file whose blob sha the body gives (directories left empty go with it).
func (a *API) deleteFile(w http.ResponseWriter, r *http.Request) error {
	repo, in, err := a.writeRequest(r)
	if err != nil {
		return err
	}
	var missing []string
	if in.Message == nil {
		missing = append(missing, "message")
	}
	if in.SHA == nil {
		missing = append(missing, "sha")
	}
	if err := notSupplied(missing); err != nil {
		return err
	}
	ch, err := a.change(r, in)
	if err != nil {
		return err
	}
	ch.delete = true
	res, err := a.commitChange(r.Context(), repo, ch)
	if err != nil {
		return err
	}
	return rest.JSON(w, http.StatusOK, a.d.URLs.ToFileCommit(repo, nil, res.commit))
}

// writeRequest is the start both writes share: write access, a repository
// that is not archived, the body.
func (a *API) writeRequest(r *http.Request) (*model.Repo, *fileBody, error) {
	repo, _, err := a.d.WritableRepo(r, authz.Write)
	if err != nil {
		return nil, nil, err
	}
	var in fileBody
	if err := rest.Decode(r, &in); err != nil {
		return nil, nil, err
	}
	return repo, &in, nil
}

// notSupplied is GitHub's 422 for required fields a body lacks.
func notSupplied(fields []string) error {
	switch len(fields) {
	case 0:
		return nil
	case 1:
		return model.Unprocessable("Invalid request.\n\n\"" + fields[0] + "\" wasn't supplied.")
	}
	return model.Unprocessable("Invalid request.\n\n\"" + strings.Join(fields, "\", \"") + "\" weren't supplied.")
}

// decode64 reads the content of a body: standard base64, padded or not,
// line breaks allowed (as many encoders wrap lines).
func decode64(s string) ([]byte, bool) {
	s = strings.Map(func(r rune) rune {
		if r == '\n' || r == '\r' || r == ' ' || r == '\t' {
			return -1
		}
		return r
	}, s)
	if b, err := base64.StdEncoding.DecodeString(s); err == nil {
		return b, true
	}
	b, err := base64.RawStdEncoding.DecodeString(strings.TrimRight(s, "="))
	return b, err == nil
}

// fileChange is one file written or deleted by one commit.
type fileChange struct {
	path              string
	data              []byte
	delete            bool
	sha               string // the blob the client says it replaces ("" = none)
	branch            string
	message           string
	author, committer gitrepo.Signature
	actorID           int64
	caller            *authz.Caller
}

// change reads what both writes share from the request.
func (a *API) change(r *http.Request, in *fileBody) (fileChange, error) {
	p := r.PathValue("path")
	if !writablePath(p) {
		return fileChange{}, errBadPath
	}
	c := rest.Caller(r)
	now := time.Now().UTC().Truncate(time.Second)
	committer := a.d.Signature(c.User, now)
	if in.Committer != nil {
		var err error
		if committer, err = in.Committer.signature(now); err != nil {
			return fileChange{}, err
		}
	}
	author := committer
	if in.Author != nil {
		var err error
		if author, err = in.Author.signature(now); err != nil {
			return fileChange{}, err
		}
	}
	ch := fileChange{path: p, message: *in.Message, author: author, committer: committer, actorID: c.UserID(), caller: c}
	if in.SHA != nil {
		ch.sha = *in.SHA
	}
	if in.Branch != nil {
		ch.branch = *in.Branch
	}
	return ch, nil
}

// signature reads an author or committer of a body.
func (p *person) signature(now time.Time) (gitrepo.Signature, error) {
	var missing []string
	if p.Name == nil {
		missing = append(missing, "name")
	}
	if p.Email == nil {
		missing = append(missing, "email")
	}
	if err := notSupplied(missing); err != nil {
		return gitrepo.Signature{}, err
	}
	when := now
	if p.Date != nil && *p.Date != "" {
		t, err := time.Parse(time.RFC3339, *p.Date)
		if err != nil {
			return gitrepo.Signature{}, model.Unprocessable("Invalid request.\n\n\"" + *p.Date + "\" is not a valid date-time.")
		}
		when = t
	}
	return gitrepo.Signature{Name: api.IdentityText(*p.Name), Email: api.IdentityText(*p.Email), When: when}, nil
}

// fileResult is what a committed change answers.
type fileResult struct {
	commit  *gitrepo.Commit
	blob    string
	branch  string
	created bool
}

// maxAttempts bounds the retries of a change whose branch moved while it
// was being committed.
const maxAttempts = 5

// commitChange commits a change on its branch: the blob, the trees from it
// up to the root and the commit are written as objects, then the branch is
// moved with compare-and-swap. When another write moved the branch first,
// the change is made again on the new head — its preconditions (the sha of
// the file it replaces) checked again — and the push is recorded once the
// branch moved.
func (a *API) commitChange(ctx context.Context, repo *model.Repo, ch fileChange) (*fileResult, error) {
	g, err := a.d.GitRepo(ctx, repo)
	if err != nil {
		return nil, err
	}
	branch := ch.branch
	if branch == "" {
		branch = repo.DefaultBranch
	}
	if !gitrepo.ValidBranchName(branch) {
		return nil, branchNotFound(branch)
	}
	ref := "refs/heads/" + branch
	var blob string
	if !ch.delete {
		if blob, err = g.WriteObject(ctx, "blob", ch.data); err != nil {
			return nil, err
		}
	}
	parts := strings.Split(ch.path, "/")
	// Writes of this process to one repository take turns, so that they
	// do not lose races to each other; the compare-and-swap still guards
	// against pushes and other processes.
	mu := &a.writeLocks[uint64(repo.ID)%uint64(len(a.writeLocks))]
	mu.Lock()
	locked := true
	defer func() {
		if locked {
			mu.Unlock()
		}
	}()
	for range maxAttempts {
		old, base, err := branchHead(ctx, g, ref)
		if err != nil {
			return nil, err
		}
		if old == gitrepo.ZeroOID {
			// No such branch: only the first file of an empty repository
			// may create one.
			empty, err := api.IsEmpty(ctx, g)
			if err != nil {
				return nil, err
			}
			if !empty {
				return nil, branchNotFound(branch)
			}
			if ch.delete {
				return nil, model.ErrNotFound
			}
		}
		cur, found := entry{}, false
		if base != "" {
			cur, err = (&snapshot{g: g, tree: base}).lookup(ctx, ch.path)
			switch {
			case err == nil:
				found = true
			case !errors.Is(err, model.ErrNotFound):
				return nil, err
			}
		}
		if err := ch.precondition(cur, found); err != nil {
			return nil, err
		}
		var put *gitrepo.TreeEntry
		if !ch.delete {
			mode := "100644"
			if found {
				mode = cur.Mode // an executable stays executable
			}
			put = &gitrepo.TreeEntry{Mode: mode, Name: parts[len(parts)-1], OID: blob}
		}
		tree, err := editTree(ctx, g, base, parts, put)
		if err != nil {
			return nil, err
		}
		if tree == "" { // the last file went: the empty tree
			if tree, err = g.WriteObject(ctx, "tree", nil); err != nil {
				return nil, err
			}
		}
		c := &gitrepo.Commit{Tree: tree, Author: ch.author, Committer: ch.committer, Message: ch.message}
		if old != gitrepo.ZeroOID {
			c.Parents = []string{old}
		}
		if c.OID, err = g.WriteObject(ctx, "commit", gitrepo.EncodeCommit(c)); err != nil {
			return nil, err
		}
		// A token that may not change workflows gets GitHub's 404 for a
		// file under .github/workflows.
		if no, err := workflowguard.Check(ctx, ch.caller, g, nil, workflowguard.Change{Ref: ref, Old: old, New: c.OID}); err != nil {
			return nil, err
		} else if no != nil {
			return nil, model.ErrNotFound
		}
		if err := a.ruled(ctx, repo, ch.actorID, ref, old, c.OID); err != nil {
			return nil, err
		}
		err = g.UpdateRef(ctx, ref, c.OID, old)
		if errors.Is(err, gitrepo.ErrRefConflict) {
			continue
		}
		if err != nil {
			return nil, err
		}
		mu.Unlock()
		locked = false
		if err := a.d.RecordPush(ctx, repo, ch.actorID, []api.RefUpdate{{Ref: ref, Old: old, New: c.OID}}, false); err != nil {
			return nil, err
		}
		return &fileResult{commit: c, blob: blob, branch: branch, created: !found}, nil
	}
	return nil, model.Conflict("The branch " + branch + " kept changing while the file was committed; try again.")
}

// precondition checks the sha the client gave against the file there now.
func (ch *fileChange) precondition(cur entry, found bool) error {
	if !found {
		switch {
		case ch.delete:
			return model.ErrNotFound
		case ch.sha != "":
			return model.Conflict(ch.path + " does not match " + ch.sha)
		}
		return nil
	}
	switch cur.kind() {
	case "dir":
		return model.Unprocessable(ch.path + " is a directory")
	case "submodule":
		return model.Unprocessable(ch.path + " is a submodule")
	}
	if ch.sha == "" {
		return errNoSHA
	}
	if ch.sha != cur.OID {
		return model.Conflict(ch.path + " does not match " + ch.sha)
	}
	return nil
}

// branchHead is a branch's commit and tree (ZeroOID and "" when there is no
// such branch).
func branchHead(ctx context.Context, g *gitrepo.Repo, ref string) (commit, tree string, err error) {
	info, err := g.Info(ctx, ref)
	if errors.Is(err, gitrepo.ErrNotFound) {
		return gitrepo.ZeroOID, "", nil
	}
	if err != nil {
		return "", "", err
	}
	if info.Type != "commit" {
		return "", "", model.Unprocessable(ref + " does not point to a commit")
	}
	t, err := g.Info(ctx, info.OID+"^{tree}")
	if err != nil {
		return "", "", err
	}
	return info.OID, t.OID, nil
}

// editTree writes the trees of a change: tree with the entry at parts set to
// put (or removed when put is nil), every tree on the way rewritten. It
// returns the new tree, or "" when it is left empty (and goes too).
func editTree(ctx context.Context, g *gitrepo.Repo, tree string, parts []string, put *gitrepo.TreeEntry) (string, error) {
	var entries []gitrepo.TreeEntry
	if tree != "" {
		var err error
		if entries, err = readTree(ctx, g, tree); err != nil {
			return "", err
		}
	}
	idx := -1
	for i, e := range entries {
		if e.Name == parts[0] {
			idx = i
			break
		}
	}
	if len(parts) == 1 {
		switch {
		case put == nil && idx >= 0:
			entries = append(entries[:idx], entries[idx+1:]...)
		case put != nil && idx >= 0:
			entries[idx] = *put
		case put != nil:
			entries = append(entries, *put)
		}
	} else {
		sub := ""
		if idx >= 0 {
			if entries[idx].Type() != "tree" {
				return "", errNotDir
			}
			sub = entries[idx].OID
		}
		next, err := editTree(ctx, g, sub, parts[1:], put)
		if err != nil {
			return "", err
		}
		switch {
		case next == "" && idx >= 0:
			entries = append(entries[:idx], entries[idx+1:]...)
		case next == "":
		case idx >= 0:
			entries[idx].OID = next
		default:
			entries = append(entries, gitrepo.TreeEntry{Mode: "040000", Name: parts[0], OID: next})
		}
	}
	if len(entries) == 0 {
		return "", nil
	}
	data, err := gitrepo.EncodeTree(entries)
	if err != nil {
		return "", err
	}
	return g.WriteObject(ctx, "tree", data)
}

func branchNotFound(b string) error {
	return &model.HTTPError{Status: http.StatusNotFound, Message: "Branch " + b + " not found"}
}
