package gitrepo

import (
	"bytes"
	"compress/zlib"
	"context"
	"crypto/sha1"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"time"
)

// Signature is an author, committer or tagger line.
type Signature struct {
	Name  string
	Email string
	When  time.Time // with the signer's zone
}

func (s Signature) String() string {
	_, off := s.When.Zone()
	sign := '+'
	if off < 0 {
		sign, off = '-', -off
	}
	return fmt.Sprintf("%s <%s> %d %c%02d%02d", s.Name, s.Email, s.When.Unix(), sign, off/3600, off%3600/60)
}

func parseSignature(s string) (Signature, error) {
	lt, gt := strings.LastIndexByte(s, '<'), strings.LastIndexByte(s, '>')
	if lt < 0 || gt < lt {
		return Signature{}, ErrInvalidObject
	}
	sig := Signature{Name: strings.TrimSpace(s[:lt]), Email: s[lt+1 : gt]}
	f := strings.Fields(s[gt+1:])
	if len(f) >= 1 {
		sec, err := strconv.ParseInt(f[0], 10, 64)
		if err != nil {
			return Signature{}, ErrInvalidObject
		}
		loc := time.UTC
		if len(f) >= 2 && len(f[1]) == 5 {
			h, _ := strconv.Atoi(f[1][1:3])
			m, _ := strconv.Atoi(f[1][3:5])
			off := h*3600 + m*60
			if f[1][0] == '-' {
				off = -off
			}
			loc = time.FixedZone(f[1], off)
		}
		sig.When = time.Unix(sec, 0).In(loc)
	}
	return sig, nil
}

// Commit is a parsed commit object.
type Commit struct {
	OID       string
	Tree      string
	Parents   []string
	Author    Signature
	Committer Signature
	Signature string // gpgsig, if any
	Message   string
	Payload   []byte // the object without its signature, as signed
}

// ParseCommit parses a commit object's content.
func ParseCommit(oid string, data []byte) (*Commit, error) {
	c := &Commit{OID: oid}
	head, msg, _ := bytes.Cut(data, []byte("\n\n"))
	c.Message = string(msg)
	var payload bytes.Buffer
	lines := strings.Split(string(head), "\n")
	for i := 0; i < len(lines); i++ {
		key, val, _ := strings.Cut(lines[i], " ")
		switch key {
		case "tree":
			c.Tree = val
		case "parent":
			c.Parents = append(c.Parents, val)
		case "author":
			sig, err := parseSignature(val)
			if err != nil {
				return nil, err
			}
			c.Author = sig
		case "committer":
			sig, err := parseSignature(val)
			if err != nil {
				return nil, err
			}
			c.Committer = sig
		case "gpgsig", "gpgsig-sha256":
			sig := []string{val}
			for i+1 < len(lines) && strings.HasPrefix(lines[i+1], " ") {
				i++
				sig = append(sig, lines[i][1:])
			}
			c.Signature = strings.Join(sig, "\n") + "\n"
			continue
		}
		payload.WriteString(lines[i])
		payload.WriteByte('\n')
	}
	if c.Tree == "" {
		return nil, ErrInvalidObject
	}
	payload.WriteByte('\n')
	payload.Write(msg)
	c.Payload = payload.Bytes()
	return c, nil
}

// EncodeCommit renders a commit object (the inverse of ParseCommit).
func EncodeCommit(c *Commit) []byte {
	var b bytes.Buffer
	fmt.Fprintf(&b, "tree %s\n", c.Tree)
	for _, p := range c.Parents {
		fmt.Fprintf(&b, "parent %s\n", p)
	}
	fmt.Fprintf(&b, "author %s\ncommitter %s\n", c.Author, c.Committer)
	if c.Signature != "" {
		sig := strings.TrimSuffix(c.Signature, "\n")
		fmt.Fprintf(&b, "gpgsig %s\n", strings.ReplaceAll(sig, "\n", "\n "))
	}
	b.WriteByte('\n')
	b.WriteString(c.Message)
	return b.Bytes()
}

// TreeEntry is one entry of a tree object.
type TreeEntry struct {
	Mode string // 100644, 100755, 040000, 120000, 160000
	Name string
	OID  string
}

// Type is the object type the mode implies.
func (e TreeEntry) Type() string {
	switch e.Mode {
	case "40000", "040000":
		return "tree"
	case "160000":
		return "commit"
	}
	return "blob"
}

// ParseTree parses a tree object's content.
func ParseTree(data []byte) ([]TreeEntry, error) {
	var out []TreeEntry
	for len(data) > 0 {
		sp := bytes.IndexByte(data, ' ')
		if sp < 0 {
			return nil, ErrInvalidObject
		}
		nul := bytes.IndexByte(data[sp:], 0)
		if nul < 0 || sp+nul+21 > len(data) {
			return nil, ErrInvalidObject
		}
		nul += sp
		mode := string(data[:sp])
		if mode == "40000" {
			mode = "040000"
		}
		out = append(out, TreeEntry{Mode: mode, Name: string(data[sp+1 : nul]), OID: hex.EncodeToString(data[nul+1 : nul+21])})
		data = data[nul+21:]
	}
	return out, nil
}

