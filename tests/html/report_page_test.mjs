// Loads a memfloor HTML report in headless Chromium (puppeteer-core, Debian's chromium) from
// file:// and checks what a reader sees: no console or page error, no request leaves the page,
// the fixture's numbers and texts are in the DOM, hostile strings are text and injected nothing.
// Writes a full-page screenshot.
//
//   node report_page_test.mjs --chromium /usr/bin/chromium --html page.html --screenshot page.png \
//        --plain-html plain.html --detected-html detected.html --peaks-html peaks.html \
//        --blocks-html blocks.html --held-html held.html --census-html census.html --ranges-html ranges.html \
//        --trend-html trend.html
// page.html: two_runs.report.json with its gate; plain.html: one_run_no_markers.report.json alone;
// detected.html: a model trace analyzed with its markers ignored; peaks.html: a model trace
// analyzed by this build, with the peaks' compositions the shipped reports predate; blocks.html:
// the caching allocator fixture (testdata/analysis/caching_allocator.txt) with its gate against
// itself; held.html: testdata/reports/held_by.report.json, with idle censuses (held_by);
// census.html: the census fixture (testdata/analysis/census_holders.txt) analyzed by this build;
// ranges.html: fixtures/ranges.report.json (memfloor.report/3: rows kept whole and ranges of alike
// iterations), whose screenshot is written beside page.png as ranges.png, and from which a page of
// 30,001 iterations is made (ranges-long.html beside it) to check that a long run's page stays light;
// trend.html: the steady leak fixture (testdata/analysis/leak_trend.txt) analyzed by this build, a
// trend range; holders.html: the PyTorch holders fixture (testdata/analysis/torch_holders_graph.txt)
// analyzed with the checker's findings on the seed's Python source, read at 1024 px.
import puppeteer from 'puppeteer-core';
import fs from 'node:fs';
import path from 'node:path';
import {pathToFileURL} from 'node:url';
import {parseArgs} from 'node:util';

const {values: args} = parseArgs({
  options: {
    chromium: {type: 'string'},
    html: {type: 'string'},
    screenshot: {type: 'string'},
    'plain-html': {type: 'string'},
    'detected-html': {type: 'string'},
    'peaks-html': {type: 'string'},
    'blocks-html': {type: 'string'},
    'held-html': {type: 'string'},
    'census-html': {type: 'string'},
    'ranges-html': {type: 'string'},
    'trend-html': {type: 'string'},
    'holders-html': {type: 'string'},
  },
});
for (const name of ['chromium', 'html', 'screenshot', 'plain-html', 'detected-html', 'peaks-html', 'blocks-html', 'held-html',
  'census-html', 'ranges-html', 'trend-html', 'holders-html']) {
  if (!args[name]) {
    console.error(`report_page_test: --${name} is required`);
    process.exit(2);
  }
}

const HOSTILE = '</script><img src=x onerror=alert(1)>';
const failures = [];
let passed = 0;
function check(condition, what) {
  if (condition) {
    passed++;
  } else {
    failures.push(what);
    console.error('FAIL: ' + what);
  }
}

const browser = await puppeteer.launch({
  executablePath: args.chromium,
  headless: true,
  // Root in CI and containers: Chromium's sandbox needs user namespaces that are not there.
  args: ['--no-sandbox', '--disable-gpu', '--disable-dev-shm-usage', '--no-first-run'],
});
// Opens `file` from file:// and records every console error or warning, page error, dialog and
// request other than the page itself in `problems`.
async function openPage(file) {
  const page = await browser.newPage();
  await page.setViewport({width: 1280, height: 800});  // a laptop screen
  const problems = [];
  page.on('console', (msg) => {
    if (msg.type() === 'error' || msg.type() === 'warn') problems.push(`console ${msg.type()}: ${msg.text()}`);
  });
  page.on('pageerror', (err) => problems.push('page error: ' + err.message));
  page.on('dialog', async (dialog) => {
    problems.push('dialog opened: ' + dialog.message());
    await dialog.dismiss();
  });
  const url = pathToFileURL(file).href;
  page.on('request', (req) => {
    if (req.url() !== url && !req.url().startsWith('data:')) problems.push('request left the page: ' + req.url());
  });
  page.on('requestfailed', (req) => problems.push('request failed: ' + req.url()));
  const response = await page.goto(url, {waitUntil: 'load'});
  check(response === null || response.ok(), 'the page loads: ' + file);
  return {page, problems};
}

// Opens `file` and runs `checks(page)` on it; its problems (openPage) fail, and so do checks that
// stop (an element missing: the page did not draw).
async function checkedPage(name, file, checks) {
  const {page, problems} = await openPage(file);
  try {
    await checks(page);
  } catch (e) {
    check(false, `the checks of the ${name} page stopped: ` + e.message);
  }
  for (const p of problems) check(false, p);
}

// What a hostile string could have injected into `page`: elements that load or run, script
// elements, event handler attributes.
const injectedInto = (page) => page.evaluate(() => ({
  img: document.querySelectorAll('img, iframe, object, embed').length,
  scripts: document.querySelectorAll('script').length,
  handlers: [...document.querySelectorAll('*')].filter((el) =>
    [...el.attributes].some((a) => a.name.toLowerCase().startsWith('on'))).length,
}));

