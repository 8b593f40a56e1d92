package gitdb_test

import (
	"fmt"
	"net/http"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-github/v92/github"

	"github.com/hubd/hubd/internal/apitest"
)

// child makes a commit on top of parent (same tree, its own message).
func child(t *testing.T, gh *github.Client, owner, repo, parent, msg string) string {
	t.Helper()
	p, _, err := gh.Git.GetCommit(ctx, owner, repo, parent)
	if err != nil {
		t.Fatal(err)
	}
	c, _, err := gh.Git.CreateCommit(ctx, owner, repo, github.Commit{Message: github.Ptr(msg), Tree: p.Tree, Parents: []*github.Commit{{SHA: &parent}}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	return c.GetSHA()
}

func TestRefs(t *testing.T) {
	e := apitest.New(t)
	_, tok := e.NewUser("mona", false)
	gh := e.GitHub(tok)
	base := seeded(t, e, "mona", tok, "refs", false)

	for _, name := range []string{"refs/heads/feature-a", "heads/feature-b", "refs/heads/fix", "refs/heads/feature/deep"} {
		ref, resp, err := gh.Git.CreateRef(ctx, "mona", "refs", github.CreateRef{Ref: name, SHA: base})
		if err != nil || resp.StatusCode != http.StatusCreated || ref.GetObject().GetSHA() != base || !strings.HasPrefix(ref.GetNodeID(), "REF_") ||
			resp.Header.Get("Location") != ref.GetURL() {
			t.Fatalf("create %s: %+v %v", name, ref, err)
		}
	}
	names := func(refs []*github.Reference) string {
		var s []string
		for _, r := range refs {
			s = append(s, r.GetRef())
		}
		sort.Strings(s)
		return strings.Join(s, " ")
	}
	// A prefix matches by string, not by path component.
	got, _, err := gh.Git.ListMatchingRefs(ctx, "mona", "refs", "heads/feat")
	if err != nil || names(got) != "refs/heads/feature-a refs/heads/feature-b refs/heads/feature/deep" {
		t.Fatalf("matching heads/feat: %s %v", names(got), err)
	}
	got, _, err = gh.Git.ListMatchingRefs(ctx, "mona", "refs", "heads/fix")
	if err != nil || names(got) != "refs/heads/fix" {
		t.Fatalf("matching heads/fix: %s %v", names(got), err)
	}
	got, _, err = gh.Git.ListMatchingRefs(ctx, "mona", "refs", "tags")
	if err != nil || got == nil || len(got) != 0 {
		t.Fatalf("matching tags: %v %v", got, err)
	}
	got, _, err = gh.Git.ListMatchingRefs(ctx, "mona", "refs", "")
	if err != nil || len(got) != 5 {
		t.Fatalf("all refs: %s %v", names(got), err)
	}
	if ref, _, err := gh.Git.GetRef(ctx, "mona", "refs", "heads/feature/deep"); err != nil || ref.GetRef() != "refs/heads/feature/deep" {
		t.Fatalf("get nested ref: %+v %v", ref, err)
	}
	// Only whole names: a prefix is not a ref.
	if _, _, err := gh.Git.GetRef(ctx, "mona", "refs", "heads/feat"); apitest.Status(err) != 404 {
		t.Fatalf("get by prefix: %v", err)
	}

	// Fast-forward, refused rewind, forced rewind.
	next := child(t, gh, "mona", "refs", base, "next")
	if ref, _, err := gh.Git.UpdateRef(ctx, "mona", "refs", "heads/fix", github.UpdateRef{SHA: next}); err != nil || ref.GetObject().GetSHA() != next {
		t.Fatalf("fast-forward: %v", err)
	}
	if _, _, err := gh.Git.UpdateRef(ctx, "mona", "refs", "heads/fix", github.UpdateRef{SHA: base}); apitest.Status(err) != 422 || message(err) != "Update is not a fast forward" {
		t.Fatalf("rewind without force: %v", err)
	}
	if ref, _, err := gh.Git.UpdateRef(ctx, "mona", "refs", "heads/fix", github.UpdateRef{SHA: base, Force: github.Ptr(true)}); err != nil || ref.GetObject().GetSHA() != base {
		t.Fatalf("forced rewind: %v", err)
	}
	// An unrelated history is not a fast-forward either.
	p, _, _ := gh.Git.GetCommit(ctx, "mona", "refs", base)
	orphan, _, err := gh.Git.CreateCommit(ctx, "mona", "refs", github.Commit{Message: github.Ptr("orphan"), Tree: p.Tree}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := gh.Git.UpdateRef(ctx, "mona", "refs", "heads/fix", github.UpdateRef{SHA: orphan.GetSHA()}); apitest.Status(err) != 422 {
		t.Fatalf("unrelated update: %v", err)
	}

	if resp, err := gh.Git.DeleteRef(ctx, "mona", "refs", "heads/feature-a"); err != nil || resp.StatusCode != http.StatusNoContent {
		t.Fatalf("delete: %v", err)
	}
	if _, err := gh.Git.DeleteRef(ctx, "mona", "refs", "heads/feature-a"); apitest.Status(err) != 422 || message(err) != "Reference does not exist" {
		t.Fatalf("delete again: %v", err)
	}
	if _, err := gh.Git.DeleteRef(ctx, "mona", "refs", "heads/main"); apitest.Status(err) != 422 || message(err) != "Cannot delete the default branch" {
		t.Fatalf("delete default branch: %v", err)
	}
	if _, _, err := gh.Git.GetRef(ctx, "mona", "refs", "heads/feature-a"); apitest.Status(err) != 404 {
		t.Fatalf("deleted ref still there: %v", err)
	}
	// Deletions are recorded as pushes too.
	events, _ := e.Store.R().EventsAfter(ctx, 0, 1000)
	deleted := false
	for _, ev := range events {
		if ev.Type == "push" && strings.Contains(string(ev.Payload), `"refs/heads/feature-a"`) && strings.Contains(string(ev.Payload), `"deleted":true`) {
			deleted = true
		}
	}
	if !deleted {
		t.Fatal("no push event for the deletion")
	}
}

func TestTags(t *testing.T) {
	e := apitest.New(t)
	_, tok := e.NewUser("mona", false)
	gh := e.GitHub(tok)
	base := seeded(t, e, "mona", tok, "tags", false)

	when := time.Date(2024, 1, 2, 3, 4, 5, 0, time.UTC)
	tag, resp, err := gh.Git.CreateTag(ctx, "mona", "tags", github.CreateTag{Tag: "v1.0.0", Message: "first release\n", Object: base, Type: "commit",
		Tagger: &github.CommitAuthor{Name: github.Ptr("Rel Eng"), Email: github.Ptr("rel@example.com"), Date: &github.Timestamp{Time: when}}})
	if err != nil || resp.StatusCode != http.StatusCreated {
		t.Fatalf("create tag: %v", err)
	}
	if tag.GetTag() != "v1.0.0" || tag.GetMessage() != "first release\n" || tag.GetObject().GetSHA() != base || tag.GetObject().GetType() != "commit" ||
		tag.GetTagger().GetName() != "Rel Eng" || !tag.GetTagger().GetDate().Time.Equal(when) || tag.GetVerification().GetReason() != "unsigned" ||
		tag.GetURL() != e.API+"/repos/mona/tags/git/tags/"+tag.GetSHA() {
		t.Fatalf("tag %+v", tag)
	}
	got, _, err := gh.Git.GetTag(ctx, "mona", "tags", tag.GetSHA())
	if err != nil || got.GetSHA() != tag.GetSHA() || got.GetMessage() != tag.GetMessage() || got.GetNodeID() != tag.GetNodeID() {
		t.Fatalf("get tag: %+v %v", got, err)
	}
	// The tag object alone makes no ref; create-ref does.
	if refs, _, _ := gh.Git.ListMatchingRefs(ctx, "mona", "tags", "tags/"); len(refs) != 0 {
		t.Fatalf("refs before create-ref: %v", refs)
	}
	ref, _, err := gh.Git.CreateRef(ctx, "mona", "tags", github.CreateRef{Ref: "refs/tags/v1.0.0", SHA: tag.GetSHA()})
	if err != nil || ref.GetObject().GetType() != "tag" || ref.GetObject().GetURL() != tag.GetURL() {
		t.Fatalf("tag ref: %+v %v", ref, err)
	}
	work := t.TempDir()
	out := mustGit(t, work, "ls-remote", remote(e, "", "", "mona", "tags"), "refs/tags/*")
	if !strings.Contains(out, tag.GetSHA()+"\trefs/tags/v1.0.0") || !strings.Contains(out, base+"\trefs/tags/v1.0.0^{}") {
		t.Fatalf("ls-remote: %s", out)
	}

	// Default tagger; a tag of a tree; a signed tag.
	p, _, _ := gh.Git.GetCommit(ctx, "mona", "tags", base)
	tt, _, err := gh.Git.CreateTag(ctx, "mona", "tags", github.CreateTag{Tag: "tree-tag", Message: "a tree", Object: p.GetTree().GetSHA(), Type: "tree"})
	if err != nil || tt.GetTagger().GetName() != "mona" || tt.GetObject().GetType() != "tree" {
		t.Fatalf("tree tag: %+v %v", tt, err)
	}
	const sig = "-----BEGIN PGP SIGNATURE-----\n\niQEzBAABexample\n-----END PGP SIGNATURE-----\n"
	st, _, err := gh.Git.CreateTag(ctx, "mona", "tags", github.CreateTag{Tag: "signed", Message: "signed tag\n" + sig, Object: base, Type: "commit"})
	if err != nil {
		t.Fatal(err)
	}
	if v := st.GetVerification(); st.GetMessage() != "signed tag\n" || v.GetReason() != "malformed_signature" || v.GetSignature() != sig ||
		!strings.HasPrefix(v.GetPayload(), "object "+base+"\ntype commit\ntag signed\ntagger mona ") || !strings.HasSuffix(v.GetPayload(), "\n\nsigned tag\n") {
		t.Fatalf("signed tag %+v %+v", st, v)
	}
}

// Concurrent updates of one ref: each is a fast-forward of the ref as its
// client saw it; exactly one wins, the others are refused, and the winner's
// commit is what the ref holds.
func TestConcurrentRefUpdates(t *testing.T) {
	e := apitest.New(t)
	_, tok := e.NewUser("mona", false)
	gh := e.GitHub(tok)
	base := seeded(t, e, "mona", tok, "race", false)
	const n = 8
	tips := make([]string, n)
	for i := range tips {
		tips[i] = child(t, gh, "mona", "race", base, fmt.Sprint("racer ", i))
	}
	var wg sync.WaitGroup
	codes := make([]int, n)
	start := make(chan struct{})
	for i := 0; i < n; i++ {
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			<-start
			_, resp, err := gh.Git.UpdateRef(ctx, "mona", "race", "heads/main", github.UpdateRef{SHA: tips[i]})
			if err != nil {
				codes[i] = apitest.Status(err)
				return
			}
			codes[i] = resp.StatusCode
		}(i)
	}
	close(start)
	wg.Wait()
	winner := -1
	for i, c := range codes {
		switch c {
		case 200:
			if winner >= 0 {
				t.Fatalf("two winners: %d and %d", winner, i)
			}
			winner = i
		case 422:
		default:
			t.Fatalf("racer %d: status %d", i, c)
		}
	}
	if winner < 0 {
		t.Fatal("nobody won")
	}
	ref, _, err := gh.Git.GetRef(ctx, "mona", "race", "heads/main")
	if err != nil || ref.GetObject().GetSHA() != tips[winner] {
		t.Fatalf("main is %s, winner was %s", ref.GetObject().GetSHA(), tips[winner])
	}
	// Forced updates all succeed, one after another; the ref ends on one of them.
	var fwg sync.WaitGroup
	for i := 0; i < n; i++ {
		fwg.Add(1)
		go func(i int) {
			defer fwg.Done()
			if _, _, err := gh.Git.UpdateRef(ctx, "mona", "race", "heads/main", github.UpdateRef{SHA: tips[i], Force: github.Ptr(true)}); err != nil {
				t.Errorf("forced racer %d: %v", i, err)
			}
		}(i)
	}
	fwg.Wait()
	ref, _, _ = gh.Git.GetRef(ctx, "mona", "race", "heads/main")
	ok := false
	for _, tip := range tips {
		ok = ok || ref.GetObject().GetSHA() == tip
	}
	if !ok {
		t.Fatalf("main ended on %s", ref.GetObject().GetSHA())
	}
}

// TestLegacyRefLists: GET git/refs lists every ref (paginated with Link),
// GET git/refs/{prefix} the refs under a prefix or, for a whole name, the
// ref itself, as GitHub answers older clients.
func TestLegacyRefLists(t *testing.T) {
	e := apitest.New(t)
	_, tok := e.NewUser("mona", false)
	gh := e.GitHub(tok)
	base := seeded(t, e, "mona", tok, "old", false)
	for _, name := range []string{"refs/heads/feature-a", "refs/heads/feature/deep", "refs/tags/v1"} {
		if _, _, err := gh.Git.CreateRef(ctx, "mona", "old", github.CreateRef{Ref: name, SHA: base}); err != nil {
			t.Fatal(err)
		}
	}
	refNames := func(r *apitest.Response) string {
		var list []struct {
			Ref    string `json:"ref"`
			Object struct {
				SHA  string `json:"sha"`
				Type string `json:"type"`
			} `json:"object"`
		}
		r.JSON(t, &list)
		var s []string
		for _, x := range list {
			if x.Object.SHA != base || x.Object.Type != "commit" {
				t.Errorf("%s points to %+v", x.Ref, x.Object)
			}
			s = append(s, x.Ref)
		}
		return strings.Join(s, " ")
	}
	R := "/repos/mona/old/git/refs"
	if got := refNames(e.Must(200, "GET", R, tok, nil)); got != "refs/heads/feature-a refs/heads/feature/deep refs/heads/main refs/tags/v1" {
		t.Fatalf("all refs: %s", got)
	}
	for _, tc := range []struct{ path, want string }{
		{"/heads", "refs/heads/feature-a refs/heads/feature/deep refs/heads/main"},
		{"/heads/", "refs/heads/feature-a refs/heads/feature/deep refs/heads/main"},
		{"/heads/feat", "refs/heads/feature-a refs/heads/feature/deep"},
		{"/tags", "refs/tags/v1"},
	} {
		if got := refNames(e.Must(200, "GET", R+tc.path, tok, nil)); got != tc.want {
			t.Errorf("%s: %s, want %s", tc.path, got, tc.want)
		}
	}
	// A whole name is the ref itself, as an object.
	var one struct {
		Ref string `json:"ref"`
		URL string `json:"url"`
	}
	e.Must(200, "GET", R+"/heads/feature/deep", tok, nil).JSON(t, &one)
	if one.Ref != "refs/heads/feature/deep" || !strings.HasSuffix(one.URL, "/repos/mona/old/git/refs/heads/feature/deep") {
		t.Fatalf("exact ref: %+v", one)
	}
	// Pages of two, with Link.
	r := e.Must(200, "GET", R+"?per_page=2&page=2", tok, nil)
	if got := refNames(r); got != "refs/heads/main refs/tags/v1" {
		t.Fatalf("page 2: %s", got)
	}
	if l := r.Header.Get("Link"); !strings.Contains(l, `rel="prev"`) || !strings.Contains(l, `rel="first"`) || strings.Contains(l, `rel="next"`) {
		t.Fatalf("Link on the last page: %s", l)
	}
	if l := e.Must(200, "GET", R+"?per_page=2", tok, nil).Header.Get("Link"); !strings.Contains(l, "page=2") || !strings.Contains(l, `rel="next"`) {
		t.Fatalf("Link on the first page: %s", l)
	}
	for _, tc := range []struct {
		name, path, token string
		status            int
	}{
		{"no match", R + "/heads/nope", tok, 404},
		{"no match outside heads", R + "/pulls", tok, 404},
		{"glob", R + "/heads/*", tok, 404},
		{"unknown repository", "/repos/mona/nope/git/refs", tok, 404},
	} {
		t.Run(tc.name, func(t *testing.T) { e.Must(tc.status, "GET", tc.path, tc.token, nil) })
	}
	// go-github's old spelling of the list reads the same thing.
	req, _ := gh.NewRequest(ctx, "GET", "repos/mona/old/git/refs/tags", nil)
	var refs []*github.Reference
	if _, err := gh.Do(req, &refs); err != nil || len(refs) != 1 || refs[0].GetRef() != "refs/tags/v1" {
		t.Fatalf("go-github: %v %v", refs, err)
	}
}
