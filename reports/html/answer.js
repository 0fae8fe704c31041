// The report page's first screen after the summary cards: what keeps the idle floor up, largest
// first, and what explains it. Where the worst run's idle windows had a census (a Python process
// with the companion), its holders at the last one, each with the finding that names it
// (findings[].holds) or, where none does, the site that allocated its block; without a census, the
// sites retaining the most in the worst run's steady window, with the findings that explain them
// (top_sites[].findings).

const ANSWER_ROWS = 5;

// A finding as one line: its rule and place (a link to its card), and the fix in words: its
// fix-it's inserted text where it has one, else the member it names.
function findingLine(f) {
  const inserted = arr(f.fixits).map((x) => str(obj(x).replacement).trim()).filter((t) => t);
  return h('div', {class: 'answer-finding'},
    h('a', {href: '#finding-' + str(f.id)}, str(f.rule) + ' ' + locText(f.location)), ' ',
    inserted.length
      ? h('span', {class: 'muted'}, 'fix: ', h('code', null, inserted.join(' \u2026 ')))
      : f.field ? h('span', {class: 'muted'}, 'keeps ', h('code', null, str(f.field))) : null);
}

// The findings whose holds name `path` in run `runIndex`.
function findingsHolding(ctx, runIndex, path) {
  return [...ctx.findingsById.values()].filter((f) => arr(f.holds).some((l) =>
    num(obj(l).run) === runIndex && arr(obj(l).paths).includes(path)));
}

// The holders of the run's last census on `device` (any device where that one has none).
function lastCensus(run, device) {
  const windows = arr(run.iterations).map(obj).filter((it) => arr(it.held_by).length);
  if (!windows.length) return null;
  const it = windows[windows.length - 1];
  const censuses = arr(it.held_by).map(obj);
  return {it, census: censuses.find((c) => num(c.device) === device) || censuses[0]};
}

function holdersAnswer(ctx, run, at) {
  const {it, census} = at;
  const stacks = stacksById(run);
  const holders = arr(census.holders).map(obj).sort((a, b) => num(b.bytes) - num(a.bytes)).slice(0, ANSWER_ROWS);
  const rows = holders.map((x) => {
    const named = findingsHolding(ctx, ctx.worstRun, str(x.path));
    return h('tr', null,
      h('td', {class: 'path'}, pathText(x.path)),
      bytesCell(num(x.bytes)),
      h('td', null, classBadge(str(x.class))),
      h('td', {class: 'explained-by'}, named.length ? named.map(findingLine)
        : str(x.class) === 'persistent' ? h('span', {class: 'muted'}, 'no finding names it')
          : [h('span', {class: 'muted'}, 'no finding names it; allocated at '), h('span', {class: 'where'}, str(x.where)),
            stackDetails(stacks, x.stack)]));
  });
  return [
    h('p', null, 'After iteration ' + num(it.index) + ', device ' + num(census.device) + ': named Python paths hold ' +
      fmtBytes(num(obj(census.held).bytes)) + ' of ' + fmtBytes(num(census.allocated)) + ' allocated; the largest:'),
    rows.length ? table(['holder (path from a root)', ['bytes', 'num'], 'class', 'explained by'], rows, {class: 'answer'})
      : h('p', {class: 'muted'}, 'No Python path holds a storage of this device.')];
}

// The sites of the run's window after `iteration` (a kept row's, or its range's `like`'s).
function windowSites(run, iteration) {
  for (const e of iterationEntries(run)) {
    if (!e.range && num(e.row.index) === iteration) return arr(e.row.top_sites).map(obj);
    if (e.range && num(e.range.first) <= iteration && iteration <= num(e.range.last)) {
      return arr(obj(windowAt(e, iteration)).top_sites).map(obj);
    }
  }
  return [];
}

function sitesAnswer(ctx, run) {
  const worst = ctx.worst;
  const sites = windowSites(run, num(worst.iteration)).filter((s) => sameKey(s, worst))
    .sort((a, b) => num(b.bytes) - num(a.bytes)).slice(0, ANSWER_ROWS);
  const stacks = stacksById(run);
  const rows = sites.map((s) => {
    const named = arr(s.findings).map((id) => ctx.findingsById.get(str(id))).filter((f) => f);
    return h('tr', null,
      h('td', {class: 'where'}, str(s.where), stackDetails(stacks, s.stack)),
      bytesCell(num(s.bytes)),
      h('td', null, classBadge(str(s.class))),
      h('td', {class: 'explained-by'}, named.length ? named.map(findingLine) : badge('unexplained', 'warn')));
  });
  return [
    h('p', null, 'After iteration ' + num(worst.iteration) + ' (the steady idle floor), ' +
      keyName(worst, hasBlocks(run, worst.device)) + ': the sites retaining the most, and the findings that explain them:'),
    rows.length ? table(['site', ['retained', 'num'], 'class', 'explained by'], rows, {class: 'answer'})
      : h('p', {class: 'muted'}, 'No site retains bytes across this idle window.')];
}

function answerSection(ctx) {
  if (!ctx.worst) return null;
  const run = obj(ctx.runs[ctx.worstRun]);
  const census = lastCensus(run, num(ctx.worst.device));
  return h('section', {id: 'answer'},
    h('h2', null, 'What holds the idle floor' + (ctx.runs.length > 1 ? ' in ' + str(run.label) : '')),
    census ? holdersAnswer(ctx, run, census) : sitesAnswer(ctx, run),
    h('p', {class: 'muted'}, 'More: ',
      h('a', {href: '#run-' + ctx.worstRun}, 'the run'),
      census ? [' \u00b7 ', h('a', {href: '#run-' + ctx.worstRun + '-held-by'}, 'every census')] : null,
      ' \u00b7 ', h('a', {href: '#findings'}, 'findings')));
}
