// Time to first render of a memfloor HTML report in headless Chromium: loads the page from file://
// and prints the seconds from navigation start until its script has built the page (report.js
// marks the body with data-rendered="1" and a performance mark at its end), or "timeout" when that
// does not happen within --timeout seconds, or "error: ..." when the page could not draw.
//
//   node bench/render_time.mjs --chromium /usr/bin/chromium --html page.html [--timeout 120] \
//        [--screenshot page.png]
//
// puppeteer-core is the one tests/html/node_modules holds (scripts/setup.sh installs it).
import {createRequire} from 'node:module';
import {pathToFileURL} from 'node:url';
import {parseArgs} from 'node:util';

const require = createRequire(new URL('../tests/html/package.json', import.meta.url));
const {default: puppeteer} = await import(pathToFileURL(require.resolve('puppeteer-core')).href);

const {values: args} = parseArgs({
  options: {
    chromium: {type: 'string', default: '/usr/bin/chromium'},
    html: {type: 'string'},
    timeout: {type: 'string', default: '120'},
    screenshot: {type: 'string'},
  },
});
if (!args.html) {
  console.error('render_time: --html is required');
  process.exit(2);
}
const limitMs = Number(args.timeout) * 1000;

// Drawn: the marker, or (pages written before it) the loading line replaced by the report. Failed:
// the entry's own message, or a script that stopped before replacing the loading line.
const state = () => {
  const root = document.getElementById('report');
  if (document.body && document.body.dataset.rendered === '1') return 'drawn';
  if (root && root.querySelector('p.warning.bad')) return 'failed: ' + root.textContent;
  if (root && !root.querySelector('p.loading') && root.childElementCount) return 'drawn';
  return document.readyState === 'loading' ? '' : 'failed: the script did not draw the page';
};

const browser = await puppeteer.launch({
  executablePath: args.chromium,
  headless: true,
  protocolTimeout: limitMs + 60000,
  args: ['--no-sandbox', '--disable-gpu', '--disable-dev-shm-usage', '--no-first-run'],
});
let result;
try {
  const page = await browser.newPage();
  await page.setViewport({width: 1280, height: 800});
  const errors = [];
  page.on('pageerror', (err) => errors.push(err.message));
  const begun = Date.now();
  try {
    await page.goto(pathToFileURL(args.html).href, {waitUntil: 'domcontentloaded', timeout: limitMs});
    const left = Math.max(1, limitMs - (Date.now() - begun));
    const handle = await page.waitForFunction(state, {timeout: left, polling: 100});
    const drawn = await handle.jsonValue();
    if (drawn !== 'drawn') {
      result = 'error: ' + (errors[0] || drawn).slice(0, 200);
    } else {
      // The mark is since navigation start; a page without it: when its document was parsed, which
      // its inline script (run while parsing) comes before.
      const ms = await page.evaluate(() => {
        const mark = performance.getEntriesByName('memfloor-rendered')[0];
        if (mark) return mark.startTime;
        return performance.getEntriesByType('navigation')[0].domContentLoadedEventEnd;
      });
      result = (ms / 1000).toFixed(2);
      if (args.screenshot) await page.screenshot({path: args.screenshot, fullPage: false});
    }
  } catch (e) {
    result = e.name === 'TimeoutError' || /timeout/i.test(e.message) ? 'timeout' : 'error: ' + e.message.slice(0, 200);
  }
} finally {
  // A renderer stuck in a page of hundreds of MB may not answer: do not wait on it.
  await Promise.race([browser.close(), new Promise((done) => setTimeout(done, 10000))]);
  browser.process()?.kill('SIGKILL');
}
console.log(result);