// EncodeTree renders entries as a tree object, sorted as git requires.
func EncodeTree(entries []TreeEntry) ([]byte, error) {
	sorted := append([]TreeEntry(nil), entries...)
	key := func(e TreeEntry) string {
		if e.Type() == "tree" {
			return e.Name + "/"
		}
		return e.Name
	}
	sort.SliceStable(sorted, func(i, j int) bool { return key(sorted[i]) < key(sorted[j]) })
	var b bytes.Buffer
	for i, e := range sorted {
		if err := checkEntryName(e); err != nil {
			return nil, err
		}
		if i > 0 && sorted[i-1].Name == e.Name {
			return nil, fmt.Errorf("%w: duplicate entry %q", ErrInvalidObject, e.Name)
		}
		raw, err := hex.DecodeString(e.OID)
		if err != nil || len(raw) != 20 {
			return nil, fmt.Errorf("%w: bad sha %q", ErrInvalidObject, e.OID)
		}
		mode := e.Mode
		if mode == "040000" {
			mode = "40000"
		}
		fmt.Fprintf(&b, "%s %s\x00", mode, e.Name)
		b.Write(raw)
	}
	return b.Bytes(), nil
}

// Tag is a parsed annotated tag object.
type Tag struct {
	OID     string
	Object  string
	Type    string
	Name    string
	Tagger  *Signature
	Message string
	Sig     string
}

// ParseTag parses a tag object's content.
func ParseTag(oid string, data []byte) (*Tag, error) {
	t := &Tag{OID: oid}
	head, msg, _ := bytes.Cut(data, []byte("\n\n"))
	for _, line := range strings.Split(string(head), "\n") {
		key, val, _ := strings.Cut(line, " ")
		switch key {
		case "object":
			t.Object = val
		case "type":
			t.Type = val
		case "tag":
			t.Name = val
		case "tagger":
			sig, err := parseSignature(val)
			if err != nil {
				return nil, err
			}
			t.Tagger = &sig
		}
	}
	m := string(msg)
	if i := strings.Index(m, "-----BEGIN PGP SIGNATURE-----"); i >= 0 {
		t.Message, t.Sig = m[:i], m[i:]
	} else if i := strings.Index(m, "-----BEGIN SSH SIGNATURE-----"); i >= 0 {
		t.Message, t.Sig = m[:i], m[i:]
	} else {
		t.Message = m
	}
	if t.Object == "" || t.Type == "" {
		return nil, ErrInvalidObject
	}
	return t, nil
}

// EncodeTag renders an annotated tag object.
func EncodeTag(t *Tag) []byte {
	var b bytes.Buffer
	fmt.Fprintf(&b, "object %s\ntype %s\ntag %s\n", t.Object, t.Type, t.Name)
	if t.Tagger != nil {
		fmt.Fprintf(&b, "tagger %s\n", t.Tagger)
	}
	b.WriteByte('\n')
	b.WriteString(t.Message)
	return b.Bytes()
}

// HashObject computes an object's id without writing it.
func HashObject(typ string, data []byte) string {
	h := sha1.New()
	fmt.Fprintf(h, "%s %d\x00", typ, len(data))
	h.Write(data)
	return hex.EncodeToString(h.Sum(nil))
}

// WriteObject stores an object as a loose object (no git process) and
// returns its id. Writing an object that exists is a no-op.
func (r *Repo) WriteObject(ctx context.Context, typ string, data []byte) (string, error) {
	oid := HashObject(typ, data)
	dir := filepath.Join(r.Path, "objects", oid[:2])
	final := filepath.Join(dir, oid[2:])
	if _, err := os.Stat(final); err == nil {
		return oid, nil
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", err
	}
	f, err := os.CreateTemp(dir, "tmp_obj_")
	if err != nil {
		return "", err
	}
	zw, _ := zlib.NewWriterLevel(f, zlib.BestSpeed)
	fmt.Fprintf(zw, "%s %d\x00", typ, len(data))
	_, werr := zw.Write(data)
	cerr := zw.Close()
	ferr := f.Close()
	if werr != nil || cerr != nil || ferr != nil {
		os.Remove(f.Name())
		return "", fmt.Errorf("gitrepo: write object: %v %v %v", werr, cerr, ferr)
	}
	os.Chmod(f.Name(), 0o444)
	if err := os.Rename(f.Name(), final); err != nil {
		os.Remove(f.Name())
		return "", err
	}
	return oid, nil
}

// ValidOID reports whether s is a full hex object id.
func ValidOID(s string) bool {
	if len(s) != 40 {
		return false
	}
	_, err := hex.DecodeString(s)
	return err == nil
}
