// Octokit against hubd's webhooks: a hook created with @octokit/rest
// delivers to a receiver in this process, which checks every delivery's
// X-Hub-Signature-256 with @octokit/webhooks (verify and
// verifyAndReceive, which also dispatches to the event's handlers). Run by
// internal/api/hooks/node_test.go with HUBD_URL and HUBD_TOKEN (a site
// administrator's token); hubd admits receivers on 127.0.0.1 there.
import { test } from "node:test";
import assert from "node:assert/strict";
import http from "node:http";
import { Octokit } from "@octokit/rest";
import { Webhooks } from "@octokit/webhooks";

const baseUrl = process.env.HUBD_URL + "/api/v3";
const admin = new Octokit({ baseUrl, auth: process.env.HUBD_TOKEN });

// receiver collects deliveries until wanted(list) holds.
function receiver() {
  const got = [];
  let waiters = [];
  const server = http.createServer((req, res) => {
    const chunks = [];
    req.on("data", (c) => chunks.push(c));
    req.on("end", () => {
      got.push({ headers: req.headers, body: Buffer.concat(chunks).toString("utf8") });
      res.writeHead(202).end("ok");
      waiters = waiters.filter((w) => !w());
    });
  });
  return {
    got,
    listen: () => new Promise((r) => server.listen(0, "127.0.0.1", () => r(`http://127.0.0.1:${server.address().port}/hook`))),
    close: () => new Promise((r) => server.close(r)),
    until: (wanted) => new Promise((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`deliveries: ${got.map((d) => d.headers["x-github-event"]).join(",")}`)), 60000);
      const check = () => { if (wanted(got)) { clearTimeout(timer); resolve(); return true; } return false; };
      if (!check()) waiters.push(check);
    }),
  };
}

test("deliveries verify with @octokit/webhooks", async () => {
  const secret = "octokit's secret";
  const rcv = receiver();
  const url = await rcv.listen();
  try {
    await admin.rest.repos.createForAuthenticatedUser({ name: "hooked", auto_init: true });
    const { data: me } = await admin.rest.users.getAuthenticated();
    const owner = me.login, repo = "hooked";
    const { data: hook } = await admin.rest.repos.createWebhook({
      owner, repo, config: { url, content_type: "json", secret }, events: ["issues", "issue_comment"],
    });
    assert.equal(hook.config.secret, "********");
    const { data: issue } = await admin.rest.issues.create({ owner, repo, title: "verify me" });
    await admin.rest.issues.createComment({ owner, repo, issue_number: issue.number, body: "and me" });
    const names = (list) => list.map((d) => d.headers["x-github-event"]);
    await rcv.until((list) => ["ping", "issues", "issue_comment"].every((n) => names(list).includes(n)));

    const webhooks = new Webhooks({ secret });
    const handled = [];
    webhooks.on("issues.opened", ({ payload }) => handled.push(`issues.opened:${payload.issue.title}`));
    webhooks.on("issue_comment.created", ({ payload }) => handled.push(`issue_comment.created:${payload.comment.body}`));
    for (const d of rcv.got) {
      const sig = d.headers["x-hub-signature-256"];
      assert.ok(await webhooks.verify(d.body, sig), `signature of ${d.headers["x-github-event"]}`);
      assert.equal(await webhooks.verify(d.body + " ", sig), false, "a changed body must not verify");
      await webhooks.verifyAndReceive({
        id: d.headers["x-github-delivery"], name: d.headers["x-github-event"], payload: d.body, signature: sig,
      });
    }
    assert.deepEqual(handled.sort(), ["issue_comment.created:and me", "issues.opened:verify me"]);
    // A wrong secret does not verify.
    const wrong = new Webhooks({ secret: "not it" });
    assert.equal(await wrong.verify(rcv.got[0].body, rcv.got[0].headers["x-hub-signature-256"]), false);

    // The delivery log through Octokit (a delivery is logged just after
    // the receiver answered).
    let deliveries = [];
    for (let i = 0; i < 600 && deliveries.length < 3; i++) {
      ({ data: deliveries } = await admin.rest.repos.listWebhookDeliveries({ owner, repo, hook_id: hook.id }));
      if (deliveries.length < 3) await new Promise((r) => setTimeout(r, 100));
    }
    assert.equal(deliveries.length, 3);
    assert.ok(deliveries.every((d) => d.status_code === 202));
  } finally {
    await rcv.close();
  }
});
