package licenses

import (
	"context"
	"errors"

	"github.com/hubd/hubd/internal/gitrepo"
	"github.com/hubd/hubd/internal/wire"
)

// MaxFile is the largest license file read and classified.
const MaxFile = 1 << 20

// RootFile finds the license file among a commit's root files (see
// fileScore).
func RootFile(ctx context.Context, g *gitrepo.Repo, commit string) (gitrepo.TreeEntry, bool, error) {
	_, data, err := g.Read(ctx, commit+"^{tree}", 0)
	if err != nil {
		return gitrepo.TreeEntry{}, false, err
	}
	entries, err := gitrepo.ParseTree(data)
	if err != nil {
		return gitrepo.TreeEntry{}, false, err
	}
	var file gitrepo.TreeEntry
	best := 0
	for _, e := range entries {
		if e.Mode != "100644" && e.Mode != "100755" {
			continue
		}
		if s := fileScore(e.Name); s > best {
			file, best = e, s
		}
	}
	return file, best > 0, nil
}

// DetectCommit names the license of a commit's root license file, as the
// repository objects report it: "" when there is no license file, "other"
// when its text matches no license of the catalogue (or is too large to
// read), otherwise the license's key.
func DetectCommit(ctx context.Context, g *gitrepo.Repo, commit string) (string, error) {
	file, found, err := RootFile(ctx, g, commit)
	if err != nil || !found {
		return "", err
	}
	_, text, err := g.Read(ctx, file.OID, MaxFile)
	if errors.Is(err, gitrepo.ErrTooLarge) {
		return "other", nil
	}
	if err != nil {
		return "", err
	}
	l, err := DetectBlob(file.OID, text)
	if err != nil {
		return "", err
	}
	if l == nil {
		return "other", nil
	}
	return l.Key, nil
}

// SimpleByKey is the license-simple object of a key DetectCommit returned
// (nil for "").
func SimpleByKey(u wire.URLs, key string) *wire.LicenseSimple {
	if key == "" {
		return nil
	}
	if l, ok := Find(key); ok {
		return l.Simple(u)
	}
	return wire.OtherLicense()
}

// Catalogue is every license GitHub offers, in its order.
func Catalogue() []*License { return catalogue }

// DetectBlob is Detect for the blob oid, remembered by its id.
func DetectBlob(oid string, text []byte) (*License, error) { return detectBlob(oid, text) }
