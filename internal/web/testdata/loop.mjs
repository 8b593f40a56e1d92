// The pull request loop of issue 31 in Playwright, driving Debian's
// chromium: run by TestPullRequestLoopPlaywright (browser_playwright_test.go),
// which starts hubd with the fixture and passes everything in the
// environment. Phase "review": mona opens a pull request from the compare
// page and sees its check run; rita approves it with an inline comment made
// from the diff; mona merges it with squash. Phase "after" (once the jobs
// have run): the linked issue is closed and mona deletes the branch. Phase
// "run" (TestWorkflowRunPlaywright): a run's page, a job's log and
// re-running the failed job. Phase "live" (TestLiveChecksPlaywright), with
// the pages' CSP enforced: mona keeps an open pull request's page open,
// pushes a workflow to its branch through the contents API and watches
// the check run appear in progress and its log arrive, on the pull
// request's page and on the run's page, opening the job's gates (files
// the workflow waits for) one by one, until the check completes — all
// without reloading the pull request's page.
// Every page is checked with axe-core; serious or critical violations fail
// the run. Screenshots at 1280 and 390 px go to HUBD_ARTIFACTS.
import { createRequire } from 'node:module';
import path from 'node:path';

const require = createRequire(import.meta.url);
const { chromium } = require('playwright-core');
const axePath = require.resolve('axe-core/axe.min.js');

const env = (k) => {
  const v = process.env[k];
  if (!v) throw new Error(`${k} is not set`);
  return v;
};
const base = env('HUBD_URL');
const password = env('HUBD_PASSWORD');
const shots = env('HUBD_ARTIFACTS');
const phase = process.argv[2];

const browser = await chromium.launch({
  executablePath: env('HUBD_CHROMIUM'),
  args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
});
const violations = [];
const checked = [];

function fail(msg) {
  throw new Error(msg);
}

async function expectText(page, want, what) {
  const text = await page.innerText('body');
  if (!text.includes(want)) fail(`${what}: the page at ${page.url()} lacks ${JSON.stringify(want)}:\n${text.slice(0, 3000)}`);
}

// audit runs axe-core on the page and takes its screenshots.
async function audit(page, name) {
  if (!(await page.evaluate(() => !!globalThis.axe))) await page.addScriptTag({ path: axePath });
  const res = await page.evaluate(() => globalThis.axe.run(document, { resultTypes: ['violations'] }));
  for (const v of res.violations) {
    if (v.impact === 'serious' || v.impact === 'critical') {
      violations.push({ page: name, url: page.url(), id: v.id, impact: v.impact, help: v.help,
        nodes: v.nodes.slice(0, 5).map((n) => n.target.join(' ') + ' ' + n.failureSummary) });
    }
  }
  checked.push(name);
  for (const width of [1280, 390]) {
    await page.setViewportSize({ width, height: 900 });
    await page.screenshot({ path: path.join(shots, `pw-${name}-${width}.png`), fullPage: true });
  }
  await page.setViewportSize({ width: 1280, height: 900 });
}

// signIn signs login in a new browser context. axe is injected, which
// the pages' CSP forbids: the context bypasses the CSP, or (csp) keeps it
// and gets axe as an init script, which the CSP does not govern.
async function signIn(login, csp = false) {
  const ctx = await browser.newContext({ viewport: { width: 1280, height: 900 }, bypassCSP: !csp });
  if (csp) await ctx.addInitScript({ path: axePath });
  const page = await ctx.newPage();
  page.setDefaultTimeout(15000);
  await page.goto(base + '/login');
  if (checked.length === 0) await audit(page, 'login');
  await page.fill('input[name=login]', login);
  await page.fill('input[name=password]', password);
  await Promise.all([page.waitForNavigation(), page.click('button[type=submit]')]);
  await expectText(page, login, `signed in as ${login}`);
  return page;
}

