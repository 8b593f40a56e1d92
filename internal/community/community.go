// Package community finds a repository's community health files where
// GitHub looks for them (the root, .github/ and docs/ of the default
// branch) and reads the ones GitHub interprets: the code of conduct's kind,
// FUNDING.yml, the issue template chooser's config.yml, issue templates and
// pull request templates. The REST community profile and GraphQL's
// Repository fields share it. Every read goes through the repository's
// long-lived cat-file process.
package community

import (
	"bytes"
	"context"
	"errors"
	"strings"

	"github.com/hubd/hubd/internal/gitrepo"
)

// File is a community file of a tree: its path and whether it is a
// directory (issue and pull request template folders).
type File struct {
	Path string
	Dir  bool
	OID  string
}

// Files are the community files a tree holds (nil: absent).
type Files struct {
	Readme, Conduct, Contributing, License, Security, IssueTemplate, PRTemplate *File
}

// Scan looks for the community files where GitHub does: .github/, the
// root and docs/, in that order (the license only at the root).
func Scan(ctx context.Context, g *gitrepo.Repo, root string) (Files, error) {
	var s Files
	for _, d := range []string{".github/", "", "docs/"} {
		entries, err := readTree(ctx, g, root, d)
		if err != nil {
			return s, err
		}
		for _, e := range entries {
			isDir := e.Type() == "tree"
			if e.Type() == "commit" {
				continue
			}
			f := &File{Path: d + e.Name, Dir: isDir, OID: e.OID}
			base := strings.ToLower(e.Name)
			stem := base
			if i := strings.IndexByte(base, '.'); i > 0 {
				stem = base[:i]
			}
			pick := func(dst **File) {
				if *dst == nil {
					*dst = f
				}
			}
			switch {
			case isDir:
				switch base {
				case "issue_template":
					pick(&s.IssueTemplate)
				case "pull_request_template":
					pick(&s.PRTemplate)
				}
			case stem == "readme":
				pick(&s.Readme)
			case stem == "code_of_conduct" || stem == "code-of-conduct":
				pick(&s.Conduct)
			case stem == "contributing":
				pick(&s.Contributing)
			case stem == "security":
				pick(&s.Security)
			case stem == "issue_template":
				pick(&s.IssueTemplate)
			case stem == "pull_request_template":
				pick(&s.PRTemplate)
			case d == "" && IsLicenseName(base):
				pick(&s.License)
			}
		}
	}
	return s, nil
}

// readTree lists the tree at dir ("" the root, else ending in "/") of the
// tree root; nil when it is absent or not a tree.
func readTree(ctx context.Context, g *gitrepo.Repo, root, dir string) ([]gitrepo.TreeEntry, error) {
	rev := root
	if dir != "" {
		rev = root + ":" + strings.TrimSuffix(dir, "/")
	}
	info, data, err := g.Read(ctx, rev, 0)
	if errors.Is(err, gitrepo.ErrNotFound) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	if info.Type != "tree" {
		return nil, nil
	}
	return gitrepo.ParseTree(data)
}

// IsLicenseName recognises the names GitHub looks for a license under.
func IsLicenseName(base string) bool {
	for _, stem := range []string{"license", "licence", "copying", "unlicense"} {
		if base == stem {
			return true
		}
		if rest, ok := strings.CutPrefix(base, stem); ok {
			switch rest {
			case ".md", ".markdown", ".txt", ".rst", ".html", "-mit", "-apache", "-mit.md", "-apache.md", ".mit", ".apache2":
				return true
			}
		}
	}
	return false
}

// ConductKind tells the well-known codes of conduct apart by their text.
func ConductKind(ctx context.Context, g *gitrepo.Repo, oid string) (key, name string) {
	_, data, err := g.Read(ctx, oid, 256<<10)
	if err == nil {
		switch {
		case bytes.Contains(data, []byte("Contributor Covenant")):
			return "contributor_covenant", "Contributor Covenant"
		case bytes.Contains(data, []byte("Citizen Code of Conduct")):
			return "citizen_code_of_conduct", "Citizen Code of Conduct"
		}
	}
	return "other", "Other"
}

// maxFile bounds the configuration and template files read.
const maxFile = 512 << 10

// readFile reads the blob at path of the tree root (nil when absent, not a
// blob or too large).
func readFile(ctx context.Context, g *gitrepo.Repo, root, path string) ([]byte, error) {
	info, data, err := g.Read(ctx, root+":"+path, maxFile)
	if errors.Is(err, gitrepo.ErrNotFound) || errors.Is(err, gitrepo.ErrTooLarge) {
		return nil, nil
	}
	if err != nil || info.Type != "blob" {
		return nil, err
	}
	return data, nil
}
