package gitdb

import (
	"errors"
	"net/http"
	"strings"
	"time"

	"github.com/hubd/hubd/internal/gitrepo"
	"github.com/hubd/hubd/internal/model"
	"github.com/hubd/hubd/internal/rest"
)

type tagBody struct {
	Tag     rest.Opt[string]     `json:"tag"`
	Message rest.Opt[string]     `json:"message"`
	Object  rest.Opt[string]     `json:"object"`
	Type    rest.Opt[string]     `json:"type"`
	Tagger  rest.Opt[personBody] `json:"tagger"`
}

// POST /repos/{owner}/{repo}/git/tags: the annotated tag object only; the
// tag ref is made with create-ref, as on GitHub. The tagger defaults to the
// caller and now.
func (a *API) createTag(w http.ResponseWriter, r *http.Request) error {
	repo, g, err := a.repoFor(r, true)
	if err != nil {
		return err
	}
	var in tagBody
	if err := rest.Decode(r, &in); err != nil {
		return err
	}
	fields := map[string]rest.Opt[string]{"tag": in.Tag, "message": in.Message, "object": in.Object, "type": in.Type}
	vals := map[string]string{}
	for _, k := range []string{"tag", "message", "object", "type"} {
		v, err := requiredString(fields[k], k)
		if err != nil {
			return err
		}
		vals[k] = v
	}
	typ := vals["type"]
	if typ != "commit" && typ != "tree" && typ != "blob" {
		return invalid("Tag", "type", typ)
	}
	if name := vals["tag"]; name == "" || strings.ContainsAny(name, "\n\x00") {
		return invalid("Tag", "tag", name)
	}
	tagger, err := a.person(in.Tagger, "tagger", rest.Caller(r), nil, time.Now().UTC().Truncate(time.Second))
	if err != nil {
		return err
	}
	ctx := r.Context()
	target, err := object(ctx, g, vals["object"], typ)
	if errors.Is(err, model.ErrNotFound) {
		return model.Unprocessable("Object does not exist")
	}
	if err != nil {
		return err
	}
	data := gitrepo.EncodeTag(&gitrepo.Tag{Object: target.OID, Type: typ, Name: vals["tag"], Tagger: &tagger, Message: vals["message"]})
	oid, err := g.WriteObject(ctx, "tag", data)
	if err != nil {
		return err
	}
	t, err := gitrepo.ParseTag(oid, data)
	if err != nil {
		return err
	}
	out := a.d.URLs.ToGitTag(repo, t, tagPayload(data, t))
	if out.Verification, err = a.d.TagVerification(ctx, t, tagPayload(data, t)); err != nil {
		return err
	}
	w.Header().Set("Location", out.URL)
	return rest.JSON(w, http.StatusCreated, out)
}

// tagPayload is what a tag's signature signs: the object without it.
func tagPayload(data []byte, t *gitrepo.Tag) string {
	if t.Sig == "" {
		return ""
	}
	return string(data[:len(data)-len(t.Sig)])
}

// GET /repos/{owner}/{repo}/git/tags/{tag_sha}
func (a *API) getTag(w http.ResponseWriter, r *http.Request) error {
	repo, g, err := a.repoFor(r, false)
	if err != nil {
		return err
	}
	ctx := r.Context()
	info, err := object(ctx, g, r.PathValue("tag_sha"), "tag")
	if err != nil {
		return err
	}
	_, data, err := g.Read(ctx, info.OID, 0)
	if err != nil {
		return err
	}
	t, err := gitrepo.ParseTag(info.OID, data)
	if err != nil {
		return err
	}
	out := a.d.URLs.ToGitTag(repo, t, tagPayload(data, t))
	if out.Verification, err = a.d.TagVerification(ctx, t, tagPayload(data, t)); err != nil {
		return err
	}
	return rest.JSON(w, http.StatusOK, out)
}
