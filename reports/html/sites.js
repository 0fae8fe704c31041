// The report page's retaining sites of a run: every site listed among the top retainers of an
// idle window (a range of alike iterations lists its `like`'s sites in each of its windows), one
// row per site, with the findings that explain it and its stack folded out.

const basename = (path) => str(path).split('/').pop();

// function (file:line), or module+0xoffset when the frame is unresolved.
function frameText(f) {
  f = obj(f);
  const line = num(f.line) ? ':' + num(f.line) : '';
  const at = f.file ? ' (' + str(f.file) + line + ')' : '';
  if (f.function) return str(f.function) + at;
  if (f.file) return str(f.file) + line;
  if (f.module) return basename(f.module) + '+0x' + num(f.offset).toString(16);
  return f.text ? str(f.text) : '(unknown frame)';
}

function stackDetails(stacks, id) {
  if (!num(id)) return h('div', {class: 'muted'}, 'no stack recorded');
  const stack = stacks.get(num(id));
  if (!stack) return h('div', {class: 'muted'}, 'stack ' + num(id) + ' (not in the report)');
  const frames = arr(stack.frames);
  return h('details', null,
    h('summary', null, 'stack ' + num(id) + ': ' + frames.length + ' frames, innermost first'),
    h('ol', {class: 'frames'}, frames.map((f) => h('li', {title: str(obj(f).text) || null},
      obj(f).kind === 'python' ? h('span', {class: 'frame-kind'}, '[py] ') : null, frameText(f)))));
}

// The stacks of a site shown as one name (the sites of one name from different stacks are one
// row): each folded out.
function stacksDetails(stacks, ids) {
  const list = [...ids];
  return list.length === 1 ? stackDetails(stacks, list[0])
    : h('div', null, list.map((id) => stackDetails(stacks, id)));
}

// A site's name, with how many stacks it stands for where they are more than one.
const siteName = (where, ids) => str(where) + (ids.size > 1 ? ' (' + ids.size + ' stacks)' : '');

// A run's stacks by id (runs[].stacks).
const stacksById = (run) => new Map(arr(run.stacks).map((s) => [num(obj(s).id), obj(s)]));

function sitesSection(ctx, run) {
  const stacks = stacksById(run);
  const blocks = arr(run.memory).some((m) => obj(m).kind === 'block');
  const sites = new Map();
  // Every idle window listing the site: a kept row's, and a range's, which lists its `like`'s sites
  // (a trend range's: moved along its step, the same sites).
  // Sites of one name on one memory are one row, whatever their stacks: a window's bytes of the row
  // are its sites' sum.
  const listed = (it, span) => {
    const inWindow = new Map();  // row id -> {bytes, persistent, site: the largest}
    for (const s of arr(obj(it).top_sites)) {
      const site = obj(s);
      const id = [num(site.device), str(site.kind), str(site.where)].join('\u0000');
      let e = sites.get(id);
      if (!e) {
        sites.set(id, e = {site, windows: [], max: -1, maxPersistent: 0, maxIteration: 0,
          findings: new Set(), stacks: new Set()});
      }
      e.stacks.add(num(site.stack));
      for (const f of arr(site.findings)) e.findings.add(str(f));
      const w = inWindow.get(id) || {bytes: 0, persistent: 0, site};
      if (num(site.bytes) > num(w.site.bytes)) w.site = site;
      w.bytes += num(site.bytes);
      w.persistent += tallyBytes(site.persistent);
      inWindow.set(id, w);
    }
    for (const [id, w] of inWindow) {
      const e = sites.get(id);
      e.windows.push(span);
      if (w.bytes > e.max) {
        e.max = w.bytes;
        e.maxPersistent = w.persistent;
        e.maxIteration = span[0];
        e.site = w.site;
      }
    }
  };
  for (const e of iterationEntries(run)) {
    if (e.range) {
      // A trend's sites retain the most at one end of it: where, per site, the windows of the ends say.
      const span = [num(e.range.first), num(e.range.last)];
      listed(windowAt(e, span[0]), span);
      if (e.range.step) listed(windowAt(e, span[1]), [span[1], span[1]]);
    }
    else listed(e.row, [num(e.row.index), num(e.row.index)]);
  }
  const counted = (e) => e.max - e.maxPersistent;
  // A caching allocator's blocks first: what the program keeps, which its segments (few and large)
  // would otherwise push down the list. Without blocks all sites rank alike here.
  const allocatedFirst = (e) => (str(e.site.kind) === 'block' ? 0 : 1);
  const list = [...sites.values()].sort((a, b) =>
    allocatedFirst(a) - allocatedFirst(b) || counted(b) - counted(a) || b.max - a.max);
  if (!list.length) return h('p', {class: 'muted'}, 'No site retains bytes across an idle window.');
  const row = (e) => {
    const cls = str(e.site.class);
    const windows = mergeSpans(e.windows);
    const linked = [...e.findings].map((id) => {
      const f = ctx.findingsById.get(id);
      return h('div', null, h('a', {href: '#finding-' + id}, f ? str(f.rule) + ' ' + locText(f.location) : id));
    });
    return h('tr', null,
      h('td', {class: 'where'}, siteName(e.site.where, e.stacks), stacksDetails(stacks, e.stacks)),
      memCell(e.site, hasBlocks(run, e.site.device)),
      h('td', null, classBadge(cls)),
      h('td', {class: 'num', title: exactBytes(e.max)}, fmtBytes(e.max)),
      h('td', {class: 'num'}, String(e.maxIteration)),
      h('td', {class: 'num'}, fmtInt(spansCount(windows))),
      h('td', null, ranges(windows)),
      h('td', null, linked.length ? linked
        : cls === 'persistent' || cls === 'cached' ? h('span', {class: 'muted'}, 'no finding')
          : badge('unexplained', 'warn')));
  };
  return [h('h3', null, 'Retaining sites'),
    h('p', {class: 'muted'}, 'The sites listed among the top retainers of at least one idle window; ' +
      (blocks ? 'the allocator\u2019s blocks (allocated) first, then its segments (reserved) and other memory; in each, ' : '') +
      'sites allocating in counted iterations first, then persistent ones.'),
    longTable(['site (its frame, and the user\'s line that led there)', 'memory', 'class', ['most retained', 'num'],
      ['in window', 'num'], ['windows', 'num'], 'listed in windows', 'explained by'], list, row, {class: 'sites'})];
}