try {
  const {page, problems} = await openPage(args.html);  // kept open: held-by is checked absent at the end
  try {
    await checkPage(page);
  } catch (e) {
    check(false, 'the checks stopped: ' + e.message);  // an element missing: the page did not draw
  }
  // Taken whatever the checks found: it is the artefact to look at when they fail.
  await page.screenshot({path: args.screenshot, fullPage: true});
  console.log('screenshot: ' + args.screenshot);
  for (const p of problems) check(false, p);

  // One run without markers, findings or gate: the page draws what there is and says what is not.
  const plain = await openPage(args['plain-html']);
  try {
    const has = async (selector) => (await plain.page.$(selector)) !== null;
    check(!(await has('#runs')) && !(await has('#gate')), 'one run: no runs table, no gate section');
    check(!(await has('#worst-idle-floor')), 'no worst idle floor without idle windows');
    check((await plain.page.$$('figure.chart svg .last')).length === 1, 'one run: its chart is drawn');
    const body = await plain.page.evaluate(() => document.body.innerText);
    for (const text of ['No marker matched', 'The trace is incomplete', 'Records were dropped', 'No iterations.',
      'No findings file was given', 'no run has an idle window']) {
      check(body.includes(text), `one run: the page says "${text}"`);
    }
  } catch (e) {
    check(false, 'the checks of the plain page stopped: ' + e.message);
  }
  for (const p of plain.problems) check(false, p);

  // A model trace analyzed with its markers ignored: iterations detected, and the page says how.
  const detected = await openPage(args['detected-html']);
  try {
    const body = await detected.page.evaluate(() => document.body.innerText);
    for (const text of ['iterations were detected', 'Period ', 'refmodel::hcMapping', '3 from detected']) {
      check(body.includes(text), `detected: the page says "${text}"`);
    }
    check(!body.includes('there are no iterations'), 'detected: no "no iterations" warning');
    const [chart] = await detected.page.$$('figure.chart svg');  // device memory
    const bands = (await chart.$$('.idle-band')).length;
    check(bands === 3, `detected: the device chart shades three idle windows (${bands})`);
  } catch (e) {
    check(false, 'the checks of the detected page stopped: ' + e.message);
  }
  for (const p of detected.problems) check(false, p);

  // A model trace analyzed now: per memory, what is live at each iteration's peak.
  await checkedPage('peaks', args['peaks-html'], checkPeaks);

  // The first screen at 1024 x 768 answers: the top holder, its bytes and the finding that names it,
  // without scrolling; nothing is cut at the page's edge (a wide table scrolls inside its box).
  await checkedPage('holders', args['holders-html'], async (page) => {
    await page.setViewport({width: 1024, height: 768});
    await page.reload({waitUntil: 'load'});
    const first = await page.evaluate(() => {
      const row = document.querySelector('#answer table.answer tbody tr');
      if (!row) return null;
      const link = row.querySelector('td.explained-by a');
      return {path: row.cells[0].textContent, bytes: row.cells[1].textContent, finding: link ? link.textContent : '',
        href: link ? link.getAttribute('href') : '', bottom: row.getBoundingClientRect().bottom, height: innerHeight};
    });
    check(first !== null, 'holders: the first screen lists holders');
    check(first.path === 'holders.py:main.model.layers[0].mlp_norm_manager.tensor' && first.bytes === '64.0 MiB',
      `holders: the top holder and its bytes come first (${first.path}, ${first.bytes})`);
    check(first.finding === 'MF001 testdata/checker/python/seed_offload_manager.py:60',
      `holders: the finding that names the top holder is beside it (${first.finding})`);
    check(first.bottom <= first.height, `holders: the top holder is on the first screen (bottom ${first.bottom})`);
    check((await page.$(first.href)) !== null, 'holders: the finding link leads to its card');
    const card = await page.$eval(first.href, (el) => el.textContent);
    check(card.includes('Names the holders that keep up to 128.0 MiB'), 'holders: the finding card names the bytes it holds');
    const summary = await page.$eval('#summary', (el) => el.textContent);
    check(summary.includes('2 of them explain retained bytes or name their holders'), 'holders: the summary counts the link');
    const layout = await page.evaluate(() => ({
      page: document.documentElement.scrollWidth - document.documentElement.clientWidth,
      cut: [...document.querySelectorAll('.table-wrap, figure, .cards, .finding, details, section')]
        .filter((el) => el.scrollWidth > el.clientWidth + 1 && !['auto', 'scroll'].includes(getComputedStyle(el).overflowX))
        .map((el) => el.tagName + '.' + el.className),
    }));
    check(layout.page <= 0, `holders: nothing is wider than the page at 1024 px (${layout.page} px more)`);
    check(layout.cut.length === 0, `holders: nothing is cut at a box's edge at 1024 px (${layout.cut.slice(0, 5)})`);
    // The allocated level is drawn first; static device memory with nothing retained is one line.
    const headings = await page.$$eval('.memory h3', (els) => els.map((el) => el.textContent));
    check(headings[0].startsWith('device 0 \u00b7 allocated memory'), `holders: allocated memory first (${headings})`);
    // The chart: by iteration (its labels are iteration numbers); a drag zooms in, hovering reads the
    // bytes, a double click zooms out.
    const ticksOf = () => page.$eval('#run-0 figure.chart', (c) => [...c.querySelectorAll('svg .tick')].map((t) => t.textContent));
    await page.$eval('#run-0 figure.chart', (el) => el.scrollIntoView());
    const before = await ticksOf();
    check(before.includes('1') && before.includes('8'), `holders: the x axis is labelled by iteration (${before})`);
    const box = await (await page.$('#run-0 figure.chart svg')).boundingBox();
    await page.mouse.move(box.x + box.width * 0.3, box.y + box.height / 2);
    await page.mouse.down();
    await page.mouse.move(box.x + box.width * 0.55, box.y + box.height / 2, {steps: 4});
    await page.mouse.up();
    const zoomed = await ticksOf();
    check(JSON.stringify(zoomed) !== JSON.stringify(before) && !zoomed.includes('8'),
      `holders: a drag across the chart zooms in (${zoomed})`);
    check((await page.$eval('#run-0 figure.chart .chart-toolbar', (el) => [...el.querySelectorAll('button')].map((b) => b.textContent)))
      .includes('whole run'), 'holders: zoomed in, a button leads back to the whole run');
    const zbox = await (await page.$('#run-0 figure.chart svg')).boundingBox();
    await page.mouse.move(zbox.x + zbox.width * 0.5, zbox.y + zbox.height / 2);
    const tip = await page.$eval('#run-0 figure.chart .chart-tip', (el) => [el.hidden, el.textContent]);
    check(!tip[0] && /iteration \d/.test(tip[1]) && tip[1].includes('live '), `holders: hovering reads the bytes (${tip})`);
    await page.mouse.click(zbox.x + zbox.width * 0.5, zbox.y + zbox.height / 2, {clickCount: 2});
    check(JSON.stringify(await ticksOf()) === JSON.stringify(before), 'holders: a double click shows the whole run again');
    check(!headings.some((x) => x.includes('static')) &&
      (await page.$eval('#run-0-quiet', (el) => el.textContent)).includes('static device memory'),
    'holders: static device memory folds into one line');
  });

  // Blocks: the allocator's two floors, named reserved and allocated; the headline is the allocated one.
  const blocks = await openPage(args['blocks-html']);
  try {
    const text = async (selector) => blocks.page.$eval(selector, (el) => el.textContent).catch(() => null);
    const texts = async (selector) => blocks.page.$$eval(selector, (els) => els.map((el) => el.textContent));
    check((await text('#worst-idle-floor')) === '9.00 MiB', 'blocks: the headline floor is the allocated 9.00 MiB');
    check((await text('#worst-reserved-floor')) === '22.0 MiB', 'blocks: the reserved 22.0 MiB beside it');
    check((await text('#summary')).includes('allocated memory (allocator blocks)'), 'blocks: the summary names allocated memory');
    const headings = await texts('.memory h3');
    // What the program keeps first: the allocated level, then the allocator's reserved one.
    check(headings.length === 2 && headings[0].startsWith('device 0 \u00b7 allocated memory (allocator blocks)') &&
      headings[1].startsWith('device 0 \u00b7 reserved memory (allocator segments)'), `blocks: allocated and reserved headings (${headings})`);
    const legends = await texts('figure.chart .legend');
    check(legends.length === 2 && legends[0].includes('allocated idle floor') && legends[1].includes('reserved live bytes'),
      'blocks: the chart legends name the level');
    check((await texts('#run-0 svg .floor-label')).includes('steady allocated idle floor 9.00 MiB'), 'blocks: the steady allocated floor is labelled');
    const cells = await texts('table.sites td.nowrap');
    check(cells.includes('device 0 \u00b7 allocated') && cells.includes('device 0 \u00b7 reserved'), `blocks: sites name their memory (${cells})`);
    // The blocks' sites first, before the segments'; a cached column for the reserved level only, and
    // its trend said to be out of the verdict.
    const siteMemory = cells.filter((c) => c.startsWith('device 0'));
    const firstReserved = siteMemory.indexOf('device 0 \u00b7 reserved');
    check(firstReserved > 0 && siteMemory.slice(firstReserved).every((c) => c === 'device 0 \u00b7 reserved'),
      `blocks: the allocated sites are listed before the reserved ones (${siteMemory})`);
    const iterationHeads = await blocks.page.$$eval('table.iterations', (tables) =>
      tables.map((t) => [...t.querySelectorAll('thead th')].map((th) => th.textContent)));
    check(iterationHeads.length === 2 && !iterationHeads[0].includes('cached') && iterationHeads[1].includes('cached'),
      `blocks: a cached column for the reserved level only (${JSON.stringify(iterationHeads)})`);
    const peakHeads = await blocks.page.$$eval('table.peaks', (tables) =>
      tables.map((t) => [...t.querySelectorAll('thead th')].map((th) => th.textContent)));
    check(peakHeads.length === 2 && !peakHeads[0].includes('cached') && peakHeads[1].includes('cached'),
      `blocks: the reserved level's peaks have a cached column (${JSON.stringify(peakHeads)})`);
    const trends = await texts('.memory p.trend');
    check(trends.length === 2 && !trends[0].includes('verdict') && trends[1].includes('not in the run\u2019s verdict'),
      `blocks: the reserved trend is said to be out of the verdict (${trends})`);
    const gateCells = await texts('#gate td.nowrap');
    check(gateCells.includes('device 0 \u00b7 allocated') && gateCells.includes('device 0 \u00b7 reserved'), 'blocks: gate checks name their memory');
    const body = await blocks.page.evaluate(() => document.body.innerText);
    check(!body.includes('block memory') && !/\u00b7 (device|block)\b/.test(body),
      'blocks: no raw kind name where a level applies');
  } catch (e) {
    check(false, 'the checks of the blocks page stopped: ' + e.message);
  }
  for (const p of blocks.problems) check(false, p);

  // Idle censuses: per window and device, the Python paths holding its memory.
  await checkedPage('held', args['held-html'], checkHeld);
  await checkedPage('census', args['census-html'], checkCensus);
  // Ranges of alike iterations (memfloor.report/3), and a long run made of them.
  await checkedPage('ranges', args['ranges-html'], async (p) => {
    await checkRanges(p);
    await p.screenshot({path: path.join(path.dirname(args.screenshot), 'ranges.png'), fullPage: true});
  });
  await checkedPage('long', longPage(args['ranges-html']), checkLong);
  await checkedPage('trend', args['trend-html'], checkTrend);
  // Reports without censuses have no such section.
  for (const [name, p] of [['two_runs', page], ['plain', plain.page], ['blocks', blocks.page]]) {
    check((await p.$('.held-by, .census-outside, details.census')) === null, `${name}: no held-by section`);
  }
} finally {
  await browser.close();
}
console.log(`${passed} passed, ${failures.length} failed`);
process.exit(failures.length ? 1 : 0);

