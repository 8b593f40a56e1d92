package graphql_test

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-github/v92/github"
)

// enableDiscussions turns discussions on for owner/name over REST.
func enableDiscussions(t *testing.T, w *world, token, owner, name string) {
	t.Helper()
	if _, _, err := w.e.GitHub(token).Repositories.Edit(ctx, owner, name, &github.Repository{HasDiscussions: github.Ptr(true)}); err != nil {
		t.Fatal(err)
	}
}

// categoryIDs is the repository's categories' ids by slug.
func categoryIDs(t *testing.T, w *world, token, owner, name string) map[string]string {
	t.Helper()
	d := mustData(t, post(t, w.e, token, `query($o: String!, $n: String!) { repository(owner: $o, name: $n) {
		discussionCategories(first: 30) { nodes { id slug } } } }`, map[string]any{"o": owner, "n": name}))
	out := map[string]string{}
	for _, n := range dig(d, "repository", "discussionCategories", "nodes").([]any) {
		out[dig(n, "slug").(string)] = dig(n, "id").(string)
	}
	return out
}

func gqlErr(t *testing.T, r *gqlResult, typ, contains string) {
	t.Helper()
	if len(r.Errors) == 0 || r.Errors[0].Type != typ || !strings.Contains(r.Errors[0].Message, contains) {
		t.Fatalf("want %s error with %q: %s", typ, contains, r.Raw)
	}
}

const discFields = `id number title body url closed stateReason locked activeLockReason isAnswered upvoteCount viewerHasUpvoted
	viewerCanUpdate viewerCanClose viewerDidAuthor authorAssociation author { login }
	category { id name slug emoji emojiHTML isAnswerable } labels(first: 10) { nodes { name } }
	answer { id body } answerChosenBy { login } reactionGroups { content users { totalCount } }`

