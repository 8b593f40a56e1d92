// Octokit's OAuth tooling against hubd: @octokit/auth-oauth-device runs the
// device flow with the GitHub CLI's OAuth app (which hubd ships), and
// @octokit/oauth-methods exchanges web flow codes, refreshes a GitHub App's
// user access tokens and checks, resets and deletes tokens. A small cookie
// keeping browser signs in and answers the pages. Run by
// internal/clients/oauth_test.go with HUBD_URL, HUBD_TOKEN (a site
// administrator's token), HUBD_LOGIN and HUBD_PASSWORD (a user who can sign
// in).
import { test } from "node:test";
import assert from "node:assert/strict";
import { Octokit } from "@octokit/rest";
import { request } from "@octokit/request";
import { createOAuthDeviceAuth } from "@octokit/auth-oauth-device";
import {
  exchangeWebFlowCode, refreshToken, checkToken, resetToken, deleteToken, deleteAuthorization,
} from "@octokit/oauth-methods";

const url = process.env.HUBD_URL;
const baseUrl = url + "/api/v3";
const hubd = request.defaults({ baseUrl });
const admin = new Octokit({ baseUrl, auth: process.env.HUBD_TOKEN });
const login = process.env.HUBD_LOGIN, password = process.env.HUBD_PASSWORD;

// A browser: keeps cookies, follows no redirect, reads the page's form.
class Browser {
  constructor() { this.cookies = new Map(); }
  async go(path, form) {
    const headers = { cookie: [...this.cookies].map(([k, v]) => `${k}=${v}`).join("; ") };
    let body;
    if (form) {
      headers["content-type"] = "application/x-www-form-urlencoded";
      body = new URLSearchParams(form).toString();
    }
    const res = await fetch(path.startsWith("/") ? url + path : path, { method: form ? "POST" : "GET", headers, body, redirect: "manual" });
    for (const c of res.headers.getSetCookie()) {
      const [kv] = c.split(";");
      const i = kv.indexOf("=");
      this.cookies.set(kv.slice(0, i), kv.slice(i + 1));
    }
    return { status: res.status, location: res.headers.get("location"), body: await res.text() };
  }
  // submit posts the page's form with its hidden fields and more.
  async submit(page, fields) {
    const m = page.body.match(/<form method="post" action="([^"]*)">([\s\S]*?)<\/form>/);
    assert.ok(m, `no form in ${page.status}: ${page.body}`);
    const form = {};
    for (const h of m[2].matchAll(/<input type="hidden" name="([^"]*)" value="([^"]*)">/g)) form[h[1]] = h[2];
    return this.go(m[1].replaceAll("&amp;", "&"), { ...form, ...fields });
  }
  async signIn() {
    const res = await this.submit(await this.go("/login"), { login, password });
    assert.equal(res.status, 302, res.body);
  }
}

test("the device flow with auth-oauth-device and the GitHub CLI's app", async () => {
  const clientId = "178c6fc778ccc68e1d6a";
  const clientSecret = "34ddeff2b558a23d38fba8a6de74f086ede1cc0b"; // public, in gh's source
  const auth = createOAuthDeviceAuth({
    clientType: "oauth-app", clientId, scopes: ["repo", "read:org"], request: hubd,
    async onVerification(v) {
      assert.equal(v.verification_uri, url + "/login/device");
      const b = new Browser();
      await b.signIn();
      const confirm = await b.submit(await b.go("/login/device"), { user_code: v.user_code });
      assert.equal(confirm.status, 200, confirm.body);
      const done = await b.submit(confirm, { authorize: "1" });
      assert.match(done.body, /all set/);
    },
  });
  const { token, scopes } = await auth({ type: "oauth" });
  assert.match(token, /^gho_/);
  // GitHub answers scope as a comma list ("repo,gist" in its docs);
  // auth-oauth-device splits it at white space only.
  assert.deepEqual(scopes, ["repo,read:org"]);
  const { data: me, headers } = await new Octokit({ baseUrl, auth: token }).rest.users.getAuthenticated();
  assert.equal(me.login, login);
  assert.equal(headers["x-oauth-scopes"], "read:org, repo");

  const checked = await checkToken({ clientType: "oauth-app", clientId, clientSecret, token, request: hubd });
  assert.equal(checked.data.user.login, login);
  const reset = await resetToken({ clientType: "oauth-app", clientId, clientSecret, token, request: hubd });
  assert.match(reset.authentication.token, /^gho_/);
  assert.notEqual(reset.authentication.token, token);
  await assert.rejects(new Octokit({ baseUrl, auth: token }).rest.users.getAuthenticated(), { status: 401 });
  await deleteToken({ clientType: "oauth-app", clientId, clientSecret, token: reset.authentication.token, request: hubd });
  await assert.rejects(new Octokit({ baseUrl, auth: reset.authentication.token }).rest.users.getAuthenticated(), { status: 401 });
});

test("a GitHub App's web flow, refresh and grant deletion with oauth-methods", async () => {
  const { data: app } = await admin.request("POST /admin/apps", {
    owner: login, name: "Octo Web", default_permissions: { issues: "read" }, callback_url: "http://127.0.0.1:9/callback",
  });
  const b = new Browser();
  await b.signIn();
  const consent = await b.go(`/login/oauth/authorize?client_id=${app.client_id}&state=octo`);
  assert.equal(consent.status, 200, consent.body);
  const back = new URL((await b.submit(consent, { authorize: "1" })).location);
  assert.equal(back.searchParams.get("state"), "octo");
  const opts = { clientType: "github-app", clientId: app.client_id, clientSecret: app.client_secret, request: hubd };
  const { authentication: a1 } = await exchangeWebFlowCode({ ...opts, code: back.searchParams.get("code") });
  assert.match(a1.token, /^ghu_/);
  assert.match(a1.refreshToken, /^ghr_/);
  assert.ok(new Date(a1.expiresAt) > new Date());
  const { authentication: a2 } = await refreshToken({ ...opts, refreshToken: a1.refreshToken });
  assert.notEqual(a2.token, a1.token);
  await assert.rejects(refreshToken({ ...opts, refreshToken: a1.refreshToken }), /bad_refresh_token/);
  await assert.rejects(exchangeWebFlowCode({ ...opts, code: back.searchParams.get("code") }), /bad_verification_code/);
  const { data: me } = await new Octokit({ baseUrl, auth: a2.token }).rest.users.getAuthenticated();
  assert.equal(me.login, login);
  // Authorized once: the next web flow goes straight back with a code.
  const again = await b.go(`/login/oauth/authorize?client_id=${app.client_id}&state=again`);
  assert.equal(again.status, 302, again.body);
  const back2 = new URL(again.location);
  assert.equal(back2.searchParams.get("state"), "again");
  const { authentication: a3 } = await exchangeWebFlowCode({ ...opts, code: back2.searchParams.get("code") });
  assert.match(a3.token, /^ghu_/);
  await deleteAuthorization({ ...opts, token: a2.token });
  await assert.rejects(new Octokit({ baseUrl, auth: a3.token }).rest.users.getAuthenticated(), { status: 401 });
  // The grant is gone with its tokens: the consent page again.
  assert.equal((await b.go(`/login/oauth/authorize?client_id=${app.client_id}`)).status, 200);
  await assert.rejects(new Octokit({ baseUrl, auth: a2.token }).rest.users.getAuthenticated(), { status: 401 });
  await assert.rejects(new Octokit({ baseUrl, auth: a1.token }).rest.users.getAuthenticated(), { status: 401 });
});
