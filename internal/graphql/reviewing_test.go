package graphql_test

import (
	"encoding/json"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-github/v92/github"

	"github.com/hubd/hubd/internal/authz"
	"github.com/hubd/hubd/internal/store"
)

func errType(r *gqlResult) string {
	if len(r.Errors) != 1 {
		return ""
	}
	return r.Errors[0].Type
}

// TestReviewing: gh pr status's fields (baseRef with its protection,
// reviewDecision, latestReviews) and the review, review request and draft
// mutations, which run the review and pulls services REST runs.
func TestReviewing(t *testing.T) {
	w := newWorld(t)
	repo, err := w.e.Store.R().RepoByName(ctx, "mona", "app", 0)
	if err != nil {
		t.Fatal(err)
	}
	// olga writes to mona/app; mel only reads it (it is public).
	if err := w.e.Store.Tx(ctx, func(tx store.Q) error { return tx.SetCollaborator(ctx, repo.Repo.ID, w.olga.ID, authz.Write) }); err != nil {
		t.Fatal(err)
	}
	pr := openPull(t, w, "topic", "A topic")
	prID := pr.GetNodeID()
	status := `query($n: Int!) { repository(owner: "mona", name: "app") { pullRequest(number: $n) {
		reviewDecision isDraft
		baseRef { name branchProtectionRule { pattern requiresApprovingReviews requiredApprovingReviewCount requiresStrictStatusChecks requiredStatusCheckContexts } }
		headRef { name repository { nameWithOwner } }
		latestReviews(first: 10) { totalCount nodes { author { login } state body } }
	} } }`
	look := func() map[string]any {
		t.Helper()
		return dig(mustData(t, post(t, w.e, w.monaTok, status, map[string]any{"n": pr.GetNumber()})), "repository", "pullRequest").(map[string]any)
	}
	p := look()
	if p["reviewDecision"] != nil || dig(p, "baseRef", "name") != "main" || dig(p, "baseRef", "branchProtectionRule") != nil ||
		dig(p, "headRef", "name") != "topic" || dig(p, "headRef", "repository", "nameWithOwner") != "mona/app" {
		t.Fatalf("before any review: %v", p)
	}
	// main requires one approving review.
	w.e.Must(200, "PUT", "/repos/mona/app/branches/main/protection", w.monaTok, map[string]any{
		"required_status_checks": map[string]any{"strict": true, "contexts": []string{"ci"}}, "enforce_admins": false,
		"required_pull_request_reviews": map[string]any{"required_approving_review_count": 1}, "restrictions": nil})
	p = look()
	if p["reviewDecision"] != "REVIEW_REQUIRED" || dig(p, "baseRef", "branchProtectionRule", "pattern") != "main" ||
		dig(p, "baseRef", "branchProtectionRule", "requiredApprovingReviewCount") != jsonNum(1) ||
		dig(p, "baseRef", "branchProtectionRule", "requiresStrictStatusChecks") != true ||
		dig(p, "baseRef", "branchProtectionRule", "requiredStatusCheckContexts").([]any)[0] != "ci" {
		t.Fatalf("protected base: %v", p)
	}

	// Review requests: union false sets the list, union true adds to it.
	olga, mel := nodeID(t, w, "/users/olga"), nodeID(t, w, "/users/mel")
	request := `mutation($in: RequestReviewsInput!) { requestReviews(input: $in) { clientMutationId actor { login }
		pullRequest { reviewRequests(first: 5) { nodes { requestedReviewer { ... on User { login } } } } } } }`
	requested := func(r *gqlResult) string {
		t.Helper()
		var logins []string
		for _, n := range dig(mustData(t, r), "requestReviews", "pullRequest", "reviewRequests", "nodes").([]any) {
			logins = append(logins, dig(n, "requestedReviewer", "login").(string))
		}
		return strings.Join(logins, ",")
	}
	if got := requested(post(t, w.e, w.monaTok, request, map[string]any{"in": map[string]any{"pullRequestId": prID, "userIds": []string{olga}}})); got != "olga" {
		t.Fatalf("requested: %q", got)
	}
	if got := requested(post(t, w.e, w.monaTok, request, map[string]any{"in": map[string]any{"pullRequestId": prID, "userIds": []string{}}})); got != "" {
		t.Fatalf("after setting none: %q", got)
	}
	r := post(t, w.e, w.monaTok, request, map[string]any{"in": map[string]any{"pullRequestId": prID, "userIds": []string{olga}, "union": true, "clientMutationId": "rq"}})
	if got := requested(r); got != "olga" || dig(r.Data, "requestReviews", "clientMutationId") != "rq" || dig(r.Data, "requestReviews", "actor", "login") != "mona" {
		t.Fatalf("union: %s", r.Raw)
	}
	// mel reads but is no collaborator: GitHub's 422 wording.
	r = post(t, w.e, w.monaTok, request, map[string]any{"in": map[string]any{"pullRequestId": prID, "userIds": []string{mel}, "union": true}})
	if errType(r) != "UNPROCESSABLE" || !strings.Contains(r.Errors[0].Message, "Reviews may only be requested from collaborators") {
		t.Fatalf("requesting a non-collaborator: %s", r.Raw)
	}
	reqs, _, err := w.e.GitHub(w.monaTok).PullRequests.ListReviewers(ctx, "mona", "app", pr.GetNumber())
	if err != nil || len(reqs.Users) != 1 || reqs.Users[0].GetLogin() != "olga" {
		t.Fatalf("REST requested reviewers: %+v %v", reqs, err)
	}

	review := `mutation($in: AddPullRequestReviewInput!) { addPullRequestReview(input: $in) { clientMutationId pullRequestReview { state body author { login } } } }`
	// Any reader may review; mel's approval does not count (no write access).
	r = post(t, w.e, w.melTok, review, map[string]any{"in": map[string]any{"pullRequestId": prID, "event": "APPROVE", "body": "fine by me", "clientMutationId": "m"}})
	if dig(mustData(t, r), "addPullRequestReview", "pullRequestReview", "state") != "APPROVED" || dig(r.Data, "addPullRequestReview", "clientMutationId") != "m" {
		t.Fatalf("mel's review: %s", r.Raw)
	}
	if p := look(); p["reviewDecision"] != "REVIEW_REQUIRED" {
		t.Fatalf("after a reader's approval: %v", p["reviewDecision"])
	}
	post(t, w.e, w.olgaTok, review, map[string]any{"in": map[string]any{"pullRequestId": prID, "event": "REQUEST_CHANGES", "body": "not yet"}})
	p = look()
	if p["reviewDecision"] != "CHANGES_REQUESTED" || dig(p, "latestReviews", "totalCount") != jsonNum(2) {
		t.Fatalf("after olga's change request: %v", p)
	}
	post(t, w.e, w.olgaTok, review, map[string]any{"in": map[string]any{"pullRequestId": prID, "event": "APPROVE"}})
	p = look()
	latest := dig(p, "latestReviews", "nodes").([]any)
	if p["reviewDecision"] != "APPROVED" || len(latest) != 2 || dig(latest[0], "author", "login") != "mel" ||
		dig(latest[1], "author", "login") != "olga" || dig(latest[1], "state") != "APPROVED" {
		t.Fatalf("after olga's approval: %v", p)
	}
	// Her review answered her request, as on REST.
	if reqs, _, _ := w.e.GitHub(w.monaTok).PullRequests.ListReviewers(ctx, "mona", "app", pr.GetNumber()); len(reqs.Users) != 0 {
		t.Fatalf("requests after olga's review: %+v", reqs.Users)
	}
	// A pending review (no event) is the reviewer's own.
	r = post(t, w.e, w.melTok, review, map[string]any{"in": map[string]any{"pullRequestId": prID, "body": "draft thoughts"}})
	if dig(mustData(t, r), "addPullRequestReview", "pullRequestReview", "state") != "PENDING" {
		t.Fatalf("pending review: %s", r.Raw)
	}
	if n := dig(look(), "latestReviews", "totalCount"); n != jsonNum(2) {
		t.Fatalf("a pending review counted among the latest: %v", n)
	}
	// GitHub's refusals.
	r = post(t, w.e, w.monaTok, review, map[string]any{"in": map[string]any{"pullRequestId": prID, "event": "APPROVE"}})
	if errType(r) != "UNPROCESSABLE" || !strings.Contains(r.Errors[0].Message, "Can not approve your own pull request") {
		t.Fatalf("approving one's own: %s", r.Raw)
	}
	r = post(t, w.e, w.olgaTok, review, map[string]any{"in": map[string]any{"pullRequestId": prID, "event": "DISMISS"}})
	if errType(r) != "UNPROCESSABLE" {
		t.Fatalf("DISMISS on creation: %s", r.Raw)
	}
	r = post(t, w.e, w.olgaTok, review, map[string]any{"in": map[string]any{"pullRequestId": "PR_nope"}})
	if errType(r) != "NOT_FOUND" {
		t.Fatalf("unknown pull request: %s", r.Raw)
	}
	revs, _, err := w.e.GitHub(w.monaTok).PullRequests.ListReviews(ctx, "mona", "app", pr.GetNumber(), nil)
	if err != nil || len(revs) != 3 {
		t.Fatalf("REST reviews: %d %v", len(revs), err)
	}

	// Draft state: the author or a writer; mel may not.
	draft := `mutation($id: ID!) { convertPullRequestToDraft(input: {pullRequestId: $id, clientMutationId: "d"}) { clientMutationId pullRequest { isDraft } } }`
	ready := `mutation($id: ID!) { markPullRequestReadyForReview(input: {pullRequestId: $id}) { pullRequest { isDraft } } }`
	if r := post(t, w.e, w.melTok, draft, map[string]any{"id": prID}); errType(r) != "FORBIDDEN" {
		t.Fatalf("mel converting to draft: %s", r.Raw)
	}
	r = post(t, w.e, w.olgaTok, draft, map[string]any{"id": prID})
	if dig(mustData(t, r), "convertPullRequestToDraft", "pullRequest", "isDraft") != true || dig(r.Data, "convertPullRequestToDraft", "clientMutationId") != "d" {
		t.Fatalf("convertPullRequestToDraft: %s", r.Raw)
	}
	if got, _, _ := w.e.GitHub(w.monaTok).PullRequests.Get(ctx, "mona", "app", pr.GetNumber()); !got.GetDraft() || got.GetMergeableState() == "clean" {
		t.Fatalf("REST after converting: draft %v", got.GetDraft())
	}
	r = post(t, w.e, w.monaTok, ready, map[string]any{"id": prID})
	if dig(mustData(t, r), "markPullRequestReadyForReview", "pullRequest", "isDraft") != false {
		t.Fatalf("markPullRequestReadyForReview: %s", r.Raw)
	}
	events, _, err := w.e.GitHub(w.monaTok).Issues.ListIssueEvents(ctx, "mona", "app", pr.GetNumber(), nil)
	if err != nil {
		t.Fatal(err)
	}
	var kinds []string
	for _, e := range events {
		kinds = append(kinds, e.GetEvent())
	}
	if got := strings.Join(kinds, ","); !strings.HasSuffix(got, "convert_to_draft,ready_for_review") {
		t.Fatalf("issue events: %s", got)
	}
	if _, _, err := w.e.GitHub(w.monaTok).PullRequests.Edit(ctx, "mona", "app", pr.GetNumber(), &github.PullRequest{State: github.Ptr("closed")}); err != nil {
		t.Fatal(err)
	}
	if r := post(t, w.e, w.monaTok, draft, map[string]any{"id": prID}); errType(r) != "UNPROCESSABLE" {
		t.Fatalf("converting a closed pull request: %s", r.Raw)
	}
}

