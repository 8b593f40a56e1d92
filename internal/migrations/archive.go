package migrations

import (
	"archive/tar"
	"compress/gzip"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"io/fs"
	"net/url"
	"os"
	"path/filepath"
	"sort"
	"time"

	"github.com/hubd/hubd/internal/model"
	"github.com/hubd/hubd/internal/store"
)

// The archive: GitHub's migration archive layout (version 1.0.1). Every
// JSON file is an array of at most perFile records, named
// <kind>_000001.json, <kind>_000002.json, ...; records name each other by
// their html URLs.

const (
	schemaVersion = "1.0.1"
	perFile       = 100
)

// archive writes the tar stream of one export.
type archive struct {
	tw    *tar.Writer
	web   string
	now   time.Time
	pages map[string]*page
	users map[int64]bool // accounts referenced, written last as users_*.json
}

type page struct {
	n     int
	items []any
}

// file writes one regular file of the archive.
func (a *archive) file(name string, data []byte) error {
	if err := a.tw.WriteHeader(&tar.Header{Name: name, Mode: 0o644, Size: int64(len(data)), ModTime: a.now, Typeflag: tar.TypeReg}); err != nil {
		return err
	}
	_, err := a.tw.Write(data)
	return err
}

// add appends a record of kind, writing a file each perFile records.
func (a *archive) add(kind string, rec map[string]any) error {
	p := a.pages[kind]
	if p == nil {
		p = &page{}
		a.pages[kind] = p
	}
	p.items = append(p.items, rec)
	if len(p.items) == perFile {
		return a.flush(kind)
	}
	return nil
}

func (a *archive) flush(kind string) error {
	p := a.pages[kind]
	if p == nil || len(p.items) == 0 {
		return nil
	}
	p.n++
	data, err := json.Marshal(p.items)
	if err != nil {
		return err
	}
	p.items = p.items[:0]
	return a.file(fmt.Sprintf("%s_%06d.json", kind, p.n), data)
}

func (a *archive) flushAll() error {
	kinds := make([]string, 0, len(a.pages))
	for k := range a.pages {
		kinds = append(kinds, k)
	}
	sort.Strings(kinds)
	for _, k := range kinds {
		if err := a.flush(k); err != nil {
			return err
		}
	}
	return nil
}

// user is the URL of an account, remembered for users_*.json (nil for a
// deleted account).
func (a *archive) user(id int64, login string) any {
	if id == 0 {
		return nil
	}
	a.users[id] = true
	return a.web + "/" + login
}

func (a *archive) account(acct *model.Account) any {
	if acct == nil {
		return nil
	}
	return a.user(acct.ID, acct.Login)
}

func stamp(t time.Time) string { return t.UTC().Format(time.RFC3339) }

func stampPtr(t *time.Time) any {
	if t == nil {
		return nil
	}
	return stamp(*t)
}

// copyFile adds the regular file at src under name.
func (a *archive) copyFile(name, src string) error {
	f, err := os.Open(src)
	if err != nil {
		return err
	}
	defer f.Close()
	info, err := f.Stat()
	if err != nil {
		return err
	}
	if err := a.tw.WriteHeader(&tar.Header{Name: name, Mode: 0o644, Size: info.Size(), ModTime: info.ModTime(), Typeflag: tar.TypeReg}); err != nil {
		return err
	}
	_, err = io.CopyN(a.tw, f, info.Size())
	return err
}

// dir adds the directory tree root under name.
func (a *archive) dir(root, name string) error {
	return filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(root, p)
		if err != nil {
			return err
		}
		target := name
		if rel != "." {
			target = name + "/" + filepath.ToSlash(rel)
		}
		info, err := d.Info()
		if err != nil {
			return err
		}
		if d.IsDir() {
			return a.tw.WriteHeader(&tar.Header{Name: target + "/", Mode: 0o755, ModTime: info.ModTime(), Typeflag: tar.TypeDir})
		}
		if !info.Mode().IsRegular() {
			return nil
		}
		return a.copyFile(target, p)
	})
}