try {
  if (phase === 'review') {
    const mona = await signIn('mona');
    await audit(mona, 'home');
    await mona.goto(base + '/mona/app/compare/main...feature');
    await mona.fill('#pr-body', 'Fixes #1');
    await audit(mona, 'compare');
    await Promise.all([mona.waitForNavigation(), mona.click('form.open-pull button[type=submit]')]);
    if (new URL(mona.url()).pathname !== '/mona/app/pull/2') fail(`after create: ${mona.url()}`);
    await expectText(mona, 'lint', 'the check run');
    await audit(mona, 'pull-open');

    const rita = await signIn('rita');
    await rita.goto(base + '/mona/app/pull/2/files');
    await audit(rita, 'files');
    await rita.click('a.ln[aria-label="Comment on new line 2"]');
    await rita.waitForSelector('#line-comment-body');
    await rita.fill('#line-comment-body', 'Louder is better.');
    await rita.check('form.line-comment input[value=APPROVE]');
    await audit(rita, 'files-comment');
    await Promise.all([rita.waitForNavigation(), rita.click('form.line-comment button[type=submit]')]);
    await expectText(rita, 'Louder is better.', "rita's inline comment");

    await mona.goto(base + '/mona/app/pull/2');
    await expectText(mona, 'approved these changes', "rita's review");
    await expectText(mona, 'Louder is better.', "rita's comment");
    await mona.check('input[name=merge_method][value=squash]');
    await Promise.all([mona.waitForNavigation(), mona.click('form[action$="/merge"] button[type=submit]')]);
    await expectText(mona, 'successfully merged', 'the merge');
    await audit(mona, 'pull-merged');
  } else if (phase === 'after') {
    const mona = await signIn('mona');
    await mona.goto(base + '/mona/app/issues/1');
    await expectText(mona, 'Closed', 'the linked issue');
    await audit(mona, 'issue-closed');
    await mona.goto(base + '/mona/app/pull/2');
    await Promise.all([mona.waitForNavigation(), mona.click('form[action$="/delete-branch"] button[type=submit]')]);
    await expectText(mona, 'The head branch was deleted.', 'the branch deletion');
    await audit(mona, 'pull-branch-deleted');
    await mona.goto(base + '/mona/app/pulls?state=closed');
    await expectText(mona, 'Shout two', 'the closed pull requests');
    await audit(mona, 'pulls');
  } else if (phase === 'run') {
    // A workflow run's page, a job's log, and re-running the failed job.
    const mona = await signIn('mona');
    const run = base + env('HUBD_RUN_PATH');
    await mona.goto(run);
    await expectText(mona, 'failure', 'the run');
    await audit(mona, 'run');
    await Promise.all([mona.waitForNavigation(), mona.click('#jobs a:has-text("build")')]);
    await expectText(mona, 'hello-from-step <b>', "the build job's log");
    await audit(mona, 'job');
    await mona.goto(run);
    await Promise.all([mona.waitForNavigation(), mona.click('form[action$="/rerun-failed-jobs"] button[type=submit]')]);
  } else if (phase === 'live') {
    const token = env('HUBD_TOKEN');
    const api = async (method, p, body) => {
      const r = await fetch(base + '/api/v3' + p, { method, body: body && JSON.stringify(body),
        headers: { Authorization: 'token ' + token, Accept: 'application/vnd.github+json', 'Content-Type': 'application/json' } });
      if (!r.ok) fail(`${method} ${p}: ${r.status} ${await r.text()}`);
      return r.json();
    };
    const put = (file, branch, text) => api('PUT', '/repos/mona/app/contents/' + file,
      { message: 'Add ' + file, branch, content: Buffer.from(text).toString('base64') });
    const mona = await signIn('mona', true);
    await mona.goto(base + '/mona/app/pull/1');
    await mona.evaluate(() => { globalThis.stayed = true; }); // gone if the page reloads
    await put('.github/workflows/live.yml', 'feature', env('HUBD_WORKFLOW'));
    await mona.waitForSelector('#checks .check:has-text("slow") .s-in_progress', { timeout: 60000 });
    await mona.waitForSelector('#checks pre.live-tail:has-text("line-one")', { timeout: 60000 });
    await audit(mona, 'pull-live');
    await put('gate1.txt', 'main', 'go\n');
    await mona.waitForSelector('#checks pre.live-tail:has-text("line-two")', { timeout: 60000 });

    const { workflow_runs: runs } = await api('GET', '/repos/mona/app/actions/runs');
    const run = await mona.context().newPage();
    run.setDefaultTimeout(15000);
    await run.goto(base + '/mona/app/actions/runs/' + runs[0].id);
    await run.waitForSelector('#jobs pre.live-tail:has-text("line-two")', { timeout: 60000 });
    await audit(run, 'run-live');
    await put('gate2.txt', 'main', 'go\n');
    await run.waitForSelector('#run-status:has-text("success")', { timeout: 60000 });
    await mona.waitForSelector('#checks .check:has-text("slow") .s-success', { timeout: 60000 });
    await expectText(mona, 'All checks have passed', 'the summary');
    if (!(await mona.evaluate(() => globalThis.stayed === true))) fail('the pull request page reloaded');
    if (await mona.$('#checks pre.live-tail')) fail('a completed check still shows a live log');
  } else {
    fail(`unknown phase ${phase}`);
  }
} finally {
  await browser.close();
}
console.log(JSON.stringify({ phase, checked, violations }));
process.exit(violations.length ? 2 : 0);