// TestDiscussions: categories (GitHub's defaults), creating, listing with
// filters and order, reading one with threaded comments, answering a
// Q&A, upvotes, labels, locking, closing with a reason and reopening,
// editing, deleting; permissions (announcements for maintainers, others'
// discussions closed by triagers, private repositories hidden) and the
// has_discussions setting.
func TestDiscussions(t *testing.T) {
	w := newWorld(t)
	// Off: the repository says so and lists nothing.
	d := mustData(t, post(t, w.e, w.monaTok, `{ repository(owner: "mona", name: "app") { hasDiscussionsEnabled
		discussionCategories(first: 10) { totalCount } discussions(first: 5) { totalCount } } }`, nil))
	if dig(d, "repository", "hasDiscussionsEnabled") != false || dig(d, "repository", "discussions", "totalCount").(json.Number).String() != "0" ||
		dig(d, "repository", "discussionCategories", "totalCount").(json.Number).String() != "0" {
		t.Fatalf("disabled: %v", d)
	}
	enableDiscussions(t, w, w.monaTok, "mona", "app")
	cats := categoryIDs(t, w, w.monaTok, "mona", "app")
	if len(cats) != 6 || cats["q-a"] == "" || cats["announcements"] == "" || cats["general"] == "" {
		t.Fatalf("categories: %v", cats)
	}
	repoID := dig(mustData(t, post(t, w.e, w.monaTok, `{ repository(owner: "mona", name: "app") { id } }`, nil)), "repository", "id")

	create := `mutation($in: CreateDiscussionInput!) { createDiscussion(input: $in) { discussion { ` + discFields + ` } } }`
	r := post(t, w.e, w.strTok, create, map[string]any{"in": map[string]any{"repositoryId": repoID, "categoryId": cats["q-a"], "title": "How?", "body": "Tell me"}})
	q1 := dig(mustData(t, r), "createDiscussion", "discussion")
	if dig(q1, "number").(json.Number).String() != "1" || dig(q1, "category", "isAnswerable") != true || dig(q1, "author", "login") != "stranger" ||
		dig(q1, "url") != w.e.URL+"/mona/app/discussions/1" || dig(q1, "viewerDidAuthor") != true || dig(q1, "authorAssociation") != "NONE" ||
		dig(q1, "category", "emoji") != ":pray:" {
		t.Fatalf("created: %v", q1)
	}
	qid := dig(q1, "id").(string)
	// A stranger may not announce; the owner may.
	r = post(t, w.e, w.strTok, create, map[string]any{"in": map[string]any{"repositoryId": repoID, "categoryId": cats["announcements"], "title": "News", "body": ""}})
	gqlErr(t, r, "FORBIDDEN", "does not have the correct permissions")
	r = post(t, w.e, w.monaTok, create, map[string]any{"in": map[string]any{"repositoryId": repoID, "categoryId": cats["announcements"], "title": "News", "body": "v1"}})
	ann := dig(mustData(t, r), "createDiscussion", "discussion")
	if dig(ann, "number").(json.Number).String() != "2" || dig(ann, "authorAssociation") != "OWNER" {
		t.Fatalf("announcement: %v", ann)
	}
	// Bad input.
	r = post(t, w.e, w.monaTok, create, map[string]any{"in": map[string]any{"repositoryId": repoID, "categoryId": cats["general"], "title": " ", "body": ""}})
	gqlErr(t, r, "UNPROCESSABLE", "title")
	r = post(t, w.e, w.monaTok, create, map[string]any{"in": map[string]any{"repositoryId": repoID, "categoryId": "DIC_nope", "title": "x", "body": ""}})
	gqlErr(t, r, "NOT_FOUND", "DIC_nope")

	// Comments and a reply; the reply to a reply joins the thread.
	add := `mutation($in: AddDiscussionCommentInput!) { addDiscussionComment(input: $in) { comment { id body isAnswer url replyTo { id } } } }`
	c1 := dig(mustData(t, post(t, w.e, w.monaTok, add, map[string]any{"in": map[string]any{"discussionId": qid, "body": "Like this"}})), "addDiscussionComment", "comment")
	c1id := dig(c1, "id").(string)
	if !strings.HasPrefix(dig(c1, "url").(string), w.e.URL+"/mona/app/discussions/1#discussioncomment-") {
		t.Fatalf("comment: %v", c1)
	}
	rep := dig(mustData(t, post(t, w.e, w.strTok, add, map[string]any{"in": map[string]any{"discussionId": qid, "body": "Thanks", "replyToId": c1id}})), "addDiscussionComment", "comment")
	rep2 := dig(mustData(t, post(t, w.e, w.monaTok, add, map[string]any{"in": map[string]any{"discussionId": qid, "body": "Welcome", "replyToId": dig(rep, "id")}})), "addDiscussionComment", "comment")
	if dig(rep2, "replyTo", "id") != c1id {
		t.Fatalf("reply to a reply: %v", rep2)
	}
	mustData(t, post(t, w.e, w.olgaTok, add, map[string]any{"in": map[string]any{"discussionId": qid, "body": "Another way"}}))
	// bodyHTML renders Markdown and links what the reader may see.
	md := dig(mustData(t, post(t, w.e, w.monaTok, add, map[string]any{"in": map[string]any{"discussionId": dig(ann, "id"), "body": "**bold** @olga #1"}})), "addDiscussionComment", "comment", "id")
	d = mustData(t, post(t, w.e, w.monaTok, `query($id: ID!, $c: ID!) { d: node(id: $id) { ... on Discussion { bodyHTML bodyText } }
		c: node(id: $c) { ... on DiscussionComment { bodyHTML bodyText } } }`, map[string]any{"id": dig(ann, "id"), "c": md}))
	if strings.TrimSpace(dig(d, "d", "bodyHTML").(string)) != "<p>v1</p>" || dig(d, "d", "bodyText") != "v1" ||
		!strings.Contains(dig(d, "c", "bodyHTML").(string), "<strong>bold</strong>") || !strings.Contains(dig(d, "c", "bodyHTML").(string), `href="`+w.e.URL+`/olga"`) ||
		dig(d, "c", "bodyText") != "bold @olga #1" {
		t.Errorf("bodyHTML: %v", d)
	}

	// Answer: the author marks; a reply may not be the answer.
	mark := `mutation($id: ID!) { markDiscussionCommentAsAnswer(input: {id: $id}) { discussion { isAnswered answer { id } answerChosenBy { login } } } }`
	gqlErr(t, post(t, w.e, w.strTok, mark, map[string]any{"id": dig(rep, "id")}), "UNPROCESSABLE", "top-level")
	gqlErr(t, post(t, w.e, w.olgaTok, mark, map[string]any{"id": c1id}), "FORBIDDEN", "")
	d = mustData(t, post(t, w.e, w.strTok, mark, map[string]any{"id": c1id}))
	if dig(d, "markDiscussionCommentAsAnswer", "discussion", "isAnswered") != true || dig(d, "markDiscussionCommentAsAnswer", "discussion", "answer", "id") != c1id ||
		dig(d, "markDiscussionCommentAsAnswer", "discussion", "answerChosenBy", "login") != "stranger" {
		t.Fatalf("mark: %v", d)
	}
	// Not in an announcement.
	ac := dig(mustData(t, post(t, w.e, w.monaTok, add, map[string]any{"in": map[string]any{"discussionId": dig(ann, "id"), "body": "x"}})), "addDiscussionComment", "comment")
	gqlErr(t, post(t, w.e, w.monaTok, mark, map[string]any{"id": dig(ac, "id")}), "UNPROCESSABLE", "answerable")

	// Upvotes of the discussion and of a comment.
	up := `mutation($id: ID!) { addUpvote(input: {subjectId: $id}) { subject { upvoteCount viewerHasUpvoted } } }`
	for _, tok := range []string{w.monaTok, w.olgaTok, w.olgaTok} {
		mustData(t, post(t, w.e, tok, up, map[string]any{"id": qid}))
	}
	d = mustData(t, post(t, w.e, w.monaTok, up, map[string]any{"id": c1id}))
	if dig(d, "addUpvote", "subject", "upvoteCount").(json.Number).String() != "1" || dig(d, "addUpvote", "subject", "viewerHasUpvoted") != true {
		t.Fatalf("comment upvote: %v", d)
	}
	d = mustData(t, post(t, w.e, w.olgaTok, `mutation($id: ID!) { removeUpvote(input: {subjectId: $id}) { subject { upvoteCount viewerHasUpvoted } } }`, map[string]any{"id": qid}))
	if dig(d, "removeUpvote", "subject", "upvoteCount").(json.Number).String() != "1" || dig(d, "removeUpvote", "subject", "viewerHasUpvoted") != false {
		t.Fatalf("remove upvote: %v", d)
	}

	// Labels (triagers), lock (triagers), close with a reason and reopen.
	lab := dig(mustData(t, post(t, w.e, w.monaTok, `{ repository(owner: "mona", name: "app") { labels(first: 1) { nodes { id name } } } }`, nil)),
		"repository", "labels", "nodes").([]any)[0]
	addLabels := `mutation($in: AddLabelsToLabelableInput!) { addLabelsToLabelable(input: $in) { labelable { labels(first: 5) { nodes { name } } ... on Discussion { number } } } }`
	gqlErr(t, post(t, w.e, w.strTok, addLabels, map[string]any{"in": map[string]any{"labelableId": qid, "labelIds": []any{dig(lab, "id")}}}), "FORBIDDEN", "")
	d = mustData(t, post(t, w.e, w.monaTok, addLabels, map[string]any{"in": map[string]any{"labelableId": qid, "labelIds": []any{dig(lab, "id")}}}))
	if nodes := dig(d, "addLabelsToLabelable", "labelable", "labels", "nodes").([]any); len(nodes) != 1 || dig(nodes[0], "name") != dig(lab, "name") {
		t.Fatalf("labels: %v", d)
	}
	d = mustData(t, post(t, w.e, w.monaTok, `mutation($id: ID!) { lockLockable(input: {lockableId: $id, lockReason: TOO_HEATED}) { lockedRecord { locked activeLockReason ... on Discussion { number } } } }`,
		map[string]any{"id": qid}))
	if dig(d, "lockLockable", "lockedRecord", "locked") != true || dig(d, "lockLockable", "lockedRecord", "activeLockReason") != "TOO_HEATED" {
		t.Fatalf("lock: %v", d)
	}
	gqlErr(t, post(t, w.e, w.strTok, add, map[string]any{"in": map[string]any{"discussionId": qid, "body": "hey"}}), "FORBIDDEN", "locked")
	closeQ := `mutation($id: ID!, $r: DiscussionCloseReason) { closeDiscussion(input: {discussionId: $id, reason: $r}) { discussion { closed stateReason } } }`
	gqlErr(t, post(t, w.e, w.olgaTok, closeQ, map[string]any{"id": qid, "r": "OUTDATED"}), "FORBIDDEN", "")
	d = mustData(t, post(t, w.e, w.strTok, closeQ, map[string]any{"id": qid, "r": "OUTDATED"}))
	if dig(d, "closeDiscussion", "discussion", "closed") != true || dig(d, "closeDiscussion", "discussion", "stateReason") != "OUTDATED" {
		t.Fatalf("close: %v", d)
	}
	gqlErr(t, post(t, w.e, w.strTok, closeQ, map[string]any{"id": qid}), "UNPROCESSABLE", "already closed")

	// Lists: states, answered, category, order.
	list := `query($s: [DiscussionState!], $a: Boolean, $c: ID, $o: DiscussionOrder) { repository(owner: "mona", name: "app") {
		discussions(first: 10, states: $s, answered: $a, categoryId: $c, orderBy: $o) { totalCount nodes { number } } } }`
	numbers := func(vars map[string]any) string {
		d := mustData(t, post(t, w.e, w.strTok, list, vars))
		var out []string
		for _, n := range dig(d, "repository", "discussions", "nodes").([]any) {
			out = append(out, dig(n, "number").(json.Number).String())
		}
		return strings.Join(out, ",")
	}
	for _, c := range []struct {
		vars map[string]any
		want string
	}{
		{map[string]any{"o": map[string]any{"field": "CREATED_AT", "direction": "ASC"}}, "1,2"},
		{map[string]any{"o": map[string]any{"field": "CREATED_AT", "direction": "DESC"}}, "2,1"},
		{map[string]any{"s": []any{"OPEN"}}, "2"},
		{map[string]any{"s": []any{"CLOSED"}}, "1"},
		{map[string]any{"a": true}, "1"},
		{map[string]any{"a": false}, "2"},
		{map[string]any{"c": cats["announcements"]}, "2"},
	} {
		if got := numbers(c.vars); got != c.want {
			t.Errorf("%v: %s, want %s", c.vars, got, c.want)
		}
	}

	// One discussion with its threads.
	d = mustData(t, post(t, w.e, w.strTok, `{ repository(owner: "mona", name: "app") { discussion(number: 1) { `+discFields+`
		comments(first: 10) { totalCount nodes { body isAnswer upvoteCount viewerCanMarkAsAnswer viewerCanUnmarkAsAnswer author { login }
		replies(last: 4) { totalCount nodes { body replyTo { body } } } } } } } }`, nil))
	disc := dig(d, "repository", "discussion")
	comments := dig(disc, "comments", "nodes").([]any)
	if dig(disc, "comments", "totalCount").(json.Number).String() != "2" || len(comments) != 2 || dig(comments[0], "isAnswer") != true ||
		dig(comments[0], "replies", "totalCount").(json.Number).String() != "2" || dig(comments[0], "viewerCanUnmarkAsAnswer") != true ||
		dig(comments[1], "viewerCanMarkAsAnswer") != true || dig(disc, "upvoteCount").(json.Number).String() != "1" || dig(disc, "locked") != true {
		t.Fatalf("discussion: %v", disc)
	}
	if replies := dig(comments[0], "replies", "nodes").([]any); dig(replies[1], "body") != "Welcome" || dig(replies[1], "replyTo", "body") != "Like this" {
		t.Fatalf("replies: %v", replies)
	}
	gqlErr(t, post(t, w.e, w.strTok, `{ repository(owner: "mona", name: "app") { discussion(number: 9) { id } } }`, nil), "NOT_FOUND", "Could not resolve to a Discussion with the number of 9.")

	// node(id:) for each kind.
	d = mustData(t, post(t, w.e, w.strTok, `query($ids: [ID!]!) { nodes(ids: $ids) { __typename ... on Discussion { number } ... on DiscussionComment { body }
		... on DiscussionCategory { slug } } }`, map[string]any{"ids": []any{qid, c1id, cats["polls"]}}))
	nodes := dig(d, "nodes").([]any)
	if dig(nodes[0], "number").(json.Number).String() != "1" || dig(nodes[1], "body") != "Like this" || dig(nodes[2], "slug") != "polls" {
		t.Fatalf("nodes: %v", nodes)
	}

	// Reopen, update (author), delete a comment (its replies go), delete
	// the discussion (triagers).
	d = mustData(t, post(t, w.e, w.strTok, `mutation($id: ID!) { reopenDiscussion(input: {discussionId: $id}) { discussion { closed stateReason } } }`, map[string]any{"id": qid}))
	if dig(d, "reopenDiscussion", "discussion", "closed") != false || dig(d, "reopenDiscussion", "discussion", "stateReason") != "REOPENED" {
		t.Fatalf("reopen: %v", d)
	}
	// Locked: only collaborators edit; unlocking lets the author again.
	d = mustData(t, post(t, w.e, w.monaTok, `mutation($id: ID!) { unlockLockable(input: {lockableId: $id}) { unlockedRecord { locked } } }`, map[string]any{"id": qid}))
	if dig(d, "unlockLockable", "unlockedRecord", "locked") != false {
		t.Fatalf("unlock: %v", d)
	}
	upd := `mutation($in: UpdateDiscussionInput!) { updateDiscussion(input: $in) { discussion { title body category { slug } lastEditedAt editor { login } } } }`
	gqlErr(t, post(t, w.e, w.olgaTok, upd, map[string]any{"in": map[string]any{"discussionId": qid, "title": "Mine"}}), "FORBIDDEN", "")
	d = mustData(t, post(t, w.e, w.strTok, upd, map[string]any{"in": map[string]any{"discussionId": qid, "title": "How, really?", "categoryId": cats["general"]}}))
	if dig(d, "updateDiscussion", "discussion", "title") != "How, really?" || dig(d, "updateDiscussion", "discussion", "category", "slug") != "general" ||
		dig(d, "updateDiscussion", "discussion", "editor", "login") != "stranger" {
		t.Fatalf("update: %v", d)
	}
	// Leaving Q&A drops the answer.
	d = mustData(t, post(t, w.e, w.strTok, `{ repository(owner: "mona", name: "app") { discussion(number: 1) { isAnswered } } }`, nil))
	if dig(d, "repository", "discussion", "isAnswered") != false {
		t.Fatalf("answer kept outside Q&A: %v", d)
	}
	d = mustData(t, post(t, w.e, w.monaTok, `mutation($in: UpdateDiscussionCommentInput!) { updateDiscussionComment(input: $in) { comment { body lastEditedAt } } }`,
		map[string]any{"in": map[string]any{"commentId": dig(rep, "id"), "body": "Thanks!"}}))
	if dig(d, "updateDiscussionComment", "comment", "body") != "Thanks!" {
		t.Fatalf("update comment: %v", d)
	}
	mustData(t, post(t, w.e, w.monaTok, `mutation($id: ID!) { deleteDiscussionComment(input: {id: $id}) { comment { id } } }`, map[string]any{"id": c1id}))
	d = mustData(t, post(t, w.e, w.strTok, `{ repository(owner: "mona", name: "app") { discussion(number: 1) { comments(first: 5) { totalCount nodes { body } } } } }`, nil))
	if dig(d, "repository", "discussion", "comments", "totalCount").(json.Number).String() != "1" {
		t.Fatalf("after deleting a thread: %v", d)
	}
	del := `mutation($id: ID!) { deleteDiscussion(input: {id: $id}) { discussion { number } } }`
	gqlErr(t, post(t, w.e, w.strTok, del, map[string]any{"id": dig(ann, "id")}), "FORBIDDEN", "")
	mustData(t, post(t, w.e, w.monaTok, del, map[string]any{"id": dig(ann, "id")}))
	gqlErr(t, post(t, w.e, w.monaTok, `query($id: ID!) { node(id: $id) { id } }`, map[string]any{"id": dig(ann, "id")}), "NOT_FOUND", "")

	// Events were appended for each write.
	evs, err := w.e.Store.R().EventsAfter(ctx, 0, 100000)
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, e := range evs {
		if strings.HasPrefix(e.Type, "discussion") {
			n++
		}
	}
	if n < 12 {
		t.Errorf("%d discussion events", n)
	}
}

