// Octokit against hubd's secrets, the way GitHub's documentation encrypts
// them: the scope's public key, a libsodium sealed box made with
// libsodium-wrappers, then create-or-update. Run by
// internal/api/secrets/node_test.go with HUBD_URL and HUBD_TOKEN (a site
// administrator's token); every response is checked against GitHub's
// OpenAPI description by the server under test.
import { test } from "node:test";
import assert from "node:assert/strict";
import { Octokit } from "@octokit/rest";
import sodium from "libsodium-wrappers";

const baseUrl = process.env.HUBD_URL + "/api/v3";
const octokit = new Octokit({ baseUrl, auth: process.env.HUBD_TOKEN });

async function seal(key, value) {
  await sodium.ready;
  const box = sodium.crypto_box_seal(sodium.from_string(value), sodium.from_base64(key, sodium.base64_variants.ORIGINAL));
  return sodium.to_base64(box, sodium.base64_variants.ORIGINAL);
}

test("repository secrets with a libsodium sealed box", async () => {
  const { data: me } = await octokit.rest.users.getAuthenticated();
  const owner = me.login;
  await octokit.rest.repos.createForAuthenticatedUser({ name: "vault", private: true });
  for (const app of ["actions", "agents"]) {
    const { data: key } = await octokit.request(`GET /repos/{owner}/{repo}/${app}/secrets/public-key`, { owner, repo: "vault" });
    assert.match(key.key_id, /^\d+$/);
    const put = (name, value) => octokit.request(`PUT /repos/{owner}/{repo}/${app}/secrets/{secret_name}`,
      { owner, repo: "vault", secret_name: name, key_id: key.key_id, encrypted_value: value });
    const created = await put("npm_token", await seal(key.key, "n-p-m"));
    assert.equal(created.status, 201);
    const updated = await put("NPM_TOKEN", await seal(key.key, "n-p-m-2"));
    assert.equal(updated.status, 204);
    const { data: list } = await octokit.request(`GET /repos/{owner}/{repo}/${app}/secrets`, { owner, repo: "vault" });
    assert.deepEqual(list.secrets.map((s) => s.name), ["NPM_TOKEN"]);
    // A box sealed for another key does not open: 422 with GitHub's words.
    await sodium.ready;
    const other = sodium.crypto_box_keypair();
    const wrong = sodium.to_base64(sodium.crypto_box_seal(sodium.from_string("x"), other.publicKey), sodium.base64_variants.ORIGINAL);
    await assert.rejects(put("NPM_TOKEN", wrong), (e) => e.status === 422 && /improperly encrypted secret/.test(e.message));
    const del = await octokit.request(`DELETE /repos/{owner}/{repo}/${app}/secrets/{secret_name}`, { owner, repo: "vault", secret_name: "npm_token" });
    assert.equal(del.status, 204);
  }
  // @octokit/rest's own Actions methods.
  const { data: key } = await octokit.rest.actions.getRepoPublicKey({ owner, repo: "vault" });
  await octokit.rest.actions.createOrUpdateRepoSecret({ owner, repo: "vault", secret_name: "DEPLOY", key_id: key.key_id, encrypted_value: await seal(key.key, "d") });
  const { data: got } = await octokit.rest.actions.getRepoSecret({ owner, repo: "vault", secret_name: "deploy" });
  assert.equal(got.name, "DEPLOY");
  assert.equal(got.value, undefined);
});

test("organization secrets with selected repositories", async () => {
  const { data: me } = await octokit.rest.users.getAuthenticated();
  await octokit.request("POST /admin/organizations", { login: "sodium-org", admin: me.login });
  const { data: repo } = await octokit.rest.repos.createInOrg({ org: "sodium-org", name: "web" });
  const { data: key } = await octokit.rest.actions.getOrgPublicKey({ org: "sodium-org" });
  const res = await octokit.rest.actions.createOrUpdateOrgSecret({ org: "sodium-org", secret_name: "SHARED", key_id: key.key_id,
    encrypted_value: await seal(key.key, "s"), visibility: "selected", selected_repository_ids: [repo.id] });
  assert.equal(res.status, 201);
  const { data: repos } = await octokit.rest.actions.listSelectedReposForOrgSecret({ org: "sodium-org", secret_name: "SHARED" });
  assert.deepEqual(repos.repositories.map((r) => r.full_name), ["sodium-org/web"]);
  const { data: visible } = await octokit.rest.actions.listRepoOrganizationSecrets({ owner: "sodium-org", repo: "web" });
  assert.deepEqual(visible.secrets.map((s) => s.name), ["SHARED"]);
  const { data: secret } = await octokit.rest.actions.getOrgSecret({ org: "sodium-org", secret_name: "SHARED" });
  assert.equal(secret.visibility, "selected");
  assert.ok(secret.selected_repositories_url.endsWith("/orgs/sodium-org/actions/secrets/SHARED/repositories"));
});
