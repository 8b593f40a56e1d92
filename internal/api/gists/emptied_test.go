package gists_test

import (
	"testing"

	"github.com/google/go-github/v92/github"

	"github.com/hubd/hubd/internal/apitest"
)

// A file sent with empty content in PATCH /gists/{id} is deleted, so a
// rename made as "the new name, and the old one emptied" leaves one file;
// a new file with empty content is dropped; emptying every file is GitHub's
// 422.
func TestGistFileEmptiedIsDeleted(t *testing.T) {
	e := apitest.New(t)
	_, tok := e.NewUser("mona", false)
	mona := e.GitHub(tok)
	g, _, err := mona.Gists.Create(ctx, github.CreateGistRequest{Public: github.Ptr(true),
		Files: map[github.GistFilename]*github.CreateGistFile{"old.py": {Content: "print(1)\n"}, "keep.md": {Content: "keep\n"}}})
	if err != nil {
		t.Fatal(err)
	}
	ed, _, err := mona.Gists.Update(ctx, g.GetID(), github.UpdateGistRequest{Files: map[github.GistFilename]*github.UpdateGistFile{
		"old.py":   {Content: github.Ptr("")},
		"new.py":   {Content: github.Ptr("print(1)\n")},
		"blank.md": {Content: github.Ptr("")},
	}})
	if err != nil {
		t.Fatal(err)
	}
	if len(ed.Files) != 2 || ed.Files["new.py"].Filename == nil || ed.Files["keep.md"].Filename == nil {
		t.Fatalf("files after the rename: %v", ed.Files)
	}
	ed, _, err = mona.Gists.Update(ctx, g.GetID(), github.UpdateGistRequest{Files: map[github.GistFilename]*github.UpdateGistFile{
		"keep.md": {Filename: github.Ptr("renamed.md"), Content: github.Ptr("")},
	}})
	if err != nil || len(ed.Files) != 1 || ed.Files["new.py"].Filename == nil {
		t.Fatalf("an emptied file renamed: %v %v", ed.Files, err)
	}
	e.Must(422, "PATCH", "/gists/"+g.GetID(), tok, map[string]any{"files": map[string]any{"new.py": map[string]any{"content": ""}}})
	if got, _, _ := mona.Gists.Get(ctx, g.GetID()); len(got.Files) != 1 {
		t.Fatalf("a refused edit changed the files: %v", got.Files)
	}
}