// TestDiscussionsPrivate: a private repository's discussions are hidden
// from those who may not read it, and the discussion ids do not resolve.
func TestDiscussionsPrivate(t *testing.T) {
	w := newWorld(t)
	enableDiscussions(t, w, w.monaTok, "mona", "secret")
	cats := categoryIDs(t, w, w.monaTok, "mona", "secret")
	repoID := dig(mustData(t, post(t, w.e, w.monaTok, `{ repository(owner: "mona", name: "secret") { id } }`, nil)), "repository", "id")
	d := mustData(t, post(t, w.e, w.monaTok, `mutation($in: CreateDiscussionInput!) { createDiscussion(input: $in) { discussion { id } } }`,
		map[string]any{"in": map[string]any{"repositoryId": repoID, "categoryId": cats["general"], "title": "Secret", "body": ""}}))
	id := dig(d, "createDiscussion", "discussion", "id")
	gqlErr(t, post(t, w.e, w.strTok, `query($id: ID!) { node(id: $id) { id } }`, map[string]any{"id": id}), "NOT_FOUND", "")
	gqlErr(t, post(t, w.e, w.strTok, `mutation($id: ID!) { addDiscussionComment(input: {discussionId: $id, body: "x"}) { comment { id } } }`, map[string]any{"id": id}), "NOT_FOUND", "")
	// A fine-grained token labels and locks a discussion with the
	// discussions permission, not the issues one.
	label := dig(mustData(t, post(t, w.e, w.monaTok, `{ repository(owner: "mona", name: "secret") { labels(first: 1) { nodes { id } } } }`, nil)),
		"repository", "labels", "nodes").([]any)[0].(map[string]any)["id"]
	fg := func(perm string) string {
		var tok struct{ Token string }
		w.e.Must(201, "POST", "/admin/users/mona/personal-access-tokens", w.monaTok, map[string]any{"name": perm,
			"repositories": []string{"secret"}, "permissions": map[string]string{perm: "write"}}).JSON(t, &tok)
		return tok.Token
	}
	addLabel := `mutation($id: ID!, $l: ID!) { addLabelsToLabelable(input: {labelableId: $id, labelIds: [$l]}) { labelable { ... on Discussion { labels(first: 5) { totalCount } } } } }`
	lock := `mutation($id: ID!) { lockLockable(input: {lockableId: $id}) { lockedRecord { locked } } }`
	issuesTok, discTok := fg("issues"), fg("discussions")
	gqlErr(t, post(t, w.e, issuesTok, addLabel, map[string]any{"id": id, "l": label}), "FORBIDDEN", "personal access token")
	gqlErr(t, post(t, w.e, issuesTok, lock, map[string]any{"id": id}), "FORBIDDEN", "personal access token")
	if d := mustData(t, post(t, w.e, discTok, addLabel, map[string]any{"id": id, "l": label})); dig(d, "addLabelsToLabelable", "labelable", "labels", "totalCount").(json.Number).String() != "1" {
		t.Fatalf("labeled with discussions:write: %v", d)
	}
	if d := mustData(t, post(t, w.e, discTok, lock, map[string]any{"id": id})); dig(d, "lockLockable", "lockedRecord", "locked") != true {
		t.Fatalf("locked with discussions:write: %v", d)
	}
	// And an issue is not labeled with the discussions permission.
	var is struct {
		NodeID string `json:"node_id"`
	}
	w.e.Must(201, "POST", "/repos/mona/secret/issues", w.monaTok, map[string]any{"title": "bug"}).JSON(t, &is)
	gqlErr(t, post(t, w.e, discTok, addLabel, map[string]any{"id": is.NodeID, "l": label}), "FORBIDDEN", "personal access token")
	// Turning discussions off hides them.
	if _, _, err := w.e.GitHub(w.monaTok).Repositories.Edit(ctx, "mona", "secret", &github.Repository{HasDiscussions: github.Ptr(false)}); err != nil {
		t.Fatal(err)
	}
	gqlErr(t, post(t, w.e, w.monaTok, `{ repository(owner: "mona", name: "secret") { discussion(number: 1) { id } } }`, nil), "NOT_FOUND", "")
}