// export writes the archive of m to its path and answers its size. The
// archive is streamed to a temporary file renamed into place at the end.
func (s *Service) export(ctx context.Context, m *model.Migration) (int64, error) {
	if err := os.MkdirAll(s.Dir, 0o755); err != nil {
		return 0, err
	}
	final := s.ArchivePath(m.ID)
	tmp := final + ".tmp"
	f, err := os.Create(tmp)
	if err != nil {
		return 0, err
	}
	defer os.Remove(tmp)
	work, err := os.MkdirTemp(s.Dir, "export-")
	if err != nil {
		f.Close()
		return 0, err
	}
	defer os.RemoveAll(work)
	zw := gzip.NewWriter(f)
	a := &archive{tw: tar.NewWriter(zw), web: s.URLs.Web, now: time.Now(), pages: map[string]*page{}, users: map[int64]bool{}}
	err = s.write(ctx, a, m, work)
	if err == nil {
		err = a.tw.Close()
	}
	if err == nil {
		err = zw.Close()
	}
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return 0, err
	}
	info, err := os.Stat(tmp)
	if err != nil {
		return 0, err
	}
	return info.Size(), os.Rename(tmp, final)
}

// write adds every file of m's archive.
func (s *Service) write(ctx context.Context, a *archive, m *model.Migration, work string) error {
	q := s.Store.R()
	if err := a.file("schema.json", []byte(`{"version":"`+schemaVersion+`"}`)); err != nil {
		return err
	}
	owner, err := q.AccountByID(ctx, m.OwnerID)
	if err != nil {
		return err
	}
	byMigration, err := q.MigrationRepoIDs(ctx, []int64{m.ID})
	if err != nil {
		return err
	}
	ids := byMigration[m.ID]
	views, err := q.ReposByID(ctx, ids, 0)
	if err != nil {
		return err
	}
	if owner.IsOrg() {
		urls := make(map[int64]string, len(views))
		for id, v := range views {
			urls[id] = a.web + "/" + v.Repo.Owner.Login + "/" + v.Repo.Name
		}
		if err := s.writeOrg(ctx, a, owner); err != nil {
			return err
		}
		if err := s.writeTeams(ctx, a, owner, urls); err != nil {
			return err
		}
	} else {
		a.account(owner)
	}
	for _, id := range ids {
		v := views[id]
		if v == nil {
			continue // deleted since
		}
		if err := s.writeRepo(ctx, a, m, v.Repo, work); err != nil {
			return err
		}
	}
	if err := a.writeUsers(ctx, q); err != nil {
		return err
	}
	return a.flushAll()
}

// writeOrg adds the organization's record with its members.
func (s *Service) writeOrg(ctx context.Context, a *archive, org *model.Account) error {
	q := s.Store.R()
	var members []any
	for _, role := range []model.OrgRole{model.RoleAdmin, model.RoleMember} {
		for off := 0; ; off += perFile {
			list, total, err := q.OrgMembers(ctx, org.ID, store.MemberFilter{Role: role}, perFile, off)
			if err != nil {
				return err
			}
			for _, u := range list {
				members = append(members, map[string]any{"user": a.account(u), "role": string(role), "state": "active"})
			}
			if off+perFile >= total {
				break
			}
		}
	}
	if members == nil {
		members = []any{}
	}
	return a.add("organizations", map[string]any{
		"type": "organization", "url": a.web + "/" + org.Login, "login": org.Login, "name": org.Name,
		"description": org.Description, "website": org.Blog, "location": org.Location, "email": org.Email,
		"members": members, "created_at": stamp(org.CreatedAt),
	})
}

// writeUsers adds the records of every account the archive names.
func (a *archive) writeUsers(ctx context.Context, q store.Q) error {
	ids := make([]int64, 0, len(a.users))
	for id := range a.users {
		ids = append(ids, id)
	}
	sort.Slice(ids, func(i, j int) bool { return ids[i] < ids[j] })
	for start := 0; start < len(ids); start += perFile {
		chunk := ids[start:min(start+perFile, len(ids))]
		accts, err := q.AccountsByID(ctx, chunk)
		if err != nil {
			return err
		}
		for _, id := range chunk {
			u := accts[id]
			if u == nil || u.IsOrg() {
				continue
			}
			var emails []any
			if u.Email != "" {
				emails = append(emails, map[string]any{"address": u.Email, "primary": true, "verified": true})
			}
			if emails == nil {
				emails = []any{}
			}
			if err := a.add("users", map[string]any{
				"type": "user", "url": a.web + "/" + u.Login, "login": u.Login, "name": u.Name, "company": u.Company,
				"website": u.Blog, "location": u.Location, "emails": emails, "billing_plan": nil,
				"site_admin": u.SiteAdmin, "created_at": stamp(u.CreatedAt),
			}); err != nil {
				return err
			}
		}
	}
	return nil
}

func escape(s string) string { return url.PathEscape(s) }