// The peaks of combined-loss-bug.mftrace (4 iterations; device memory, and static device memory,
// which keeps nothing of an iteration: one line, no table): each row's classes add up to its peak (the exact bytes are the cells' titles), the largest peak is
// marked, and the top sites fold out with a class and a stack each.
async function checkPeaks(page) {
  const tables = await page.$$('table.peaks');
  check(tables.length === 1, `one peaks table per memory but the static one (${tables.length})`);
  const rows = await page.$$eval('table.peaks tbody tr', (trs) => trs.map((tr) =>
    [...tr.cells].map((c) => ({text: c.textContent, title: c.title}))));
  check(rows.length === 4, `a row per iteration (${rows.length})`);
  const bytes = (cell) => Number(cell.title.replace(/[^0-9]/g, ''));
  for (const [i, row] of rows.entries()) {
    const classes = row.slice(3, 8).reduce((sum, cell) => sum + bytes(cell), 0);
    check(bytes(row[1]) > 0 && classes === bytes(row[1]),
      `row ${i}: the classes sum to the peak (${classes} of ${row[1].title})`);
  }
  check(rows[0][0].text === '1' && rows[0][1].title === '115,829,628 bytes' &&
    rows[0][7].title === '109,992,816 bytes' && rows[0][2].text.startsWith('+'),
    `iteration 1 of device memory: peak, persistent bytes, when (got ${JSON.stringify(rows[0])})`);
  const marked = await page.$$eval('table.peaks tr.largest-peak', (trs) => trs.map((tr) => tr.cells[0].textContent));
  check(marked.length === 1 && marked[0] === '1', `the first largest peak is marked (${marked})`);
  const items = await tables[0].$$eval('tbody tr:first-child ol.peak-sites > li', (lis) =>
    lis.map((li) => ({badge: li.querySelector('.badge').textContent, stack: li.querySelector('details, .muted') !== null,
      name: li.querySelector('.mono').textContent, stacks: li.querySelectorAll('details').length})));
  // Ten sites, those of one name one item with each stack folded out: "(3 stacks)".
  const stacksOf = (x) => Number((/ \((\d+) stacks\)$/.exec(x.name) || [0, 1])[1]);
  check(items.reduce((sum, x) => sum + stacksOf(x), 0) === 10 &&
    new Set(items.map((x) => x.name)).size === items.length &&
    items.every((x) => x.stacks === stacksOf(x)),
    `iteration 1 lists its ten top sites at the peak, one item per name (${JSON.stringify(items)})`);
  check(items.every((x) => ['iteration', 'persistent'].includes(x.badge) && x.stack),
    'each site has its class and its stack');
}

