package gitrepo

import (
	"bytes"
	"context"
	"errors"
	"strings"
)

// Generate fills the storage of repository id from template's branches as
// GitHub makes a repository from a template: each branch becomes one root
// commit ("Initial commit" by sig) holding the tree of the template's
// branch head, so none of the template's history travels. Only the trees
// are copied (a pack of their objects); nothing is written to the
// template. It returns the branches made, with their commits; a branch
// that a previous attempt made already is left as it is and not returned.
func (m *Manager) Generate(ctx context.Context, templateID, id int64, branches []string, head string, sig Signature) (map[string]string, error) {
	g, err := m.Init(ctx, id, head)
	if err != nil {
		return nil, err
	}
	t := m.Open(templateID)
	if !t.Exists() {
		return nil, nil // an empty template makes an empty repository
	}
	trees := map[string]string{}
	var list []string
	for _, b := range branches {
		if err := Operand(b); err != nil {
			return nil, err
		}
		tree, err := t.ResolveRef(ctx, "refs/heads/"+b+"^{tree}")
		if errors.Is(err, ErrNotFound) {
			continue // deleted meanwhile
		}
		if err != nil {
			return nil, err
		}
		trees[b] = tree
		list = append(list, tree)
	}
	if len(list) == 0 {
		return nil, nil
	}
	// pack-objects --revs walks the trees' objects (no commits); index-pack
	// stores the pack in the new repository.
	pack := t.Cmd(ctx, nil, "pack-objects", "--revs", "--stdout", "-q")
	pack.Stdin = strings.NewReader(strings.Join(list, "\n") + "\n")
	var packed, packErr bytes.Buffer
	pack.Stdout, pack.Stderr = &packed, &packErr
	if err := pack.Run(); err != nil {
		return nil, &GitError{Args: pack.Args, Stderr: packErr.String(), Err: err}
	}
	idx := g.Cmd(ctx, nil, "index-pack", "--stdin")
	idx.Stdin = &packed
	var idxErr bytes.Buffer
	idx.Stderr = &idxErr
	if err := idx.Run(); err != nil {
		return nil, &GitError{Args: idx.Args, Stderr: idxErr.String(), Err: err}
	}
	made := map[string]string{}
	for _, b := range branches {
		tree, ok := trees[b]
		if !ok {
			continue
		}
		oid, err := g.WriteObject(ctx, "commit", EncodeCommit(&Commit{Tree: tree, Author: sig, Committer: sig, Message: "Initial commit"}))
		if err != nil {
			return nil, err
		}
		err = g.UpdateRef(ctx, "refs/heads/"+b, oid, ZeroOID)
		if errors.Is(err, ErrRefConflict) {
			continue
		}
		if err != nil {
			return nil, err
		}
		made[b] = oid
	}
	if _, ok := trees[head]; ok {
		if err := g.SetHead(ctx, head); err != nil {
			return nil, err
		}
	}
	return made, nil
}
