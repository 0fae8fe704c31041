// The report page's peaks of one memory: per iteration what is live when its peak is first
// reached (iterations[].memory[].peak_composition), by class, and the sites holding the most.

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

// One site at a peak: its frame, bytes and class, its stack folded out.
function peakSiteItem(stacks, s) {
  const site = obj(s);
  return h('li', null,
    h('span', {class: 'num', title: exactBytes(site.bytes)}, fmtBytes(num(site.bytes))), ' ',
    classBadge(str(site.class)), ' ',
    h('span', {class: 'mono break'}, str(site.where)),
    stackDetails(stacks, site.stack));
}

function peakSitesCell(stacks, sites) {
  if (!sites.length) return h('td', {class: 'muted'}, 'none');
  const top = obj(sites[0]);
  return h('td', {class: 'where'},
    h('details', null,
      h('summary', null, str(top.where) + (sites.length > 1 ? ' and ' + (sites.length - 1) + ' more' : '')),
      h('ol', {class: 'peak-sites'}, sites.map((s) => peakSiteItem(stacks, s)))));
}

function peakTable(run, key) {
  const stacks = stacksById(run);
  const classes = peakClasses(run, key);
  let largest = null;  // the row of the largest peak (the first of equal ones)
  const rows = [];
  for (const it of arr(run.iterations).map(obj)) {
    const m = obj(arr(it.memory).find((x) => sameKey(obj(x), key)));
    const p = m.peak_composition;
    if (!p || typeof p !== 'object') continue;
    const row = h('tr', {class: it.complete === false ? 'incomplete' : null},
      h('td', {class: 'num'}, String(num(it.index))),
      bytesCell(num(p.bytes)),
      h('td', {class: 'num'}, '+' + fmtNs(num(p.at_ns) - num(it.start_ns))),
      classes.map(([k]) => bytesCell(tallyBytes(p[k]))),
      peakSitesCell(stacks, arr(p.sites)));
    if (!largest || num(p.bytes) > largest.bytes) largest = {bytes: num(p.bytes), row};
    rows.push(row);
  }
  if (!rows.length) {
    return arr(run.iterations).length
      ? h('p', {class: 'muted'}, 'This report has no peak composition (written by an earlier memfloor).')
      : null;
  }
  largest.row.classList.add('largest-peak');
  largest.row.cells[1].appendChild(document.createTextNode(' '));
  largest.row.cells[1].appendChild(badge('largest', 'warn'));
  return [h('h4', null, 'What is live at each iteration\u2019s peak'),
    h('p', {class: 'muted'}, 'When the peak is first reached, by when its bytes were made: in the iteration, ' +
      'earlier without being retained by an idle window, or earlier and retained (by the classes of the ' +
      'window before); and the sites holding the most then.'),
    table([['#', 'num'], ['peak', 'num'], ['reached at', 'num'],
      ...classes.map(([, name]) => [name, 'num']), 'top sites at the peak'], rows, {class: 'peaks'})];
}