// What a reader sees: numbers and texts of testdata/reports/two_runs.*.json, hostile strings as text.
async function checkPage(page) {
  const text = async (selector) => page.$eval(selector, (el) => el.textContent).catch(() => null);
  const texts = async (selector) => page.$$eval(selector, (els) => els.map((el) => el.textContent));

  // The summary: the worst run and its steady idle floor as the page formats it (600 MiB).
  check((await text('#worst-idle-floor')) === '600.0 MiB', 'worst idle floor reads 600 MiB');
  check((await text('#worst-run')) === 'rank 1', 'worst run is named rank 1');
  check((await page.$eval('#worst-idle-floor', (el) => el.title)) === '629,145,600 bytes',
    'worst idle floor has its exact bytes as a tooltip');
  check((await text('#summary')).includes('growing'), 'the summary shows the verdict growing');

  // The per-run table with the worst run marked.
  const worstRows = await texts('#runs-table tr.worst');
  check(worstRows.length === 1 && worstRows[0].includes('rank 1') && worstRows[0].includes('worst'),
    'the runs table marks rank 1 as the worst');
  check((await texts('#runs-table tbody tr')).length === 2, 'the runs table has two rows');
  // The floors side by side, the worst rank first, its bar the full width.
  const floorRows = await texts('#run-floors .run-floor');
  check(floorRows.length === 2 && floorRows[0].includes('rank 1') && floorRows[0].includes('600.0 MiB') &&
    floorRows[1].includes('rank 0'), 'the per-run floors list rank 1 (600 MiB) first, then rank 0');
  check((await page.$$('#run-floors .run-floor.worst')).length === 1, 'one per-run floor is the worst');
  const widths = await page.$$eval('#run-floors .run-floor-bar', (bars) => bars.map((b) => b.style.width));
  check(parseFloat(widths[0]) === 100 && parseFloat(widths[1]) < 100, 'the worst floor\'s bar is the widest');

  // The gate's baseline idle floor on each chart it checked: rank 1's device memory regressed.
  const baselines = await page.$$eval('figure.chart svg .gate-baseline', (ls) => ls.map((l) =>
    [l.closest('section').id, l.classList.contains('regressed'), l.querySelector('title').textContent]));
  check(baselines.some(([run, regressed, title]) => run === 'run-1' && regressed && title.includes('576.0 MiB') &&
    title.includes('a regression')) && baselines.some(([run, regressed]) => run === 'run-0' && !regressed),
  `the gate's baselines are drawn, rank 1's as a regression (${JSON.stringify(baselines)})`);
  // One chart per run and memory kind: rank 0 device and pinned, rank 1 device.
  check((await page.$$('figure.chart svg')).length === 3, 'three live-bytes charts');
  check((await page.$$('#run-1 svg .floor-mark')).length === 4, 'rank 1 marks four idle floors');
  check((await page.$$('#run-1 svg .idle-band')).length === 4, 'rank 1 shades four idle windows');
  check((await text('#run-1 svg .floor-label')) === 'steady idle floor 600.0 MiB', 'the steady floor is labelled');

  // The per-iteration table of rank 1: iteration 3 is the steady floor.
  const row3 = await page.$eval('#run-1 table.iterations tr.worst', (tr) => [...tr.cells].map((c) => c.textContent));
  check(row3[0] === '3' && row3[4] === '600.0 MiB' && row3[7] === '24.0 MiB' && row3[9] === '64.0 MiB' &&
    row3[10] === '536.0 MiB', `rank 1 iteration 3 row: peak, idle floor 600 MiB, leak 24.0 MiB, explained 64.0 MiB, unexplained 536 MiB (got ${row3})`);

  // The retaining sites with their stacks.
  const sites = await texts('#run-1 table.sites td.where');
  check(sites.some((s) => s.includes('HyperConnectionTransformerLayer::forwardPostMlpWithFusedHyperConnection')),
    'the hyper-connection site is listed');
  const frames = await texts('#run-1 ol.frames li');
  check(frames.includes('libcudart.so.13+0x4f2a0'), 'an unresolved frame reads module+offset');
  check(frames.includes('c10::cuda::CUDACachingAllocator::malloc (c10/cuda/CUDACachingAllocator.cpp:1020)'),
    'a resolved frame reads function (file:line)');

  // A report written before peak compositions says it has none.
  check((await texts('#run-1 p.muted')).some((t) => t.includes('no peak composition')),
    'the shipped report has no peak composition, and the page says so');

  // The findings: rule, file:line, the flagged snippet line, the bytes explained.
  const finding = '#finding-5c1e0d7a9b3f2e41';
  check((await text(`${finding} .badge`)) === 'MF001', 'finding MF001 is shown');
  check((await text(`${finding} .loc`)) === 'reference_model/hyper_connection_layer.cpp:53', 'its file:line');
  const flagged = await texts(`${finding} .snippet tr.flagged td`);
  check(flagged.length === 2 && flagged[0] === '53' && flagged[1].includes('groupOffload(mixed)') &&
    flagged[1].includes(HOSTILE), 'the snippet highlights line 53, hostile text included');
  check((await texts(`${finding} .snippet tr`)).length === 7, 'seven snippet lines');
  check((await text(`${finding} .explained`)) === '64.0 MiB', 'it explains 64.0 MiB');
  check((await texts('#finding-9a0b1c2d3e4f5061 .loc'))[0] === `src/"quoted" dir/${HOSTILE}.cpp:7`,
    'a hostile path shows as text');

  // The gate: verdict and the checks that regressed.
  check((await text('#gate h2 .badge')) === 'regression', 'the gate verdict is regression');
  const regressed = await texts('#gate-regressed tbody tr');
  check(regressed.length === 4, 'four checks regressed');
  check(regressed.some((r) => r.includes('idle_floor') && r.includes('rank 1') && r.includes('+24.0 MiB') &&
    r.includes('+4.2%')), 'the idle floor regression of rank 1: +24.0 MiB, +4.2%');

  // Hostile strings: shown as text everywhere, nothing injected.
  const body = await page.evaluate(() => document.body.innerText);
  const hostileCount = body.split(HOSTILE).length - 1;
  check(hostileCount >= 8, `hostile strings show as text (${hostileCount} times)`);
  check(body.includes('step 1 \'q\' "qq" ' + HOSTILE), 'a hostile marker name shows as text');
  const injected = await injectedInto(page);
  check(injected.img === 0, 'no injected img/iframe/object/embed element');
  check(injected.scripts === 3, 'only the page\'s three script elements');
  check(injected.handlers === 0, 'no element has an event handler attribute');

  const size = (await page.content()).length;
  check(size < 400000, `the page stays small (${size} characters)`);
}

