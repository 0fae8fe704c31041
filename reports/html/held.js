// The report page's "held by" of a run: per idle window with a census (iterations[].held_by) and
// per device, the Python paths holding its live memory, by class, and what no Python path reaches;
// then the censuses that fell inside an iteration (runs[].census.outside).

// The classes of held bytes (by_class), in the bar's order: [key, name]; not seen comes last.
const HELD_CLASSES = [
  ['persistent', 'persistent'],
  ['inter_iteration', 'inter-iteration'],
  ['leak', 'leak'],
];

// One bar of the census's allocated bytes: its held bytes by class, then the bytes not seen; each
// part names its bytes when hovered, and the legend beside it.
function heldBar(census) {
  const W = 1000;
  const byClass = obj(census.by_class);
  const parts = HELD_CLASSES.map(([k, name]) => [k, name, num(tallyBytes(byClass[k]))]);
  parts.push(['not-seen', 'not seen', num(tallyBytes(census.not_seen))]);
  const total = Math.max(num(census.allocated), parts.reduce((sum, p) => sum + p[2], 0));
  let x = 0;
  const rects = [];
  for (const [k, name, bytes] of parts) {
    if (!(bytes > 0) || !(total > 0)) continue;
    const w = (bytes / total) * W;
    rects.push(svg('rect', {class: 'held-' + k, x: x.toFixed(1), y: 0, width: w.toFixed(1), height: 1},
      svg('title', null, name + ': ' + fmtBytes(bytes) + ' (' + exactBytes(bytes) + ')')));
    x += w;
  }
  return h('figure', {class: 'held-bar'},
    svg('svg', {viewBox: '0 0 ' + W + ' 1', preserveAspectRatio: 'none', role: 'img',
      'aria-label': 'allocated bytes by holder class'}, rects),
    h('div', {class: 'legend'}, parts.map(([k, name, bytes]) =>
      h('span', {title: exactBytes(bytes)}, h('span', {class: 'swatch held-' + k}), name + ' ' + fmtBytes(bytes)))));
}

// A holder's path; with the autograd graph's nodes on its way, outermost first, folded out.
function holderPath(x) {
  const via = arr(x.via_graph).map(str);
  const shared = x.shared === true
    ? [' ', h('span', {class: 'badge', title: 'its storage is reached from more than one root'}, 'shared')] : null;
  if (!via.length) return h('td', {class: 'where path'}, pathText(x.path), shared);
  return h('td', {class: 'where path'},
    h('details', {class: 'via'},
      h('summary', null, pathText(x.path), ' ', h('span', {class: 'muted'}, '(' + plural(via.length, 'graph node') + ')')),
      h('div', {class: 'muted'}, 'through the autograd graph, outermost first:'),
      h('ol', {class: 'via-graph'}, via.map((node) => h('li', null, node)))),
    shared);
}

function holdersTable(stacks, census) {
  // By bytes, largest first, whatever the order in the file.
  const holders = arr(census.holders).map(obj).sort((a, b) => num(b.bytes) - num(a.bytes));
  const rows = holders.map((x) => h('tr', null,
    holderPath(x),
    bytesCell(num(x.bytes)),
    h('td', {class: 'num'}, fmtInt(num(x.count))),
    h('td', null, classBadge(str(x.class))),
    h('td', null, str(x.role)),
    h('td', {class: 'rule'}, str(x.rule)),
    h('td', {class: 'where'}, str(x.where), stackDetails(stacks, x.stack))));
  const left = obj(census.holders_left_out);
  if (num(left.count)) {
    rows.push(h('tr', {class: 'left-out'},
      h('td', {class: 'muted'}, plural(num(left.count), 'more holder') + ', not listed'),
      bytesCell(num(left.bytes)), h('td', {colspan: 5})));
  }
  if (!rows.length) return h('p', {class: 'muted'}, 'No Python path holds a storage of this device.');
  return table(['path (from a root)', ['bytes', 'num'], ['storages', 'num'], 'class', 'role', 'rule',
    'allocated at'], rows, {class: 'holders'});
}