// TestDiscussionSearch: search(type: DISCUSSION) with gh's qualifiers.
func TestDiscussionSearch(t *testing.T) {
	w := newWorld(t)
	enableDiscussions(t, w, w.monaTok, "mona", "app")
	cats := categoryIDs(t, w, w.monaTok, "mona", "app")
	repoID := dig(mustData(t, post(t, w.e, w.monaTok, `{ repository(owner: "mona", name: "app") { id } }`, nil)), "repository", "id")
	for i, c := range []struct{ tok, cat, title string }{{w.monaTok, "general", "Rockets"}, {w.strTok, "q-a", "Boats"}, {w.monaTok, "ideas", "More rockets"}} {
		mustData(t, post(t, w.e, c.tok, `mutation($in: CreateDiscussionInput!) { createDiscussion(input: $in) { discussion { id } } }`,
			map[string]any{"in": map[string]any{"repositoryId": repoID, "categoryId": cats[c.cat], "title": c.title, "body": fmt.Sprint("n", i)}}))
	}
	enableDiscussions(t, w, w.monaTok, "mona", "secret")
	secretID := dig(mustData(t, post(t, w.e, w.monaTok, `{ repository(owner: "mona", name: "secret") { id } }`, nil)), "repository", "id")
	mustData(t, post(t, w.e, w.monaTok, `mutation($in: CreateDiscussionInput!) { createDiscussion(input: $in) { discussion { id } } }`,
		map[string]any{"in": map[string]any{"repositoryId": secretID, "categoryId": categoryIDs(t, w, w.monaTok, "mona", "secret")["general"], "title": "Secret rockets", "body": ""}}))
	q := `query($q: String!) { search(query: $q, type: DISCUSSION, first: 10) { discussionCount nodes { ... on Discussion { number repository { name } } } } }`
	// The owner finds the private one too, and pages through them.
	d := mustData(t, post(t, w.e, w.monaTok, q, map[string]any{"q": "rockets sort:created-asc"}))
	var got []string
	for _, n := range dig(d, "search", "nodes").([]any) {
		got = append(got, dig(n, "repository", "name").(string)+"#"+dig(n, "number").(json.Number).String())
	}
	if strings.Join(got, ",") != "app#1,app#3,secret#1" {
		t.Errorf("the owner's search without repo: %v", got)
	}
	page := `query($after: String) { search(query: "rockets sort:created-asc", type: DISCUSSION, first: 1, after: $after) {
		discussionCount pageInfo { endCursor } nodes { ... on Discussion { title } } } }`
	d = mustData(t, post(t, w.e, w.monaTok, page, nil))
	d = mustData(t, post(t, w.e, w.monaTok, page, map[string]any{"after": dig(d, "search", "pageInfo", "endCursor")}))
	if dig(d, "search", "discussionCount").(json.Number).String() != "3" || dig(d, "search", "nodes").([]any)[0].(map[string]any)["title"] != "More rockets" {
		t.Errorf("second page: %v", d)
	}
	for query, want := range map[string]string{
		"repo:mona/app sort:created-asc":                        "1,2,3",
		"repo:mona/app rockets sort:created-asc":                "1,3",
		`repo:mona/app author:"stranger"`:                       "2",
		`repo:mona/app category:"Q&A"`:                          "2",
		"repo:mona/app is:unanswered is:open sort:created-desc": "3,2,1",
		"repo:mona/secret":                                      "",
		// Without repo: every repository the viewer may read.
		"rockets sort:created-asc":            "1,3",
		"user:mona is:open sort:created-desc": "3,2,1",
		"user:olga rockets":                   "",
		"label:bug rockets":                   "",
	} {
		d := mustData(t, post(t, w.e, w.strTok, q, map[string]any{"q": query}))
		var got []string
		for _, n := range dig(d, "search", "nodes").([]any) {
			got = append(got, dig(n, "number").(json.Number).String())
		}
		if strings.Join(got, ",") != want || dig(d, "search", "discussionCount").(json.Number).String() != fmt.Sprint(len(got)) {
			t.Errorf("%s: %v", query, d)
		}
	}
}