// The held-by section of a report the analysis wrote (testdata/analysis/census_holders.txt): a
// census after each of the four iterations, two more not used.
async function checkCensus(page) {
  const texts = async (selector) => page.$$eval(selector, (els) => els.map((el) => el.textContent));
  const censuses = await page.$$eval('#run-0-held-by details.census', (ds) =>
    ds.map((d) => ({open: d.open, head: d.querySelector('summary').textContent})));
  check(censuses.length === 4 && censuses[3].open && !censuses[0].open,
    `census: four censuses, the last unfolded (${JSON.stringify(censuses)})`);
  const brief = await texts('#run-0-held-by p.census-summary');
  check(brief.length === 1 && brief[0].includes('4 idle windows with one; after iteration 4, named paths held 17.8 MiB of '),
    `census: the censuses in brief (${brief})`);
  check(censuses[3].head === 'After iteration 4 (the program\u2019s \u201citeration 4\u201d, optimizer step 4) \u00b7 device 0: held 17.8 MiB of ' +
    '19.8 MiB allocated, not seen 2.00 MiB', `census: the last census's header (${censuses[3].head})`);
  check((await texts('#run-0-held-by p.census-outside'))[0].startsWith(
    'Of 7 censuses taken, 2 fell inside an iteration and are not used: at +'), 'census: the two not used are noted');
  const facts = (await texts('#run-0-held-by details.census[open] dl.facts dd')).join(' | ');
  check(facts.includes('2.00 MiB in 1 block: kept by C++ only'), `census: not seen and its reason (${facts})`);
  const rows = await page.$$eval('#run-0-held-by details.census[open] table.holders tbody tr', (trs) =>
    trs.map((tr) => [...tr.cells].map((c) => c.textContent)));
  check(rows.length === 7 && rows[0][0].startsWith('model.weight') && rows[0][1] === '8.00 MiB',
    `census: seven holders, the weight first (${JSON.stringify(rows[0])})`);
  const planted = rows.find((r) => r[0].startsWith('model.layers[1].planted'));
  check(planted !== undefined && planted[2] === '2' && planted[3] === 'inter-iteration' &&
    planted[5] === 'replaced since the census at step 3' && planted[6].startsWith('model.py:40 in Model.forward'),
  `census: the planted attribute (${JSON.stringify(planted)})`);
  const parts = await page.$$eval('#run-0-held-by details.census[open] figure.held-bar rect', (rs) =>
    rs.map((r) => r.getAttribute('class')));
  check(JSON.stringify(parts) === '["held-persistent","held-inter_iteration","held-leak","held-not-seen"]',
    `census: the bar's parts (${parts})`);
}

