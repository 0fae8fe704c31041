// The report page's peaks of one memory: per iteration what is live when its peak is first
// reached (iterations[].memory[].peak_composition), by class, the sites holding the most and,
// where allocations carry the module that made them, the modules.

// The classes of a peak, in the order report-schema.md lists them: [key, column header].
const PEAK_CLASSES = [
  ['iteration', 'this iteration'],
  ['earlier_iteration', 'earlier, not retained'],
  ['inter_iteration', 'inter-iteration'],
  ['leak', 'leak'],
  ['persistent', 'persistent'],
  ['cached', 'cached'],  // a caching allocator's reserved level only (isReserved)
];

// The classes a memory's peaks can hold: cached only on a reserved level.
const peakClasses = (run, key) => PEAK_CLASSES.filter(([k]) => k !== 'cached' || isReserved(run, key));

// The sites of a peak, those of one name one item (their bytes summed, each stack kept), in the
// order of their first; an item's class is its largest site's.
function peakItems(sites) {
  const items = new Map();
  for (const s of sites.map(obj)) {
    let item = items.get(str(s.where));
    if (!item) items.set(str(s.where), item = {where: s.where, bytes: 0, largest: s, stacks: new Set()});
    item.bytes += num(s.bytes);
    item.stacks.add(num(s.stack));
    if (num(s.bytes) > num(item.largest.bytes)) item.largest = s;
  }
  return [...items.values()].sort((a, b) => b.bytes - a.bytes);
}

// One site at a peak: its frame, bytes and class, its stacks folded out.
function peakSiteItem(stacks, item) {
  return h('li', null,
    h('span', {class: 'num', title: exactBytes(item.bytes)}, fmtBytes(item.bytes)), ' ',
    classBadge(str(item.largest.class)), ' ',
    h('span', {class: 'mono break'}, siteName(item.where, item.stacks)),
    stacksDetails(stacks, item.stacks));
}

function peakSitesCell(stacks, sites) {
  if (!sites.length) return h('td', {class: 'muted'}, 'none');
  const items = peakItems(sites);
  const top = items[0];
  return h('td', {class: 'where'},
    h('details', null,
      h('summary', null, siteName(top.where, top.stacks) +
        (items.length > 1 ? ' and ' + (items.length - 1) + ' more' : '')),
      h('ol', {class: 'peak-sites'}, items.map((item) => peakSiteItem(stacks, item)))));
}

// The modules holding the most at a peak, by their paths in the model.
function peakModulesCell(modules) {
  if (!modules.length) return h('td', {class: 'muted'}, 'none');
  const top = obj(modules[0]);
  return h('td', {class: 'where'},
    h('details', null,
      h('summary', null, str(top.module) + (modules.length > 1 ? ' and ' + (modules.length - 1) + ' more' : '')),
      h('ol', {class: 'peak-sites'}, modules.map(obj).map((m) => h('li', null,
        h('span', {class: 'num', title: exactBytes(num(m.bytes))}, fmtBytes(num(m.bytes))), ' ',
        h('span', {class: 'mono break'}, str(m.module)))))));
}

function peakTable(run, key) {
  const stacks = stacksById(run);
  const classes = peakClasses(run, key);
  // Only rows kept whole have a composition: a range of alike iterations stores its peaks' spread.
  const rows = [];
  let largest = null;  // the largest peak (the first of equal ones)
  for (const it of arr(run.iterations).map(obj)) {
    const p = memoryOf(it, key).peak_composition;
    if (!p || typeof p !== 'object') continue;
    rows.push({it, p});
    if (!largest || num(p.bytes) > num(largest.p.bytes)) largest = rows[rows.length - 1];
  }
  if (!rows.length) {
    return arr(run.iterations).length
      ? h('p', {class: 'muted'}, 'This report has no peak composition (written by an earlier memfloor).')
      : null;
  }
  const withModules = rows.some((r) => arr(r.p.modules).length > 0);
  const row = (r) => {
    const isLargest = r === largest;
    return h('tr', {class: [r.it.complete === false ? 'incomplete' : '', isLargest ? 'largest-peak' : ''].join(' ').trim() || null},
      h('td', {class: 'num'}, String(num(r.it.index))),
      h('td', {class: 'num', title: exactBytes(num(r.p.bytes))}, fmtBytes(num(r.p.bytes)),
        isLargest ? [' ', badge('largest', 'warn')] : null),
      h('td', {class: 'num'}, '+' + fmtNs(num(r.p.at_ns) - num(r.it.start_ns))),
      classes.map(([k]) => bytesCell(tallyBytes(r.p[k]))),
      peakSitesCell(stacks, arr(r.p.sites)),
      withModules ? peakModulesCell(arr(r.p.modules)) : null);
  };
  const ranged = iterationRanges(run).length;
  return [h('h4', null, 'What is live at each iteration\u2019s peak'),
    h('p', {class: 'muted'}, 'When the peak is first reached, by when its bytes were made: in the iteration, ' +
      'earlier without being retained by an idle window, or earlier and retained (by the classes of the ' +
      'window before); and the sites holding the most then' + (withModules ? ', and the modules whose ' +
      'forward or backward made them' : '') + '.' + (ranged ? ' The iterations kept whole only: ' +
      'a range of alike iterations stores the spread of its peaks (the iterations table), not what is live at them.' : '')),
    longTable([['#', 'num'], ['peak', 'num'], ['reached at', 'num'],
      ...classes.map(([, name]) => [name, 'num']), 'top sites at the peak',
      ...(withModules ? ['top modules at the peak'] : [])], rows, row, {class: 'peaks'})];
}