// TestDiscussionListQueries: a page of discussions with their categories,
// labels, authors, reactions, comments and replies costs the same queries
// whatever its size.
func TestDiscussionListQueries(t *testing.T) {
	w := newWorld(t)
	enableDiscussions(t, w, w.monaTok, "mona", "app")
	cats := categoryIDs(t, w, w.monaTok, "mona", "app")
	repoID := dig(mustData(t, post(t, w.e, w.monaTok, `{ repository(owner: "mona", name: "app") { id } }`, nil)), "repository", "id")
	for i := range 12 {
		d := mustData(t, post(t, w.e, w.monaTok, `mutation($in: CreateDiscussionInput!) { createDiscussion(input: $in) { discussion { id } } }`,
			map[string]any{"in": map[string]any{"repositoryId": repoID, "categoryId": cats["general"], "title": fmt.Sprint("t", i), "body": ""}}))
		id := dig(d, "createDiscussion", "discussion", "id")
		for j := range 2 {
			c := mustData(t, post(t, w.e, w.monaTok, `mutation($id: ID!, $b: String!) { addDiscussionComment(input: {discussionId: $id, body: $b}) { comment { id } } }`,
				map[string]any{"id": id, "b": fmt.Sprint("c", j)}))
			mustData(t, post(t, w.e, w.olgaTok, `mutation($id: ID!, $r: ID!) { addDiscussionComment(input: {discussionId: $id, body: "r", replyToId: $r}) { comment { id } } }`,
				map[string]any{"id": id, "r": dig(c, "addDiscussionComment", "comment", "id")}))
		}
	}
	q := `query($n: Int!) { repository(owner: "mona", name: "app") { hasDiscussionsEnabled discussions(first: $n) { totalCount
		nodes { ` + discFields + ` comments(first: 5) { totalCount nodes { body author { login } authorAssociation isAnswer upvoteCount
		viewerHasUpvoted reactionGroups { content } replies(first: 3) { totalCount nodes { body author { login } } } } } } } } }`
	cost := func(n int) int64 {
		return w.e.LeastReads(func() { mustData(t, post(t, w.e, w.monaTok, q, map[string]any{"n": n})) })
	}
	one, many := cost(2), cost(12)
	t.Logf("a page of 2 discussions with their comments and replies: %d queries; of 12: %d", one, many)
	if one != many {
		t.Errorf("a page of 2 discussions costs %d queries, a page of 12 costs %d", one, many)
	}
}
