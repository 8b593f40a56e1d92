package contents

import (
	"context"
	"net/http"
	pathpkg "path"
	"sort"
	"strings"

	"github.com/hubd/hubd/internal/authz"
	"github.com/hubd/hubd/internal/model"
)

// readmeDirs are where GitHub looks for a repository's README, in its order
// of precedence.
var readmeDirs = []string{".github", "", "docs"}

// GET /repos/{owner}/{repo}/readme and /readme/{dir}: the README of the
// repository (or of a directory), in the contents API's file forms.
func (a *API) getReadme(w http.ResponseWriter, r *http.Request) error {
	repo, _, err := a.d.Repo(r, authz.Read)
	if err != nil {
		return err
	}
	ctx := r.Context()
	s, err := a.at(ctx, repo, r.URL.Query().Get("ref"))
	if err != nil {
		return err
	}
	dirs := readmeDirs
	if strings.HasSuffix(r.Pattern, "{dir...}") {
		dir := strings.Trim(r.PathValue("dir"), "/")
		if dir != "" && !validPath(dir) {
			return model.ErrNotFound
		}
		dirs = []string{dir}
	}
	for _, dir := range dirs {
		e, ok, err := s.readmeIn(ctx, dir)
		if err != nil {
			return err
		}
		if ok {
			return a.writeFile(w, r, s, e, "readme")
		}
	}
	return model.ErrNotFound
}

// readmeIn finds the README of a directory: a file (or a symlink to one)
// named readme with any extension, in any case. Markdown wins over other
// markup, markup over plain text, then names sort.
func (s *snapshot) readmeIn(ctx context.Context, dir string) (entry, bool, error) {
	d, err := s.lookup(ctx, dir)
	if err != nil || d.kind() != "dir" {
		return entry{}, false, nil
	}
	entries, err := readTree(ctx, s.g, d.OID)
	if err != nil {
		return entry{}, false, err
	}
	var found []entry
	for _, te := range entries {
		base := strings.ToLower(te.Name)
		if base != "readme" && !strings.HasPrefix(base, "readme.") {
			continue
		}
		e := entry{TreeEntry: te, Path: join(d.Path, te.Name)}
		switch e.kind() {
		case "file":
			found = append(found, e)
		case "symlink":
			t, ok, err := s.follow(ctx, e)
			if err != nil {
				return entry{}, false, err
			}
			if ok {
				found = append(found, t)
			}
		}
	}
	if len(found) == 0 {
		return entry{}, false, nil
	}
	sort.SliceStable(found, func(i, j int) bool {
		ri, rj := readmeRank(found[i].Name), readmeRank(found[j].Name)
		if ri != rj {
			return ri < rj
		}
		return found[i].Name < found[j].Name
	})
	return found[0], true, nil
}

// otherMarkup are the other formats GitHub's markup library renders.
var otherMarkup = map[string]bool{".rst": true, ".rest": true, ".org": true, ".textile": true, ".rdoc": true,
	".asciidoc": true, ".adoc": true, ".asc": true, ".creole": true, ".mediawiki": true, ".wiki": true, ".pod": true}

func readmeRank(name string) int {
	ext := strings.ToLower(pathpkg.Ext(name))
	switch {
	case markdownExts[ext]:
		return 0
	case otherMarkup[ext]:
		return 1
	case ext == "" || ext == ".txt":
		return 2
	}
	return 3
}
