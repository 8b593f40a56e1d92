// Octokit against hubd: the review loop of a pull request, for every merge
// method. Run by internal/clients/octokit_test.go with HUBD_URL and
// HUBD_TOKEN (a site administrator's token).
import { test } from "node:test";
import assert from "node:assert/strict";
import { Octokit } from "@octokit/rest";

const baseUrl = process.env.HUBD_URL + "/api/v3";
const admin = new Octokit({ baseUrl, auth: process.env.HUBD_TOKEN });

async function user(login) {
  await admin.request("POST /admin/users", { login, email: `${login}@example.com` });
  const { data: auth } = await admin.request("POST /admin/users/{username}/authorizations", { username: login, scopes: ["repo", "user"] });
  return new Octokit({ baseUrl, auth: auth.token });
}

// waitMergeable polls a pull request until the background check answered.
async function waitMergeable(octo, owner, repo, pull_number) {
  for (let i = 0; i < 200; i++) {
    const { data } = await octo.rest.pulls.get({ owner, repo, pull_number });
    if (data.mergeable !== null) return data;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error("mergeability never computed");
}

test("create, review and merge a pull request with each merge method", async () => {
  const author = await user("pr-author");
  const reviewer = await user("pr-reviewer");
  await author.rest.repos.createForAuthenticatedUser({ name: "loop", auto_init: true });
  const owner = "pr-author", repo = "loop";
  const { data: main } = await author.rest.repos.getBranch({ owner, repo, branch: "main" });

  for (const method of ["merge", "squash", "rebase"]) {
    const branch = `topic-${method}`;
    await author.rest.git.createRef({ owner, repo, ref: `refs/heads/${branch}`, sha: main.commit.sha });
    await author.rest.repos.createOrUpdateFileContents({
      owner, repo, path: `${method}.txt`, branch, message: `Add ${method}.txt`,
      content: Buffer.from(`${method}\n`).toString("base64"),
    });
    const { data: pr, status } = await author.rest.pulls.create({ owner, repo, title: `Use ${method}`, head: branch, base: "main", body: "Please review" });
    assert.equal(status, 201);
    assert.equal(pr.state, "open");
    assert.equal(pr.head.ref, branch);

    const ready = await waitMergeable(author, owner, repo, pr.number);
    assert.equal(ready.mergeable, true);
    assert.equal(ready.mergeable_state, "clean");

    const { data: review } = await reviewer.rest.pulls.createReview({ owner, repo, pull_number: pr.number, event: "APPROVE", body: "Looks good" });
    assert.equal(review.state, "APPROVED");
    assert.equal(review.user.login, "pr-reviewer");
    const { data: reviews } = await author.rest.pulls.listReviews({ owner, repo, pull_number: pr.number });
    assert.equal(reviews.length, 1);

    const { data: merged } = await author.rest.pulls.merge({ owner, repo, pull_number: pr.number, merge_method: method, sha: ready.head.sha });
    assert.equal(merged.merged, true);
    assert.match(merged.sha, /^[0-9a-f]{40}$/);
    const { data: after } = await author.rest.pulls.get({ owner, repo, pull_number: pr.number });
    assert.equal(after.merged, true);
    assert.equal(after.state, "closed");
    assert.equal(after.merged_by.login, "pr-author");
    const { data: branchNow } = await author.rest.repos.getBranch({ owner, repo, branch: "main" });
    assert.equal(branchNow.commit.sha, merged.sha);
    const status204 = await author.rest.pulls.checkIfMerged({ owner, repo, pull_number: pr.number }).then((r) => r.status);
    assert.equal(status204, 204);
    main.commit.sha = merged.sha;
  }
  const all = await author.paginate(author.rest.pulls.list, { owner, repo, state: "all", per_page: 2 });
  assert.equal(all.length, 3);
});