// The held-by section of testdata/reports/held_by.report.json: censuses after iterations 1
// (stopped at its object limit) and 3 (unfolded), none after 2, one census inside iteration 2.
async function checkHeld(page) {
  const texts = async (selector) => page.$$eval(selector, (els) => els.map((el) => el.textContent));
  check((await page.$('#run-0-held-by h3')) !== null, 'held: the section is there');
  const censuses = await page.$$eval('#run-0-held-by details.census', (ds) =>
    ds.map((d) => ({open: d.open, head: d.querySelector('summary').textContent})));
  check(censuses.length === 2 && !censuses[0].open && censuses[1].open,
    `held: two censuses, the last unfolded (${JSON.stringify(censuses)})`);
  check(censuses[0].head.startsWith('After iteration 1 (the program\u2019s \u201ctrain_step 1\u201d, optimizer step 1) \u00b7 device 0') &&
    censuses[0].head.endsWith('incomplete'), `held: the first census is incomplete (${censuses[0].head})`);
  check(censuses[1].head === 'After iteration 3 (the program\u2019s \u201ctrain_step 3\u201d, optimizer step 3) \u00b7 device 0: held 1.22 GiB of ' +
    '1.23 GiB allocated, not seen 12.0 MiB', `held: the last census's header (${censuses[1].head})`);
  const warnings = await texts('#run-0-held-by details.census .warning');
  check(warnings.length === 1 && warnings[0].includes('object limit'), 'held: one warning, on the incomplete census');
  const facts = (await texts('#run-0-held-by details.census[open] dl.facts dd')).join(' | ');
  check(facts.includes('12.0 MiB in 2 allocations: kept by C++ only') &&
    facts.includes('530,000 objects walked in 1.20 s, at +4.4 ms'), `held: not seen, its reason, the census cost (${facts})`);
  check((await texts('#run-0-held-by p.census-outside'))[0] ===
    'Of 3 censuses taken, 1 fell inside an iteration and is not used: at +2.0 ms (device 0, step 2).',
  'held: the census inside iteration 2 is noted');

  // The holders by bytes, largest first (the fixture lists some out of order), the rest in a last row.
  const last = 'details.census[open] table.holders tbody tr';
  const rows = await page.$$eval(`#run-0-held-by ${last}`, (trs) => trs.map((tr) => ({
    cls: tr.className, path: tr.cells[0].textContent, title: tr.cells[1].title, text: tr.cells[1].textContent})));
  check(rows.length === 10, `held: nine holders and the row of those left out (${rows.length})`);
  const bytes = rows.slice(0, 9).map((r) => Number(r.title.replace(/[^0-9]/g, '')));
  check(bytes.every((b, i) => b > 0 && (i === 0 || b <= bytes[i - 1])), `held: rows sorted by bytes (${bytes})`);
  check(rows[0].path === 'model.layers[1].mlp_norm_manager.tensor' && rows[0].text === '384.0 MiB',
    `held: the largest holder first (${JSON.stringify(rows[0])})`);
  check(rows[9].cls === 'left-out' && rows[9].path === '5 more holders, not listed' && rows[9].text === '3.00 MiB',
    `held: the holders left out last (${JSON.stringify(rows[9])})`);
  const cells = await page.$$eval(`#run-0-held-by ${last}:not(.left-out)`, (trs) =>
    trs.map((tr) => [...tr.cells].slice(2, 6).map((c) => c.textContent)));
  check(JSON.stringify(cells[0]) === '["3","inter-iteration","other","replaced since the census at step 1"]',
    `held: storages, class, role and rule of a holder (${JSON.stringify(cells[0])})`);
  check((await texts(`#run-0-held-by ${last} .badge`)).filter((t) => t === 'shared').length === 2,
    'held: the two shared parameters are marked');

  // The autograd graph's nodes on a path fold out.
  const via = '#run-0-held-by details.census[open] details.via';
  const shown = async () => page.$$eval(`${via} ol.via-graph li`, (lis) =>
    lis.filter((li) => li.checkVisibility()).map((li) => li.textContent));
  check((await shown()).length === 0, 'held: the graph nodes are folded');
  await page.click(`${via} > summary`);
  const nodes = await shown();
  check(JSON.stringify(nodes) === '["MulBackward0","GeluBackward0","AddmmBackward0"]',
    `held: the graph nodes after unfolding, outermost first (${JSON.stringify(nodes)})`);

  // The bar: held bytes by class, then not seen.
  const parts = await page.$$eval('#run-0-held-by details.census[open] figure.held-bar rect', (rs) =>
    rs.map((r) => r.getAttribute('class')));
  check(JSON.stringify(parts) === '["held-persistent","held-inter_iteration","held-leak","held-not-seen"]',
    `held: the bar's parts (${parts})`);
  const legend = (await texts('#run-0-held-by details.census[open] figure.held-bar .legend'))[0];
  check(legend === 'persistent 779.0 MiBinter-iteration 450.0 MiBleak 16.0 MiBnot seen 12.0 MiB', `held: the legend (${legend})`);

  // A hostile path and site show as text; nothing is injected.
  const hostile = `cache['${HOSTILE}']`;
  check(rows.some((r) => r.path === hostile), 'held: a hostile path shows as text');
  check((await texts(`#run-0-held-by ${last} td.where`)).some((t) => t.startsWith('util.py:7 in ' + HOSTILE)),
    'held: a hostile site shows as text');
  const injected = await injectedInto(page);
  check(injected.img === 0 && injected.scripts === 3 && injected.handlers === 0,
    `held: nothing injected (${JSON.stringify(injected)})`);
}

