package releases

import (
	"net/http"
	"strconv"

	"github.com/hubd/hubd/internal/authz"
	"github.com/hubd/hubd/internal/model"
	svc "github.com/hubd/hubd/internal/releases"
	"github.com/hubd/hubd/internal/rest"
	"github.com/hubd/hubd/internal/wire"
)

// access finds the repository with the caller's permission: need is the
// least the operation takes (reads need read, writes push; an archived
// repository refuses writes).
func (a *API) access(r *http.Request, need authz.Permission) (svc.Access, error) {
	find := a.d.Repo
	if need > authz.Read {
		find = a.d.WritableRepo
	}
	repo, perm, err := find(r, need)
	if err != nil {
		return svc.Access{}, err
	}
	return svc.Access{Repo: repo, Perm: perm, UserID: rest.Caller(r).UserID(), Auth: rest.Caller(r)}, nil
}

// pathID reads a numeric path value; anything else names nothing.
func pathID(r *http.Request, name string) (int64, error) {
	id, err := strconv.ParseInt(r.PathValue(name), 10, 64)
	if err != nil || id <= 0 {
		return 0, model.ErrNotFound
	}
	return id, nil
}

func (a *API) render(r *http.Request, acc svc.Access, rel *model.Release) wire.Release {
	return a.d.URLs.ToRelease(acc.Repo, rel, wire.Bodies(rest.From(r).Media.Param))
}

// GET /repos/{owner}/{repo}/releases
func (a *API) list(w http.ResponseWriter, r *http.Request) error {
	acc, err := a.access(r, authz.Read)
	if err != nil {
		return err
	}
	p := rest.ParsePage(r)
	list, total, err := a.svc.List(r.Context(), acc, p.Limit(), p.Offset())
	if err != nil {
		return err
	}
	out := make([]wire.Release, len(list))
	for i, rel := range list {
		out[i] = a.render(r, acc, rel)
	}
	rest.SetLink(w, r, a.d.URLs.API, p, total)
	return rest.JSON(w, http.StatusOK, out)
}

// GET /repos/{owner}/{repo}/releases/{release_id}
func (a *API) get(w http.ResponseWriter, r *http.Request) error {
	acc, err := a.access(r, authz.Read)
	if err != nil {
		return err
	}
	id, err := pathID(r, "release_id")
	if err != nil {
		return err
	}
	rel, err := a.svc.Get(r.Context(), acc, id)
	if err != nil {
		return err
	}
	return rest.JSON(w, http.StatusOK, a.render(r, acc, rel))
}

// GET /repos/{owner}/{repo}/releases/latest
func (a *API) latest(w http.ResponseWriter, r *http.Request) error {
	acc, err := a.access(r, authz.Read)
	if err != nil {
		return err
	}
	rel, err := a.svc.Latest(r.Context(), acc)
	if err != nil {
		return err
	}
	return rest.JSON(w, http.StatusOK, a.render(r, acc, rel))
}

// GET /repos/{owner}/{repo}/releases/tags/{tag}
func (a *API) byTag(w http.ResponseWriter, r *http.Request) error {
	acc, err := a.access(r, authz.Read)
	if err != nil {
		return err
	}
	rel, err := a.svc.ByTag(r.Context(), acc, r.PathValue("tag"))
	if err != nil {
		return err
	}
	return rest.JSON(w, http.StatusOK, a.render(r, acc, rel))
}

type createBody struct {
	TagName              *string `json:"tag_name"`
	TargetCommitish      *string `json:"target_commitish"`
	Name                 *string `json:"name"`
	Body                 *string `json:"body"`
	Draft                *bool   `json:"draft"`
	Prerelease           *bool   `json:"prerelease"`
	GenerateReleaseNotes *bool   `json:"generate_release_notes"`
	MakeLatest           *string `json:"make_latest"`
}

func str(p *string) string {
	if p == nil {
		return ""
	}
	return *p
}