// One census: when, what it saw and what it cost, its bar and its holders; `open`: unfolded.
function censusBlock(run, stacks, it, census, open) {
  const c = obj(census);
  const held = obj(c.held);
  const notSeen = obj(c.not_seen);
  const blocks = hasBlocks(run, c.device);
  // memfloor's number first (1, 2, ... in trace order, as everywhere on the page); then the
  // program's own: its marker's name and the optimizer steps it had taken.
  const head = 'After iteration ' + num(it.index) + ' (the program\u2019s \u201c' + str(it.name) + '\u201d, ' +
    'optimizer step ' + num(c.step) + ') \u00b7 device ' + num(c.device) + ': held ' + fmtBytes(num(held.bytes)) + ' of ' +
    fmtBytes(num(c.allocated)) + ' allocated, not seen ' + fmtBytes(num(notSeen.bytes));
  const unit = blocks ? 'block' : 'allocation';
  return h('details', {class: 'census', open: open ? '' : null},
    h('summary', null, head, c.complete === false ? [' ', badge('incomplete', 'warn')] : null),
    c.complete === false
      ? h('div', {class: 'warning'}, 'The census stopped at its object limit: holders may be missing, and ' +
        'some of the bytes not seen may be held by a path it did not walk.')
      : null,
    facts([
      ['allocated', [h('span', {title: exactBytes(c.allocated)}, fmtBytes(num(c.allocated))),
        ' live ' + (blocks ? 'in allocator blocks' : 'device memory') + ' at the census']],
      ['held', [h('span', {title: exactBytes(held.bytes)}, fmtBytes(num(held.bytes))),
        ' in ' + plural(num(held.count), unit) + ' that a Python path reaches']],
      ['not seen', [h('span', {title: exactBytes(notSeen.bytes)}, fmtBytes(num(notSeen.bytes))),
        ' in ' + plural(num(notSeen.count), unit) + (str(c.not_seen_reason) ? ': ' + str(c.not_seen_reason) : '')]],
      ['census', fmtInt(num(c.objects)) + ' objects walked in ' + fmtNs(num(c.duration_ns)) + ', at +' +
        fmtNs(num(c.timestamp) - num(obj(run.trace).first_ns))],
    ]),
    heldBar(c),
    holdersTable(stacks, c));
}

// The censuses that fell inside an iteration: counted, listed shortly, not used.
const OUTSIDE_LISTED = 5;
function censusOutside(run) {
  const census = obj(run.census);
  const outside = arr(census.outside).map(obj);
  if (!outside.length) return null;
  const first = num(obj(run.trace).first_ns);
  const listed = outside.slice(0, OUTSIDE_LISTED).map((x) =>
    '+' + fmtNs(num(x.timestamp) - first) + ' (device ' + num(x.device) + ', step ' + num(x.step) + ')');
  const more = outside.length > OUTSIDE_LISTED ? ' and ' + (outside.length - OUTSIDE_LISTED) + ' more' : '';
  const taken = Math.max(num(census.taken), outside.length);
  return h('p', {class: 'muted census-outside'}, 'Of ' + taken + (taken === 1 ? ' census' : ' censuses') +
    ' taken, ' + outside.length + ' fell inside an iteration and ' + (outside.length === 1 ? 'is' : 'are') +
    ' not used: at ' + listed.join(', ') + more + '.');
}

// The run's censuses in brief (runs[].census_summary, a view the report writes).
function censusSummaryLine(run) {
  const c = obj(run.census_summary);
  if (!num(c.windows)) return null;
  const share = num(c.allocated) ? ' (' + (100 * num(c.held) / num(c.allocated)).toFixed(1) + '%)' : '';
  return h('p', {class: 'census-summary'}, num(c.taken) + (num(c.taken) === 1 ? ' census' : ' censuses') +
    ' taken, ' + plural(num(c.windows), 'idle window') + ' with one; after iteration ' + num(c.last_iteration) +
    ', named paths held ' + fmtBytes(num(c.held)) + ' of ' + fmtBytes(num(c.allocated)) + ' allocated' + share +
    ', in ' + plural(num(c.holders), 'holder') + '.');
}

// The section, when a window has a census; without any, only the note on the censuses that fell
// inside iterations (if any), so that a report written before censuses draws as it did.
function heldBySection(run, index) {
  // A window with a census is kept whole (never in a range of alike iterations).
  const windows = arr(run.iterations).map(obj).filter((it) => arr(it.held_by).length);
  if (!windows.length) return censusOutside(run);
  const stacks = stacksById(run);
  const last = windows[windows.length - 1];
  return h('div', {class: 'held-by', id: 'run-' + index + '-held-by'},
    h('h3', null, 'Held by (Python paths at idle censuses)'),
    h('p', {class: 'muted'}, 'Per idle window with a census and per device (the last census there): the named ' +
      'Python paths that hold its allocated bytes, largest first, with their class, the rule that gave it and ' +
      'where their block was allocated, and what no Python path reaches. A path taken through the autograd ' +
      'graph folds out to its nodes. The last window is unfolded.'),
    censusSummaryLine(run),
    censusOutside(run),
    lazyItems(windows.flatMap((it) => arr(it.held_by).map((c) => [it, c])),
      ([it, c]) => censusBlock(run, stacks, it, c, it === last), (kids) => h('p', {class: 'muted'}, kids), 'censuses'));
}
