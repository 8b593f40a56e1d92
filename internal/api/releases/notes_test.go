package releases_test

import (
	"strings"
	"testing"

	"github.com/google/go-github/v92/github"

	"github.com/hubd/hubd/internal/authz"
)

// merge opens a pull request from a new branch with one commit, as gh's
// user, and merges it as mona.
func (f *fixture) merge(gh *github.Client, branch, title string) int {
	f.t.Helper()
	main, _, err := f.gh.Git.GetRef(ctx, "mona", "app", "heads/main")
	if err != nil {
		f.t.Fatal(err)
	}
	if _, _, err := gh.Git.CreateRef(ctx, "mona", "app", github.CreateRef{Ref: "refs/heads/" + branch, SHA: main.GetObject().GetSHA()}); err != nil {
		f.t.Fatal(err)
	}
	if _, _, err := gh.Repositories.CreateFile(ctx, "mona", "app", branch+".txt", &github.RepositoryContentFileOptions{
		Message: github.Ptr(title), Content: []byte(branch + "\n"), Branch: github.Ptr(branch)}); err != nil {
		f.t.Fatal(err)
	}
	pr, _, err := gh.PullRequests.Create(ctx, "mona", "app", github.CreatePullRequest{Title: github.Ptr(title), Head: branch, Base: "main"})
	if err != nil {
		f.t.Fatal(err)
	}
	f.e.RunJobs()
	if res, _, err := f.gh.PullRequests.Merge(ctx, "mona", "app", pr.GetNumber(), "", &github.PullRequestOptions{MergeMethod: "squash"}); err != nil || !res.GetMerged() {
		f.t.Fatalf("merge %s: %v", branch, err)
	}
	return pr.GetNumber()
}

// Generated notes list the pull requests merged since the previous
// release, their new contributors and the full changelog link, in
// GitHub's format; creation can prepend a body to them.
func TestGenerateNotes(t *testing.T) {
	f := newFixture(t)
	web := f.e.URL + "/mona/app"
	// Before any release: the changelog is the tag's history.
	notes, _, err := f.gh.Repositories.GenerateReleaseNotes(ctx, "mona", "app", github.GenerateNotesRequest{TagName: "v0.1.0"})
	if err != nil || notes.Name != "v0.1.0" || notes.Body != "**Full Changelog**: "+web+"/commits/v0.1.0" {
		t.Fatalf("first notes: %+v %v", notes, err)
	}
	f.create(f.gh, github.CreateReleaseRequest{TagName: "v0.1.0"})

	bob, _ := f.user("bob", authz.Write)
	n1 := f.merge(bob, "feature", "Add the feature")
	n2 := f.merge(f.gh, "fix", "Fix the bug")
	notes, _, err = f.gh.Repositories.GenerateReleaseNotes(ctx, "mona", "app", github.GenerateNotesRequest{TagName: "v0.2.0"})
	if err != nil {
		t.Fatal(err)
	}
	want := "## What's Changed\n" +
		"* Add the feature by @bob in " + web + "/pull/" + itoa(int64(n1)) + "\n" +
		"* Fix the bug by @mona in " + web + "/pull/" + itoa(int64(n2)) + "\n" +
		"\n## New Contributors\n" +
		"* @bob made their first contribution in " + web + "/pull/" + itoa(int64(n1)) + "\n" +
		"* @mona made their first contribution in " + web + "/pull/" + itoa(int64(n2)) + "\n" +
		"\n**Full Changelog**: " + web + "/compare/v0.1.0...v0.2.0"
	if notes.Name != "v0.2.0" || notes.Body != want {
		t.Fatalf("notes:\n%s\nwant:\n%s", notes.Body, want)
	}
	// Nothing was created by generating.
	if f.ref("refs/tags/v0.2.0") != "" {
		t.Fatal("generating notes made a tag")
	}

	// generate_release_notes on creation: the body comes first.
	rel := f.create(f.gh, github.CreateReleaseRequest{TagName: "v0.2.0", Body: github.Ptr("Intro."), GenerateReleaseNotes: github.Ptr(true)})
	if rel.GetName() != "v0.2.0" || rel.GetBody() != "Intro.\n\n"+want {
		t.Fatalf("created with notes: %q %q", rel.GetName(), rel.GetBody())
	}

	// Since v0.2.0: bob is no longer new.
	n3 := f.merge(bob, "more", "More from bob")
	notes, _, err = f.gh.Repositories.GenerateReleaseNotes(ctx, "mona", "app", github.GenerateNotesRequest{TagName: "v0.3.0"})
	want3 := "## What's Changed\n* More from bob by @bob in " + web + "/pull/" + itoa(int64(n3)) + "\n" +
		"\n**Full Changelog**: " + web + "/compare/v0.2.0...v0.3.0"
	if err != nil || notes.Body != want3 {
		t.Fatalf("notes since v0.2.0:\n%s (%v)\nwant:\n%s", notes.Body, err, want3)
	}
	// An explicit previous tag widens the range.
	notes, _, err = f.gh.Repositories.GenerateReleaseNotes(ctx, "mona", "app", github.GenerateNotesRequest{TagName: "v0.3.0",
		PreviousTagName: github.Ptr("v0.1.0")})
	if err != nil || strings.Count(notes.Body, "\n* ") != 5 || !strings.HasSuffix(notes.Body, "/compare/v0.1.0...v0.3.0") {
		t.Fatalf("notes since v0.1.0:\n%s (%v)", notes.Body, err)
	}
	// An existing tag is the end of the range whatever target_commitish says.
	notes, _, err = f.gh.Repositories.GenerateReleaseNotes(ctx, "mona", "app", github.GenerateNotesRequest{TagName: "v0.2.0",
		TargetCommitish: github.Ptr("more"), PreviousTagName: github.Ptr("v0.1.0")})
	if err != nil || strings.Contains(notes.Body, "More from bob") {
		t.Fatalf("notes of the existing tag v0.2.0:\n%s (%v)", notes.Body, err)
	}

	for name, req := range map[string]github.GenerateNotesRequest{
		"unknown previous tag": {TagName: "v0.3.0", PreviousTagName: github.Ptr("v0.0.1")},
		"unknown target":       {TagName: "v0.3.0", TargetCommitish: github.Ptr("nowhere")},
		"bad tag":              {TagName: "a b"},
	} {
		if _, _, err := f.gh.Repositories.GenerateReleaseNotes(ctx, "mona", "app", req); status(err) != 422 {
			t.Errorf("%s: %v", name, err)
		}
	}
	reader, _ := f.user("rita", authz.Read)
	if _, _, err := reader.Repositories.GenerateReleaseNotes(ctx, "mona", "app", github.GenerateNotesRequest{TagName: "v9"}); status(err) != 403 {
		t.Errorf("reader generates notes: %v", err)
	}
}