func flag(p *bool) bool { return p != nil && *p }

// POST /repos/{owner}/{repo}/releases
func (a *API) create(w http.ResponseWriter, r *http.Request) error {
	acc, err := a.access(r, authz.Write)
	if err != nil {
		return err
	}
	var in createBody
	if err := rest.Decode(r, &in); err != nil {
		return err
	}
	if in.TagName == nil {
		return model.Invalid("Release", "tag_name", "missing_field")
	}
	rel, err := a.svc.Create(r.Context(), acc, svc.CreateInput{TagName: *in.TagName, TargetCommitish: str(in.TargetCommitish),
		Name: in.Name, Body: in.Body, Draft: flag(in.Draft), Prerelease: flag(in.Prerelease),
		GenerateNotes: flag(in.GenerateReleaseNotes), MakeLatest: str(in.MakeLatest)})
	if err != nil {
		return err
	}
	out := a.render(r, acc, rel)
	w.Header().Set("Location", out.URL)
	return rest.JSON(w, http.StatusCreated, out)
}

type updateBody struct {
	TagName         *string `json:"tag_name"`
	TargetCommitish *string `json:"target_commitish"`
	Name            *string `json:"name"`
	Body            *string `json:"body"`
	Draft           *bool   `json:"draft"`
	Prerelease      *bool   `json:"prerelease"`
	MakeLatest      *string `json:"make_latest"`
}

// PATCH /repos/{owner}/{repo}/releases/{release_id}
func (a *API) update(w http.ResponseWriter, r *http.Request) error {
	acc, err := a.access(r, authz.Write)
	if err != nil {
		return err
	}
	id, err := pathID(r, "release_id")
	if err != nil {
		return err
	}
	var in updateBody
	if err := rest.Decode(r, &in); err != nil {
		return err
	}
	rel, err := a.svc.Update(r.Context(), acc, id, svc.UpdateInput{TagName: in.TagName, TargetCommitish: in.TargetCommitish,
		Name: in.Name, Body: in.Body, Draft: in.Draft, Prerelease: in.Prerelease, MakeLatest: str(in.MakeLatest)})
	if err != nil {
		return err
	}
	return rest.JSON(w, http.StatusOK, a.render(r, acc, rel))
}

// DELETE /repos/{owner}/{repo}/releases/{release_id}
func (a *API) delete(w http.ResponseWriter, r *http.Request) error {
	acc, err := a.access(r, authz.Write)
	if err != nil {
		return err
	}
	id, err := pathID(r, "release_id")
	if err != nil {
		return err
	}
	if err := a.svc.Delete(r.Context(), acc, id); err != nil {
		return err
	}
	return rest.NoContent(w)
}

type notesBody struct {
	TagName         *string `json:"tag_name"`
	TargetCommitish *string `json:"target_commitish"`
	PreviousTagName *string `json:"previous_tag_name"`
}

// POST /repos/{owner}/{repo}/releases/generate-notes
func (a *API) generateNotes(w http.ResponseWriter, r *http.Request) error {
	// Push access, but nothing is written: archived repositories answer too.
	repo, perm, err := a.d.Repo(r, authz.Write)
	if err != nil {
		return err
	}
	acc := svc.Access{Repo: repo, Perm: perm, UserID: rest.Caller(r).UserID()}
	var in notesBody
	if err := rest.Decode(r, &in); err != nil {
		return err
	}
	if in.TagName == nil {
		return model.Invalid("Release", "tag_name", "missing_field")
	}
	name, body, err := a.svc.GenerateNotes(r.Context(), acc, svc.NotesInput{TagName: *in.TagName,
		TargetCommitish: str(in.TargetCommitish), PreviousTagName: str(in.PreviousTagName)})
	if err != nil {
		return err
	}
	return rest.JSON(w, http.StatusOK, wire.ReleaseNotesContent{Name: name, Body: body})
}
