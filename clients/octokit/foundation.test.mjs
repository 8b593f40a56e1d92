// Octokit against hubd: the foundation's flow through a real client.
// Run by internal/clients/octokit_test.go with HUBD_URL, HUBD_TOKEN (a site
// administrator's token) and HUBD_LIMITED_URL (a hubd with tiny rate limits).
import { test } from "node:test";
import assert from "node:assert/strict";
import { Octokit } from "@octokit/rest";

const baseUrl = process.env.HUBD_URL + "/api/v3";
const admin = new Octokit({ baseUrl, auth: process.env.HUBD_TOKEN });

async function status(promise) {
  try {
    const r = await promise;
    return r.status;
  } catch (e) {
    if (e.status === undefined) throw e;
    return e.status;
  }
}

test("admin creates a user, who creates an organization's repositories and pages through them", async () => {
  const { data: user, status: created } = await admin.request("POST /admin/users", { login: "octo-user", email: "octo@example.com" });
  assert.equal(created, 201);
  assert.equal(user.login, "octo-user");

  const { data: auth } = await admin.request("POST /admin/users/{username}/authorizations", { username: "octo-user", scopes: ["repo", "admin:org", "delete_repo", "user"] });
  assert.match(auth.token, /^gho_/);
  const octo = new Octokit({ baseUrl, auth: auth.token });

  const { data: me } = await octo.rest.users.getAuthenticated();
  assert.equal(me.login, "octo-user");

  const { data: org } = await admin.request("POST /admin/organizations", { login: "octo-org", admin: "octo-user", profile_name: "Octo Org" });
  assert.equal(org.login, "octo-org");

  for (let i = 0; i < 5; i++) {
    const { data: repo } = await octo.rest.repos.createInOrg({ org: "octo-org", name: `repo-${i}`, private: i % 2 === 1 });
    assert.equal(repo.full_name, `octo-org/repo-${i}`);
  }
  const all = await octo.paginate(octo.rest.repos.listForOrg, { org: "octo-org", per_page: 2 });
  assert.deepEqual(all.map((r) => r.name).sort(), ["repo-0", "repo-1", "repo-2", "repo-3", "repo-4"]);

  const mine = await octo.paginate(octo.rest.repos.listForAuthenticatedUser, { per_page: 2 });
  assert.equal(mine.length, 5);

  const { data: got } = await octo.rest.repos.get({ owner: "octo-org", repo: "repo-0" });
  assert.equal(got.owner.login, "octo-org");
  assert.equal(got.permissions.admin, true);
});

test("a renamed repository redirects from its old name", async () => {
  const { data: u } = await admin.request("POST /admin/users", { login: "renamer", email: "r@example.com" });
  const { data: auth } = await admin.request("POST /admin/users/{username}/authorizations", { username: u.login, scopes: ["repo"] });
  const octo = new Octokit({ baseUrl, auth: auth.token });
  await octo.rest.repos.createForAuthenticatedUser({ name: "before" });
  const { data: renamed } = await octo.rest.repos.update({ owner: "renamer", repo: "before", name: "after" });
  assert.equal(renamed.name, "after");
  // fetch follows the 301 to the new name.
  const { data: viaOld } = await octo.rest.repos.get({ owner: "renamer", repo: "before" });
  assert.equal(viaOld.name, "after");
  assert.equal(viaOld.id, renamed.id);
});

test("a private repository is invisible to another user; a bad token is refused", async () => {
  const mk = async (login) => {
    await admin.request("POST /admin/users", { login, email: `${login}@example.com` });
    const { data } = await admin.request("POST /admin/users/{username}/authorizations", { username: login, scopes: ["repo"] });
    return new Octokit({ baseUrl, auth: data.token });
  };
  const owner = await mk("secret-keeper");
  const other = await mk("outsider");
  await owner.rest.repos.createForAuthenticatedUser({ name: "hidden", private: true });
  assert.equal(await status(owner.rest.repos.get({ owner: "secret-keeper", repo: "hidden" })), 200);
  assert.equal(await status(other.rest.repos.get({ owner: "secret-keeper", repo: "hidden" })), 404);
  const anon = new Octokit({ baseUrl });
  assert.equal(await status(anon.rest.repos.get({ owner: "secret-keeper", repo: "hidden" })), 404);

  const bad = new Octokit({ baseUrl, auth: "ghp_000000000000000000000000000000000000" });
  try {
    await bad.rest.users.getAuthenticated();
    assert.fail("a bad token was accepted");
  } catch (e) {
    assert.equal(e.status, 401);
    assert.equal(e.response.data.message, "Bad credentials");
  }
});

test("an ETag round trip answers 304", async () => {
  const first = await admin.rest.users.getAuthenticated();
  assert.ok(first.headers.etag);
  try {
    await admin.rest.users.getAuthenticated({ headers: { "if-none-match": first.headers.etag } });
    assert.fail("expected 304");
  } catch (e) {
    assert.equal(e.status, 304);
  }
});

test("exhausting the rate limit answers 403 with the rate-limit headers", async () => {
  const limited = new Octokit({ baseUrl: process.env.HUBD_LIMITED_URL + "/api/v3" });
  let last;
  for (let i = 0; i < 10; i++) {
    try {
      await limited.rest.users.getByUsername({ username: "hubadmin" });
    } catch (e) {
      last = e;
      break;
    }
  }
  assert.ok(last, "the limit was never reached");
  assert.ok(last.status === 403 || last.status === 429, `status ${last.status}`);
  assert.equal(last.response.headers["x-ratelimit-remaining"], "0");
  assert.ok(Number(last.response.headers["x-ratelimit-reset"]) > Date.now() / 1000);
  assert.match(last.response.data.message, /API rate limit exceeded/);
});