// What fixtures/ranges.report.json shows: iterations 1, 7 and 12 kept whole, 2–6 like 1 and 8–11
// like 7 (MF001's site keeps 64 MiB into the next iteration, 72 MiB from iteration 7 on).
async function checkRanges(page) {
  const text = async (selector) => page.$eval(selector, (el) => el.textContent).catch(() => null);
  const texts = async (selector) => page.$$eval(selector, (els) => els.map((el) => el.textContent));
  check((await page.evaluate(() => document.body.dataset.rendered)) === '1', 'ranges: the page marks itself drawn');
  check((await text('header .subtitle')).includes('memfloor.report/3'), 'ranges: the subtitle names memfloor.report/3');
  const body = await page.evaluate(() => document.body.innerText);
  check(!body.includes('This page reads'), 'ranges: no warning on the schema');
  check((await text('#worst-idle-floor')) === '584.0 MiB', 'ranges: the worst steady floor is 584 MiB (iteration 7)');
  const facts = await page.$$eval('#run-0 dl.facts dt', (dts) => dts.map((dt) => [dt.textContent, dt.nextElementSibling.textContent]));
  const its = (facts.find(([k]) => k === 'iterations') || [])[1] || '';
  check(its.startsWith('12 from markers') && its.includes('9 of them in 2 ranges'), `ranges: 12 iterations, 9 in 2 ranges (${its})`);

  // The iterations table of each memory: the kept rows and a collapsed row per range, in order.
  const tables = await page.$$eval('#run-0 table.iterations', (ts) => ts.map((t) =>
    [...t.querySelectorAll('tbody tr')].map((tr) => ({cls: tr.className, cells: [...tr.cells].map((c) => c.textContent)}))));
  check(tables.length === 2, `ranges: an iterations table per memory (${tables.length})`);
  const device = tables[0] || [];
  check(JSON.stringify(device.map((r) => r.cells[0])) === '["1","2\u20136","7","8\u201311","12"]',
    `ranges: rows 1, 2–6, 7, 8–11, 12 (${device.map((r) => r.cells[0])})`);
  const r26 = (device[1] || {cells: []}).cells;
  check(device[1] && device[1].cls === 'range' && r26[1] === '5 iterations like 1', `ranges: 2–6 is a range like 1 (${r26})`);
  check(r26[2] === '9.8 ms\u201310.2 ms (10.0 ms)' && r26[3] === '764.0 MiB\u2013768.0 MiB (765.6 MiB)',
    `ranges: 2–6's durations and peaks as min–max (mean) (${r26[2]}, ${r26[3]})`);
  check(r26[4] === '576.0 MiB' && r26[6] === '64.0 MiB' && r26[9] === '64.0 MiB', `ranges: 2–6's idle window is 1's (${r26})`);
  const r811 = (device[3] || {cells: []}).cells;
  check(r811[1] === '4 iterations like 7' && r811[4] === '584.0 MiB' && r811[9] === '72.0 MiB',
    `ranges: 8–11's idle window is 7's (${r811})`);
  check(device[2] && device[2].cls === 'worst', 'ranges: iteration 7 is the steady floor');

  // The device chart: a band and a floor across each range, the kept rows as before.
  const [chart] = await page.$$('#run-0 figure.chart');
  const count = async (selector) => (await chart.$$(selector)).length;
  check(await count('.range-band') === 2 && await count('.iter-band') === 3 && await count('.idle-band') === 3,
    'ranges: two range bands, three iterations and idle windows');
  check(await count('.floor-mark') === 5 && await count('.floor-mark.range') === 2, 'ranges: five floors, two across ranges');
  check((await chart.$eval('.floor-label', (el) => el.textContent)) === 'steady idle floor 584.0 MiB', 'ranges: the steady floor is labelled');
  const rangeTitles = await chart.$$eval('.floor-mark.range title', (ts) => ts.map((t) => t.textContent));
  check(rangeTitles[0] === 'idle floor of iterations 2\u20136 (5 like 1): 576.0 MiB (603,979,776 bytes)', `ranges: a range's floor says so (${rangeTitles[0]})`);
  check((await chart.$eval('.legend', (el) => el.textContent)).includes('alike iterations (a range)'), 'ranges: the legend names ranges');

  // Sites and findings count the windows of ranges.
  const sites = await page.$$eval('#run-0 table.sites tbody tr', (trs) => trs.map((tr) => [...tr.cells].map((c) => c.textContent)));
  const hc = sites.find((r) => r[0].startsWith('HyperConnectionTransformerLayer')) || [];
  check(hc[3] === '72.0 MiB' && hc[4] === '7' && hc[5] === '12' && hc[6] === '1\u201312',
    `ranges: the site retains in 12 windows, the most in 7 (${hc.slice(3, 7)})`);
  const finding = '#finding-5c1e0d7a9b3f2e41';
  check((await text(`${finding} .explained`)) === '72.0 MiB', 'ranges: MF001 explains up to 72.0 MiB');
  const explains = await page.$$eval(`${finding} table.explains tbody tr`, (trs) => trs.map((tr) => [...tr.cells].map((c) => c.textContent)));
  check(explains.length === 1 && JSON.stringify(explains[0].slice(2)) === '["12","1\u201312","72.0 MiB","7"]',
    `ranges: MF001's windows 1–12 from iteration..last_iteration (${JSON.stringify(explains)})`);

  // Peaks: the kept rows only, said so.
  const peaks = await page.$$eval('#run-0 table.peaks', (ts) => ts.map((t) => [...t.querySelectorAll('tbody tr')].map((tr) => tr.cells[0].textContent)));
  check(peaks.length === 2 && JSON.stringify(peaks[0]) === '["1","7","12"]', `ranges: peaks of the kept rows (${JSON.stringify(peaks)})`);
  check((await texts('#run-0 table.peaks tr.largest-peak')).length === 2 &&
    (await page.$eval('#run-0 table.peaks tr.largest-peak', (tr) => tr.cells[0].textContent)) === '7', 'ranges: the largest peak is 7\'s');
  check(body.includes('a range of alike iterations stores the spread of its peaks'), 'ranges: the peaks say ranges have none');
  const injected = await injectedInto(page);
  check(injected.img === 0 && injected.scripts === 3 && injected.handlers === 0, `ranges: nothing injected (${JSON.stringify(injected)})`);
}

// What trend.html shows (testdata/analysis/leak_trend.txt): 1 GiB of weights and a 4 MiB leak per
// iteration; 1, 19 and 20 kept whole, 2–18 one trend range from 1 whose idle floor and leak step
// 4 MiB each iteration.
async function checkTrend(page) {
  const its = await page.$$eval('#run-0 dl.facts dt', (dts) => (dts.find((dt) => dt.textContent === 'iterations') || {})
    .nextElementSibling.textContent);
  check(its.startsWith('20 from markers') && its.includes('17 of them in 1 range') && its.includes('(1 trend)'),
    `trend: 20 iterations, 17 in a trend range (${its})`);
  const rows = await page.$$eval('#run-0 table.iterations tbody tr', (trs) => trs.map((tr) =>
    ({cls: tr.className, cells: [...tr.cells].map((c) => c.textContent)})));
  check(JSON.stringify(rows.map((r) => r.cells[0])) === '["1","2\u201318","19","20"]',
    `trend: rows 1, 2–18, 19, 20 (${rows.map((r) => r.cells[0])})`);
  const r = (rows[1] || {cells: []}).cells;
  check(rows[1] && rows[1].cls === 'range trend' && r[1] === '17 iterations from 1, idle floor +4.00 MiB each',
    `trend: 2–18 steps from 1 (${r[1]})`);
  // Its windows from the first (iteration 2: 1 GiB + 8 MiB) to the last (18: 1 GiB + 72 MiB),
  // expanded from 1's as a reader of the report would: exactly the rows the unfolded report has.
  check(r[4] === '1.01 GiB\u20131.07 GiB' && r[7] === '8.00 MiB\u201372.0 MiB' && r[8] === '1.00 GiB',
    `trend: 2–18's idle floor, leak and persistent bytes from first to last (${r})`);
  check((rows[2] || {cells: []}).cells[7] === '76.0 MiB', 'trend: 19 leaks 76 MiB, the step on from 18');
  const [chart] = await page.$$('#run-0 figure.chart');
  const marks = await chart.$$eval('.floor-mark.range', (ls) => ls.map((l) => [Number(l.getAttribute('y1')),
    Number(l.getAttribute('y2')), l.textContent]));
  check(marks.length === 1 && marks[0][1] < marks[0][0], `trend: the range's floor rises across it (${JSON.stringify(marks)})`);
  check(marks[0] && marks[0][2] === 'idle floor of iterations 2\u201318 (17 from 1): 1.01 GiB (1,082,130,432 bytes)' +
    ' \u2192 1.07 GiB (1,149,239,296 bytes)', `trend: the floor's title says from and to (${marks[0] && marks[0][2]})`);
  check((await chart.$eval('.legend', (el) => el.textContent)).includes('alike iterations (a range), or along a trend'),
    'trend: the legend names trends');
  const sites = await page.$$eval('#run-0 table.sites tbody tr', (trs) => trs.map((tr) => [...tr.cells].map((c) => c.textContent)));
  const leak = sites.find((s) => s[0].startsWith('history.cpp')) || sites.find((s) => s[0].includes('LossHistory')) || [];
  check(leak[3] === '80.0 MiB' && leak[4] === '20' && leak[5] === '20' && leak[6] === '1\u201320',
    `trend: the leak's site retains the most in 20, listed in all 20 windows (${leak.slice(0, 7)})`);
}

