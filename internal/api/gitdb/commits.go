package gitdb

import (
	"errors"
	"net/http"
	"strings"
	"time"

	"github.com/hubd/hubd/internal/authz"
	"github.com/hubd/hubd/internal/gitrepo"
	"github.com/hubd/hubd/internal/model"
	"github.com/hubd/hubd/internal/rest"
)

// personBody is an author, committer or tagger in a request body.
type personBody struct {
	Name  rest.Opt[string] `json:"name"`
	Email rest.Opt[string] `json:"email"`
	Date  rest.Opt[string] `json:"date"`
}

type commitBody struct {
	Message   rest.Opt[string]     `json:"message"`
	Tree      rest.Opt[string]     `json:"tree"`
	Parents   rest.Opt[[]string]   `json:"parents"`
	Author    rest.Opt[personBody] `json:"author"`
	Committer rest.Opt[personBody] `json:"committer"`
	Signature rest.Opt[string]     `json:"signature"`
}

// POST /repos/{owner}/{repo}/git/commits: the author defaults to the
// caller and now, the committer to the author; the message is stored as
// given and a signature becomes the gpgsig header.
func (a *API) createCommit(w http.ResponseWriter, r *http.Request) error {
	repo, g, err := a.repoFor(r, true)
	if err != nil {
		return err
	}
	var in commitBody
	if err := rest.Decode(r, &in); err != nil {
		return err
	}
	msg, err := requiredString(in.Message, "message")
	if err != nil {
		return err
	}
	tree, err := requiredString(in.Tree, "tree")
	if err != nil {
		return err
	}
	if in.Signature.Null {
		return notString("signature")
	}
	now := time.Now().UTC().Truncate(time.Second)
	c := rest.Caller(r)
	author, err := a.person(in.Author, "author", c, nil, now)
	if err != nil {
		return err
	}
	committer := author
	if in.Committer.Set && !in.Committer.Null {
		if committer, err = a.person(in.Committer, "committer", c, &author, now); err != nil {
			return err
		}
	}

	ctx := r.Context()
	treeInfo, err := object(ctx, g, tree, "tree")
	if errors.Is(err, model.ErrNotFound) {
		return model.Unprocessable("Tree SHA does not exist")
	} else if err != nil {
		return err
	}
	parents, _ := in.Parents.Get()
	revs := make([]string, len(parents))
	for i, p := range parents {
		if !isHexish(p) {
			return model.Unprocessable("Parent SHA does not exist or is not a commit object")
		}
		revs[i] = strings.ToLower(p)
	}
	infos, err := g.InfoMany(ctx, revs)
	if err != nil {
		return err
	}
	commit := &gitrepo.Commit{Tree: treeInfo.OID, Author: author, Committer: committer, Message: msg, Signature: in.Signature.Value}
	for _, info := range infos {
		if info.Type != "commit" {
			return model.Unprocessable("Parent SHA does not exist or is not a commit object")
		}
		commit.Parents = append(commit.Parents, info.OID)
	}
	data := gitrepo.EncodeCommit(commit)
	oid, err := g.WriteObject(ctx, "commit", data)
	if err != nil {
		return err
	}
	parsed, err := gitrepo.ParseCommit(oid, data)
	if err != nil {
		return err
	}
	out := a.d.URLs.ToGitCommit(repo, parsed)
	vs, err := a.d.CommitVerifications(ctx, parsed)
	if err != nil {
		return err
	}
	out.Verification = vs[0]
	w.Header().Set("Location", out.URL)
	return rest.JSON(w, http.StatusCreated, out)
}

// requiredString reads a required string field.
func requiredString(o rest.Opt[string], field string) (string, error) {
	v, ok := o.Get()
	switch {
	case !o.Set:
		return "", required(field)
	case !ok:
		return "", notString(field)
	}
	return v, nil
}

// person reads an author, committer or tagger. Absent, it is the caller (or
// fallback, for a committer) at now; given, it needs a name and email
// (a committer may take them from fallback) and its date defaults to now.
func (a *API) person(o rest.Opt[personBody], field string, c *authz.Caller, fallback *gitrepo.Signature, now time.Time) (gitrepo.Signature, error) {
	p, ok := o.Get()
	if !ok {
		if fallback != nil {
			return *fallback, nil
		}
		if c.User == nil {
			return gitrepo.Signature{}, required(field)
		}
		name := c.User.Name
		if name == "" {
			name = c.User.Login
		}
		return gitrepo.Signature{Name: name, Email: a.d.URLs.CommitEmail(c.User), When: now}, nil
	}
	s := gitrepo.Signature{When: now}
	var err error
	if s.Name, err = personField(p.Name, field, "name", fallback); err != nil {
		return s, err
	}
	if s.Email, err = personField(p.Email, field, "email", fallback); err != nil {
		return s, err
	}
	if d, ok := p.Date.Get(); ok {
		t, err := time.Parse(time.RFC3339, d)
		if err != nil {
			return s, model.Unprocessable("Invalid request.\n\nFor 'properties/date', \"" + d + "\" is not a date-time.")
		}
		s.When = t.Truncate(time.Second)
	} else if p.Date.Null {
		return s, notString("date")
	}
	return s, nil
}

// personField reads a person's name or email: required unless a fallback
// person has it, and free of what would break the object's header line.
func personField(o rest.Opt[string], field, key string, fallback *gitrepo.Signature) (string, error) {
	v, ok := o.Get()
	switch {
	case o.Null:
		return "", notString(key)
	case !ok && fallback == nil:
		return "", required(key)
	case !ok && key == "name":
		v = fallback.Name
	case !ok:
		v = fallback.Email
	}
	if strings.ContainsAny(v, "<>\n\x00") {
		resource := "Commit"
		if field == "tagger" {
			resource = "Tag"
		}
		return "", invalid(resource, field+"."+key, v)
	}
	return strings.TrimSpace(v), nil
}

// GET /repos/{owner}/{repo}/git/commits/{commit_sha}
func (a *API) getCommit(w http.ResponseWriter, r *http.Request) error {
	repo, g, err := a.repoFor(r, false)
	if err != nil {
		return err
	}
	ctx := r.Context()
	info, err := object(ctx, g, r.PathValue("commit_sha"), "commit")
	if err != nil {
		return err
	}
	_, data, err := g.Read(ctx, info.OID, 0)
	if err != nil {
		return err
	}
	c, err := gitrepo.ParseCommit(info.OID, data)
	if err != nil {
		return err
	}
	out := a.d.URLs.ToGitCommit(repo, c)
	vs, err := a.d.CommitVerifications(ctx, c)
	if err != nil {
		return err
	}
	out.Verification = vs[0]
	return rest.JSON(w, http.StatusOK, out)
}
