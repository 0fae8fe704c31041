// The report page's findings: per finding its rule, location, message, source lines, the bytes it
// explains per run and memory (in windows of iterations, ranges of them since memfloor.report/3),
// its related locations; then the units the checker could not read.

function snippet(item) {
  const sn = item.snippet;
  if (!sn || typeof sn !== 'object') {
    return h('p', {class: 'muted'}, 'Source lines not available: the file could not be read when the report was made.');
  }
  const flagged = num(obj(item.location).line);
  const first = num(sn.first_line);
  return h('div', {class: 'snippet'}, h('table', null, h('tbody', null, arr(sn.lines).map((text, i) =>
    h('tr', {class: first + i === flagged ? 'flagged' : null},
      h('td', {class: 'lineno'}, String(first + i)), h('td', {class: 'code'}, str(text)))))));
}

function explainsTable(ctx, item) {
  const groups = new Map();
  for (const e of arr(item.explains).map(obj)) {
    const id = num(e.run) + '|' + num(e.device) + '|' + str(e.kind);
    let g = groups.get(id);
    if (!g) groups.set(id, g = {e, iterations: [], max: 0, at: 0});
    // Iterations `iteration` to `last_iteration` (memfloor.report/3; one iteration before).
    g.iterations.push([num(e.iteration), isNum(e.last_iteration) ? e.last_iteration : num(e.iteration)]);
    if (num(e.bytes) > g.max) {
      g.max = num(e.bytes);
      g.at = num(e.iteration);
    }
  }
  const row = (g) => {
    const windows = mergeSpans(g.iterations);
    return h('tr', null,
      h('td', null, h('a', {href: '#run-' + num(g.e.run)}, str(obj(ctx.runs[num(g.e.run)]).label) || 'run ' + num(g.e.run))),
      memCell(g.e, hasBlocks(ctx.runs[num(g.e.run)], g.e.device)), h('td', {class: 'num'}, fmtInt(spansCount(windows))),
      h('td', null, ranges(windows)),
      h('td', {class: 'num', title: exactBytes(g.max)}, fmtBytes(g.max)), h('td', {class: 'num'}, String(g.at)));
  };
  return longTable(['run', 'memory', ['windows', 'num'], 'idle windows', ['most explained', 'num'], ['in window', 'num']],
    [...groups.values()], row, {class: 'explains'});
}

// The holders the finding names (findings[].holds: the census paths that name its field), each
// once, in the order first listed.
const heldPaths = (item) => [...new Set(arr(item.holds).flatMap((l) => arr(obj(l).paths).map(str)))];

// Whether the finding accounts for retained bytes: a site it explains, or a holder it names.
const accounts = (item) => num(obj(item).max_explained_bytes) > 0 || num(obj(item).max_held_bytes) > 0;

function findingCard(ctx, item) {
  item = obj(item);
  const id = str(item.id);
  const max = num(item.max_explained_bytes);
  const held = num(item.max_held_bytes);
  const paths = heldPaths(item);
  const related = arr(item.related).map(obj);
  const links = arr(item.link_functions).map(str);
  return h('div', {class: 'finding', id: 'finding-' + id},
    h('div', {class: 'head'}, badge(str(item.rule), accounts(item) ? 'bad' : ''),
      h('span', {class: 'loc'}, locText(item.location)),
      item.function ? h('code', {class: 'break'}, str(item.function)) : null,
      item.field ? h('span', {class: 'muted'}, 'field ', h('code', null, str(item.field))) : null,
      h('span', {class: 'muted mono'}, id)),
    h('p', {class: 'message'}, str(item.message)),
    snippet(item),
    held > 0
      ? h('p', {class: 'holds'}, 'Names the holders that keep up to ',
        h('strong', {class: 'held', title: exactBytes(held)}, fmtBytes(held)), ' at one idle census: ',
        paths.map((p, i) => [i ? ', ' : '', h('code', {class: 'path'}, pathText(p))]))
      : null,
    max > 0
      ? [h('p', null, 'Explains up to ', h('strong', {class: 'explained', title: exactBytes(max)}, fmtBytes(max)),
        ' retained in one idle window:'), explainsTable(ctx, item)]
      : held > 0 ? null : h('p', {class: 'muted'}, 'Explains no retained bytes and names no holder in these runs.'),
    links.length ? h('p', {class: 'muted'}, 'Linked to sites whose stack contains: ',
      links.map((f, i) => [i ? ', ' : '', h('code', null, f)])) : null,
    related.length ? h('ul', {class: 'compact'}, related.map((r) =>
      h('li', null, h('span', {class: 'mono'}, locText(r.location)), ': ', str(r.message)))) : null);
}

function findingsSection(ctx) {
  const f = obj(ctx.report.findings);
  const items = arr(f.items);
  const errors = arr(f.errors);
  const explaining = items.filter(accounts).length;
  return h('section', {id: 'findings'}, h('h2', null, 'Findings'),
    typeof f.source === 'string'
      ? h('p', null, items.length + ' findings from ', h('span', {class: 'mono break'}, f.source), ', ' + explaining +
        ' of them explaining retained bytes or naming their holders, in the order of the file.')
      : h('p', {class: 'muted'}, 'No findings file was given: memfloor analyze --findings findings.json links ' +
        'memfloor-check\u2019s findings to the bytes they explain.'),
    errors.length ? h('div', {class: 'warning'}, 'The checker could not read some units:',
      h('ul', {class: 'compact'}, errors.map((e) => h('li', {class: 'mono break'}, str(e))))) : null,
    items.map((item) => findingCard(ctx, item)));
}
