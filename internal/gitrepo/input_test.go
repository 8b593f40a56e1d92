package gitrepo

import (
	"context"
	"errors"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/hubd/hubd/internal/model"
)

// TestInputChecks: arguments exec or git would misread are refused before
// git runs, as an *InputError that the REST layer answers with a 422.
func TestInputChecks(t *testing.T) {
	_, r := newRepo(t)
	ctx := context.Background()
	blob, err := r.WriteObject(ctx, "blob", []byte("x\n"))
	if err != nil {
		t.Fatal(err)
	}
	tree, err := EncodeTree([]TreeEntry{{Mode: "100644", Name: "x", OID: blob}})
	if err != nil {
		t.Fatal(err)
	}
	treeID, _ := r.WriteObject(ctx, "tree", tree)
	when := Signature{"M", "m@example.com", time.Unix(1700000000, 0).UTC()}
	commit, _ := r.WriteObject(ctx, "commit", EncodeCommit(&Commit{Tree: treeID, Author: when, Committer: when, Message: "m\n"}))
	if err := r.UpdateRef(ctx, "refs/heads/main", commit, ZeroOID); err != nil {
		t.Fatal(err)
	}
	cmdErr := func(args ...string) error {
		cmd := r.Cmd(ctx, nil, args...)
		return cmd.Run()
	}
	for _, tc := range []struct {
		name string
		err  error
	}{
		{"NUL in an author filter", func() error {
			_, _, err := r.RevList(ctx, LogOptions{Include: []string{commit}, Authors: []string{"a\x00b"}})
			return err
		}()},
		{"NUL in a path filter", func() error {
			_, _, err := r.RevList(ctx, LogOptions{Include: []string{commit}, Path: "x\x00"})
			return err
		}()},
		{"NUL through Git", func() error { _, err := r.Git(ctx, nil, "rev-parse", "a\x00"); return err }()},
		{"NUL through Cmd", cmdErr("rev-parse", "a\x00")},
		{"ref that is an option", func() error { _, err := r.ResolveRef(ctx, "--all"); return err }()},
		{"ref prefix that is an option", func() error { _, err := r.Refs(ctx, "--format=%(HEAD)"); return err }()},
		{"update-ref of an option", r.UpdateRef(ctx, "-d", commit, ZeroOID)},
		{"update-ref of a name outside refs/", r.UpdateRef(ctx, "HEAD", commit, ZeroOID)},
		{"update-ref to a name, not an id", r.UpdateRef(ctx, "refs/heads/x", "main", ZeroOID)},
		{"delete-ref of an option", r.DeleteRef(ctx, "--stdin", commit)},
		{"tree entry .git", func() error {
			_, err := EncodeTree([]TreeEntry{{Mode: "040000", Name: ".git", OID: treeID}})
			return err
		}()},
		{"tree entry git~1", func() error {
			_, err := EncodeTree([]TreeEntry{{Mode: "040000", Name: "GIT~1", OID: treeID}})
			return err
		}()},
		{"tree entry a/b", func() error { _, err := EncodeTree([]TreeEntry{{Mode: "100644", Name: "a/b", OID: blob}}); return err }()},
		{"tree entry ..", func() error { _, err := EncodeTree([]TreeEntry{{Mode: "100644", Name: "..", OID: blob}}); return err }()},
		{"symlink .gitmodules", func() error {
			_, err := EncodeTree([]TreeEntry{{Mode: "120000", Name: ".gitmodules", OID: blob}})
			return err
		}()},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var ie *InputError
			if !errors.As(tc.err, &ie) {
				t.Fatalf("err %v (%T), want an *InputError", tc.err, tc.err)
			}
			var he *model.HTTPError
			if !errors.As(tc.err, &he) || he.Status != http.StatusUnprocessableEntity || !strings.HasPrefix(he.Message, "Invalid request.") {
				t.Fatalf("err %v does not unwrap to a 422: %+v", tc.err, he)
			}
		})
	}
	// The refused update-refs changed nothing.
	if got, err := r.ResolveRef(ctx, "refs/heads/main"); err != nil || got != commit {
		t.Fatalf("main is %q %v", got, err)
	}
	if _, err := r.ResolveRef(ctx, "refs/heads/x"); !errors.Is(err, ErrNotFound) {
		t.Fatalf("refs/heads/x: %v", err)
	}
	// A symlink named .gitmodules is refused, a file is not.
	if _, err := EncodeTree([]TreeEntry{{Mode: "100644", Name: ".gitmodules", OID: blob}}); err != nil {
		t.Fatal(err)
	}
}