// The ranges page with its report made long: 3,000 blocks of a row kept whole and a range of 9
// like it, then a last row (30,001 iterations), with the run's views to match. Written beside it;
// returns its path.
function longPage(file) {
  const html = fs.readFileSync(file, 'utf8');
  const open = '<script type="application/json" id="memfloor-report">';
  const at = html.indexOf(open) + open.length, end = html.indexOf('</' + 'script>', at);
  const doc = JSON.parse(html.slice(at, end));
  const run = doc.runs[0];
  const [row, range] = [run.iterations[1], run.iteration_ranges[1]];
  const period = 12000000;
  const iterations = [], ranges = [];
  let index = 1, t = run.iterations[0].start_ns;
  const kept = (final) => {
    const it = Object.assign(structuredClone(row), {index, name: 'iteration ' + index, start_ns: t, end_ns: t + 10000000,
      idle: {start_ns: t + 10000000, end_ns: t + period, final}});
    for (const m of it.memory) m.peak_composition.at_ns += t - row.start_ns;
    iterations.push(it);
    t += period;
    index++;
  };
  for (let b = 0; b < 3000; b++) {
    kept(false);
    ranges.push(Object.assign(structuredClone(range), {first: index, last: index + 8, count: 9, like: index - 1,
      start_ns: t, end_ns: t + 9 * period}));
    index += 9;
    t += 9 * period;
  }
  kept(true);
  // The report's views of the run say the same (report/views_json.h): the page derives nothing.
  const entries = ranges.flatMap((r, k) => [{row: k}, {range: k, like: k}]).concat([{row: ranges.length}]);
  Object.assign(run, {iterations, iteration_ranges: ranges, iteration_count: index - 1, entries});
  run.trace.end_ns = t;
  for (const s of run.steady_idle_floor) s.iteration = 1;
  doc.summary.worst.iteration = 1;
  const safe = JSON.stringify(doc).replace(/</g, '\\u003c').replace(/>/g, '\\u003e').replace(/&/g, '\\u0026')
    .replace(/\u2028/g, '\\u2028').replace(/\u2029/g, '\\u2029');
  const out = path.join(path.dirname(file), 'ranges-long.html');
  fs.writeFileSync(out, html.slice(0, at) + safe + html.slice(end));
  return out;
}

// A long run's page stays light: the charts downsampled, the long tables drawn in part with the
// rest on demand.
async function checkLong(page) {
  const texts = async (selector) => page.$$eval(selector, (els) => els.map((el) => el.textContent));
  const facts = await page.$$eval('#run-0 dl.facts dd', (dds) => dds.map((dd) => dd.textContent));
  check(facts.some((f) => f.startsWith('30,001 from markers')), 'long: 30,001 iterations');
  const shapes = await page.$$eval('#run-0 figure.chart', (charts) => charts.map((c) =>
    c.querySelectorAll('.iter-band, .idle-band, .range-band, .floor-mark, .floor-range').length));
  check(shapes.length === 2 && shapes.every((n) => n <= 4), `long: each chart draws its 6,001 rows and ranges in a few paths (${shapes})`);
  check((await page.$$('#run-0 figure.chart .floor-range')).length === 2, 'long: the idle floors as one path per chart');
  check((await texts('#run-0 figure.chart figcaption'))[0].includes('drawn downsampled'), 'long: the caption says it is downsampled');
  const elements = await page.evaluate(() => document.querySelectorAll('#report *').length);
  check(elements < 10000, `long: the page stays light (${elements} elements, as many for any longer run)`);
  const rows = () => page.$$eval('#run-0 table.iterations', (ts) => ts[0].querySelectorAll('tbody tr').length);
  check(await rows() === 101, `long: the first and last 50 rows and a gap (${await rows()})`);
  const gap = '#run-0 table.iterations tr.gap';
  check((await page.$eval(gap, (tr) => tr.textContent)).startsWith('5,901 more rows not drawn'), 'long: the gap says how many rows it holds');
  await page.click(`${gap} button.more`);
  check(await rows() === 1101, `long: a click draws the next 1,000 (${await rows()})`);
  const after = await page.$$eval('#run-0 table.iterations', (ts) => [...ts[0].querySelectorAll('tbody tr')].map((tr) => tr.cells[0].textContent));
  check(after[50] === '251' && after[51] === '252\u2013260' && after[1049] === '5242\u20135250' && after[after.length - 1] === '30001',
    `long: in order around the gap (${after[50]}, ${after[51]}, ${after[1049]}, ${after[after.length - 1]})`);
  const sites = await page.$$eval('#run-0 table.sites tbody tr', (trs) => trs.map((tr) => [...tr.cells].map((c) => c.textContent)));
  const hc = sites.find((r) => r[0].startsWith('HyperConnectionTransformerLayer')) || [];
  check(hc[5] === '30,001' && hc[6] === '1\u201330001', `long: the site is in every window (${hc.slice(5, 7)})`);
  const peaks = await page.$$eval('#run-0 table.peaks', (ts) => ts[0].querySelectorAll('tbody tr').length);
  check(peaks === 101, `long: the peaks table is drawn in part too (${peaks})`);
}