// TestRepositoryAndIssueMutations: createRepository, archiveRepository,
// unarchiveRepository and deleteIssue run REST's services, with GitHub's
// permission errors.
func TestRepositoryAndIssueMutations(t *testing.T) {
	w := newWorld(t)
	seedIssues(t, w, 2)
	create := `mutation($in: CreateRepositoryInput!) { createRepository(input: $in) { clientMutationId repository {
		nameWithOwner isPrivate hasIssuesEnabled hasWikiEnabled viewerPermission owner { login } } } }`
	r := post(t, w.e, w.monaTok, create, map[string]any{"in": map[string]any{"name": "made", "visibility": "PRIVATE", "description": "by GraphQL", "clientMutationId": "c"}})
	repo := dig(mustData(t, r), "createRepository", "repository").(map[string]any)
	if repo["nameWithOwner"] != "mona/made" || repo["isPrivate"] != true || repo["hasIssuesEnabled"] != true || repo["hasWikiEnabled"] != false ||
		repo["viewerPermission"] != "ADMIN" || dig(r.Data, "createRepository", "clientMutationId") != "c" {
		t.Fatalf("createRepository: %s", r.Raw)
	}
	rest, _, err := w.e.GitHub(w.monaTok).Repositories.Get(ctx, "mona", "made")
	if err != nil || rest.GetDescription() != "by GraphQL" || !rest.GetPrivate() || rest.GetHasWiki() {
		t.Fatalf("REST view: %+v %v", rest, err)
	}
	r = post(t, w.e, w.monaTok, create, map[string]any{"in": map[string]any{"name": "made", "visibility": "PUBLIC"}})
	if errType(r) != "UNPROCESSABLE" || !strings.Contains(r.Errors[0].Message, "name already exists on this account") {
		t.Fatalf("duplicate name: %s", r.Raw)
	}
	org := nodeID(t, w, "/orgs/octo")
	r = post(t, w.e, w.olgaTok, create, map[string]any{"in": map[string]any{"name": "lib", "visibility": "PUBLIC", "ownerId": org}})
	if dig(mustData(t, r), "createRepository", "repository", "owner", "login") != "octo" {
		t.Fatalf("olga's organization repository: %s", r.Raw)
	}
	r = post(t, w.e, w.strTok, create, map[string]any{"in": map[string]any{"name": "sneaky", "visibility": "PUBLIC", "ownerId": org}})
	if errType(r) != "FORBIDDEN" || !strings.Contains(r.Errors[0].Message, "You need admin access to the organization") {
		t.Fatalf("a stranger creating in octo: %s", r.Raw)
	}
	r = post(t, w.e, w.monaTok, create, map[string]any{"in": map[string]any{"name": "theirs", "visibility": "PUBLIC", "ownerId": nodeID(t, w, "/users/olga")}})
	if errType(r) != "FORBIDDEN" {
		t.Fatalf("creating for another user: %s", r.Raw)
	}
	if _, resp, _ := w.e.GitHub(w.monaTok).Repositories.Get(ctx, "octo", "sneaky"); resp.StatusCode != 404 {
		t.Fatalf("a refused repository was written")
	}

	app := nodeID(t, w, "/repos/mona/app")
	archive := `mutation($id: ID!) { archiveRepository(input: {repositoryId: $id, clientMutationId: "a"}) { clientMutationId repository { isArchived } } }`
	unarchive := `mutation($id: ID!) { unarchiveRepository(input: {repositoryId: $id}) { repository { isArchived } } }`
	r = post(t, w.e, w.melTok, archive, map[string]any{"id": app})
	if errType(r) != "FORBIDDEN" || r.Errors[0].Message != "mel does not have the correct permissions to execute `ArchiveRepository`" {
		t.Fatalf("mel archiving: %s", r.Raw)
	}
	r = post(t, w.e, w.monaTok, archive, map[string]any{"id": app})
	if dig(mustData(t, r), "archiveRepository", "repository", "isArchived") != true || dig(r.Data, "archiveRepository", "clientMutationId") != "a" {
		t.Fatalf("archiveRepository: %s", r.Raw)
	}
	if got, _, _ := w.e.GitHub(w.monaTok).Repositories.Get(ctx, "mona", "app"); !got.GetArchived() {
		t.Fatalf("REST after archiving: archived %v", got.GetArchived())
	}
	// An archived repository takes no issues.
	r = post(t, w.e, w.monaTok, `mutation($id: ID!) { createIssue(input: {repositoryId: $id, title: "late"}) { issue { number } } }`, map[string]any{"id": app})
	if errType(r) == "" {
		t.Fatalf("an issue in an archived repository: %s", r.Raw)
	}
	r = post(t, w.e, w.monaTok, unarchive, map[string]any{"id": app})
	if dig(mustData(t, r), "unarchiveRepository", "repository", "isArchived") != false {
		t.Fatalf("unarchiveRepository: %s", r.Raw)
	}

	del := `mutation($id: ID!) { deleteIssue(input: {issueId: $id, clientMutationId: "x"}) { clientMutationId repository { nameWithOwner issues { totalCount } } } }`
	issue1 := nodeID(t, w, "/repos/mona/app/issues/1")
	r = post(t, w.e, w.melTok, del, map[string]any{"id": issue1})
	if errType(r) != "FORBIDDEN" || r.Errors[0].Message != "mel does not have the correct permissions to execute `DeleteIssue`" {
		t.Fatalf("mel deleting: %s", r.Raw)
	}
	before, _, _ := w.e.GitHub(w.monaTok).Repositories.Get(ctx, "mona", "app")
	r = post(t, w.e, w.monaTok, del, map[string]any{"id": issue1})
	if dig(mustData(t, r), "deleteIssue", "repository", "nameWithOwner") != "mona/app" || dig(r.Data, "deleteIssue", "clientMutationId") != "x" ||
		dig(r.Data, "deleteIssue", "repository", "issues", "totalCount") != jsonNum(1) {
		t.Fatalf("deleteIssue: %s", r.Raw)
	}
	_, resp, err := w.e.GitHub(w.monaTok).Issues.Get(ctx, "mona", "app", 1)
	if resp == nil || resp.StatusCode != 410 || !strings.Contains(err.Error(), "This issue was deleted") {
		t.Fatalf("REST GET of the deleted issue: %v %v", resp, err)
	}
	if after, _, _ := w.e.GitHub(w.monaTok).Repositories.Get(ctx, "mona", "app"); after.GetOpenIssuesCount() != before.GetOpenIssuesCount()-1 {
		t.Fatalf("open issues %d after deleting, %d before", after.GetOpenIssuesCount(), before.GetOpenIssuesCount())
	}
	if r := post(t, w.e, w.monaTok, del, map[string]any{"id": issue1}); errType(r) != "NOT_FOUND" {
		t.Fatalf("deleting again: %s", r.Raw)
	}
	pr := openPull(t, w, "topic", "A topic")
	if r := post(t, w.e, w.monaTok, del, map[string]any{"id": pr.GetNodeID()}); errType(r) != "NOT_FOUND" {
		t.Fatalf("deleting a pull request: %s", r.Raw)
	}
	// Numbers are never given again.
	is, _, err := w.e.GitHub(w.monaTok).Issues.Create(ctx, "mona", "app", github.CreateIssueRequest{Title: "next"})
	if err != nil || is.GetNumber() != pr.GetNumber()+1 {
		t.Fatalf("next issue: %v %v", is.GetNumber(), err)
	}
}

// jsonNum is n as the tests' decoder (UseNumber) reads it.
func jsonNum(n int) json.Number { return json.Number(strconv.Itoa(n)) }
