// Octokit's GitHub App authentication (@octokit/auth-app) against hubd: the
// app signs its JWTs, gets installation tokens and acts as its bot. Run by
// internal/clients/apps_test.go with HUBD_URL and HUBD_TOKEN (a site
// administrator's token).
import { test } from "node:test";
import assert from "node:assert/strict";
import { Octokit } from "@octokit/rest";
import { createAppAuth } from "@octokit/auth-app";

const baseUrl = process.env.HUBD_URL + "/api/v3";
const admin = new Octokit({ baseUrl, auth: process.env.HUBD_TOKEN });

// rejects runs a request that must fail with status, and gives the error.
async function rejects(promise, status) {
  try {
    await promise;
  } catch (err) {
    assert.equal(err.status, status, err.message);
    return err;
  }
  assert.fail(`expected ${status}`);
}

test("an app authenticates with auth-app and acts as its bot", async () => {
  await admin.request("POST /admin/users", { login: "app-owner", email: "app-owner@example.com" });
  const { data: auth } = await admin.request("POST /admin/users/{username}/authorizations", { username: "app-owner", scopes: ["repo", "admin:org"] });
  const owner = new Octokit({ baseUrl, auth: auth.token });
  await admin.request("POST /admin/organizations", { login: "octo-apps", admin: "app-owner" });
  for (const name of ["one", "two"]) {
    await owner.rest.repos.createInOrg({ org: "octo-apps", name, private: true, auto_init: true });
  }
  const { data: app } = await admin.request("POST /admin/apps", {
    owner: "octo-apps", name: "Octo Helper",
    default_permissions: { issues: "write", contents: "read" }, default_events: ["issues"],
  });
  const { data: inst } = await admin.request("POST /admin/apps/{app_slug}/installations", {
    app_slug: app.slug, account: "octo-apps", repository_selection: "selected", repositories: ["one"],
  });

  // As the app (JWT).
  const asApp = new Octokit({ baseUrl, authStrategy: createAppAuth, auth: { appId: app.id, privateKey: app.pem } });
  const { data: me } = await asApp.rest.apps.getAuthenticated();
  assert.equal(me.slug, "octo-helper");
  assert.equal(me.installations_count, 1);
  const { data: installations } = await asApp.rest.apps.listInstallations();
  assert.deepEqual(installations.map((i) => i.id), [inst.id]);
  const { data: found } = await asApp.rest.apps.getRepoInstallation({ owner: "octo-apps", repo: "one" });
  assert.equal(found.id, inst.id);
  // The client id works as the issuer too.
  const byClientId = new Octokit({ baseUrl, authStrategy: createAppAuth, auth: { appId: app.client_id, privateKey: app.pem } });
  assert.equal((await byClientId.rest.apps.getAuthenticated()).data.id, app.id);

  // As the installation: auth-app trades the JWT for a token.
  const asInst = new Octokit({ baseUrl, authStrategy: createAppAuth, auth: { appId: app.id, privateKey: app.pem, installationId: inst.id } });
  const token = await asInst.auth({ type: "installation" });
  assert.match(token.token, /^ghs_/);
  assert.equal(token.repositorySelection, "selected");
  assert.equal(token.permissions.issues, "write");
  const { data: issue, status } = await asInst.rest.issues.create({ owner: "octo-apps", repo: "one", title: "Filed by the app" });
  assert.equal(status, 201);
  assert.equal(issue.user.login, "octo-helper[bot]");
  assert.equal(issue.user.type, "Bot");
  const { data: repos } = await asInst.rest.apps.listReposAccessibleToInstallation();
  assert.equal(repos.total_count, 1);
  assert.equal(repos.repositories[0].full_name, "octo-apps/one");
  await rejects(asInst.rest.repos.get({ owner: "octo-apps", repo: "two" }), 404);
  const denied = await rejects(asInst.rest.pulls.list({ owner: "octo-apps", repo: "one" }), 403);
  assert.equal(denied.response.headers["x-accepted-github-permissions"], "pull_requests=read");
  assert.equal(denied.response.data.message, "Resource not accessible by integration");

  // A token narrowed by auth-app's repositoryNames and permissions.
  const narrow = await asApp.auth({ type: "installation", installationId: inst.id, permissions: { issues: "read" }, repositoryNames: ["one"] });
  assert.deepEqual(narrow.permissions, { issues: "read", metadata: "read" });
  const readOnly = new Octokit({ baseUrl, auth: narrow.token });
  await rejects(readOnly.rest.issues.create({ owner: "octo-apps", repo: "one", title: "x" }), 403);
  // Asking for more than the installation has.
  const wider = await rejects(asApp.auth({ type: "installation", installationId: inst.id, permissions: { contents: "write" } }), 422);
  assert.equal(wider.response.data.message, "The permissions requested are not granted to this installation.");
});
