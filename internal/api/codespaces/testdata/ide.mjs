// Opens a codespace's web_url in Playwright, driving Debian's chromium: run
// by TestCodespaceInBrowser (browser_test.go), which passes everything in
// the environment. The owner's browser (their hubd session's cookies) must
// end on the IDEs' origin with the workbench listing the repository; another
// user's browser must be refused. Prints what it saw as JSON.
import { createRequire } from 'node:module';
import path from 'node:path';

const require = createRequire(import.meta.url);
const { chromium } = require('playwright-core');

const env = (k) => {
  const v = process.env[k];
  if (!v) throw new Error(`${k} is not set`);
  return v;
};
const webURL = env('HUBD_WEB_URL');

const browser = await chromium.launch({
  executablePath: env('HUBD_CHROMIUM'),
  args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
});
const out = {};
try {
  const owner = await browser.newContext();
  await owner.addCookies(JSON.parse(env('HUBD_OWNER_COOKIES')));
  const page = await owner.newPage();
  // The workbench loads slowly on a loaded host: the same bound as the wait below.
  await page.goto(webURL, { timeout: 180000 });
  out.files = await (await page.waitForFunction(() => {
    const names = [...document.querySelectorAll('.explorer-folders-view .monaco-list-row .label-name')].map((e) => e.textContent.trim());
    return ['README.md', 'cmd'].every((n) => names.includes(n)) ? names : null;
  }, null, { timeout: 180000, polling: 200 })).jsonValue();
  out.ownerURL = page.url();
  await page.screenshot({ path: path.join(env('HUBD_ARTIFACTS'), 'codespace-workbench-1280.png') });

  const other = await browser.newContext();
  await other.addCookies(JSON.parse(env('HUBD_OTHER_COOKIES')));
  const page2 = await other.newPage();
  const resp = await page2.goto(webURL, { timeout: 180000 });
  out.otherStatus = resp.status();
  out.otherURL = page2.url();
} finally {
  await browser.close();
}
console.log(JSON.stringify(out));
