// The report page's DOM helpers: elements made with createElement, attributes set through
// setAttribute and text put in text nodes; readers that take the untrusted data defensively; the
// tables (long ones drawn in part, the rest on demand), fact lists, cards and badges the sections
// are made of; a run's iterations, kept whole or in ranges of alike ones.

const SVG_NS = 'http://www.w3.org/2000/svg';

// ---- Elements: attributes through setAttribute, text through text nodes -------------------------

function append(node, kids) {
  for (const kid of kids) {
    if (kid === null || kid === undefined || kid === false) continue;
    if (Array.isArray(kid)) append(node, kid);
    else if (kid instanceof Node) node.appendChild(kid);
    else node.appendChild(document.createTextNode(String(kid)));
  }
  return node;
}

function setAttrs(node, attrs) {
  for (const [name, value] of Object.entries(attrs || {})) {
    if (value === null || value === undefined || value === false) continue;
    if (/^on/i.test(name)) throw new Error('refusing to set an event handler attribute: ' + name);
    node.setAttribute(name, String(value));
  }
  return node;
}

function h(tag, attrs, ...kids) {
  return append(setAttrs(document.createElement(tag), attrs), kids);
}

function svg(tag, attrs, ...kids) {
  return append(setAttrs(document.createElementNS(SVG_NS, tag), attrs), kids);
}

// ---- Reading untrusted data defensively ---------------------------------------------------------

const arr = (x) => (Array.isArray(x) ? x : []);
const obj = (x) => (x && typeof x === 'object' && !Array.isArray(x) ? x : {});
const num = (x) => (typeof x === 'number' && isFinite(x) ? x : 0);
const isNum = (x) => typeof x === 'number' && isFinite(x);
const str = (x) => (typeof x === 'string' ? x : x === null || x === undefined ? '' : String(x));
const tallyBytes = (t) => (t && typeof t === 'object' ? t.bytes : undefined);
// The entry of `x.memory` of one device and memory kind ({} when there is none).
const memoryOf = (x, key) => obj(arr(obj(x).memory).find((m) => sameKey(obj(m), key)));

// ---- A run's iterations: the rows kept whole and the ranges of alike ones -----------------------

// memfloor.report/3 stores runs of consecutive iterations whose idle windows repeat a kept row's
// once (runs[].iteration_ranges); a memfloor.report/2 document has none: every iteration is a row.
// How many iterations there are, and the order of rows and ranges, are the report's views
// (runs[].iteration_count, runs[].entries).
const iterationRanges = (run) => arr(obj(run).iteration_ranges).map(obj);
const rangeCount = (r) => num(r.count) || Math.max(0, num(r.last) - num(r.first) + 1);
const iterationCount = (run) => num(obj(run).iteration_count);

// The rows and the ranges in the order of their iterations, each as {row} or {range, like}: `like`
// is the kept row whose idle window (floor, retained, explained, sites) every window of the range
// repeats, or, in a trend range (one with a `step`), starts from ({} when the report lacks it):
// windowAt gives the window of any of its iterations.
function iterationEntries(run) {
  const rows = arr(obj(run).iterations).map(obj);
  const ranged = iterationRanges(run);
  return arr(obj(run).entries).map(obj).map((e) => ('row' in e
    ? {row: rows[num(e.row)] || {}}
    : {range: ranged[num(e.range)] || {}, like: rows[e.like] === undefined ? {} : rows[num(e.like)]}));
}

// `x` with every number that `step` (of the same shape) has moved by `n` steps; `device` and
// `kind` name the memory, they do not step.
function stepped(x, step, n) {
  const out = {...obj(x)};
  for (const [k, s] of Object.entries(obj(step))) {
    if (k === 'device' || k === 'kind') continue;
    if (isNum(s)) out[k] = num(out[k]) + s * n;
    else if (s && typeof s === 'object' && !Array.isArray(s)) out[k] = stepped(out[k], s, n);
  }
  return out;
}

// The idle window of iteration `index` of a range entry, as a row: its like row's, moved (index -
// like) steps in a trend range (docs/report-schema.md, "iteration_ranges[]": memory[].idle's floor
// and retained, top_sites' retained; unexplained derived again as the writer derives it).
function windowAt(entry, index) {
  const step = entry.range.step;
  if (!step || typeof step !== 'object') return entry.like;
  const n = index - num(entry.range.like);
  const like = obj(entry.like);
  const memory = arr(like.memory).map((m, p) => {
    const s = arr(step.memory)[p];
    if (!s) return m;
    const idle = stepped(obj(m).idle, s, n);
    const r = obj(idle.retained), counted = (k) => num(obj(r.inter_iteration)[k]) + num(obj(r.leak)[k]);
    const explained = obj(idle.explained);
    idle.unexplained = {bytes: Math.max(0, counted('bytes') - num(explained.bytes)),
      count: Math.max(0, counted('count') - num(explained.count))};
    return {...obj(m), idle};
  });
  const sites = arr(like.top_sites).map((site, k) => stepped(site, arr(step.top_sites)[k], n));
  return {...like, memory, top_sites: sites};
}

// ---- What the sections are made of --------------------------------------------------------------

// Table cells name memory shortly: "device 0 · pinned"; "device 0 · allocated" for blocks and
// "device 0 · reserved" for the device memory of a device with blocks (levelOf).
const memCell = (x, blocks) => h('td', {class: 'nowrap'}, 'device ' + num(x.device) + ' \u00b7 ' +
  (levelOf(x.kind, blocks) || str(x.kind)));
const bytesCell = (n) => h('td', {class: 'num', title: exactBytes(n)}, fmtBytes(n));
const badge = (text, cls) => h('span', {class: 'badge ' + (cls || '')}, text);
// A class of bytes (inter_iteration, leak, ...) as a badge: "inter-iteration", coloured by class.
const classBadge = (cls) => badge(cls.replace(/_/g, '-'), cls);

function table(headers, rows, attrs) {
  const head = h('tr', null, headers.map((x) => (Array.isArray(x) ? h('th', {class: x[1]}, x[0]) : h('th', null, x))));
  return h('div', {class: 'table-wrap'}, h('table', attrs, h('thead', null, head), h('tbody', null, rows)));
}

// A long list stays light: of more than LIST_ALL items only the first LIST_HEAD and the last
// LIST_TAIL are drawn at first (a run of 100,000 iterations would otherwise make as many rows),
// with a gap between them whose buttons draw the next LIST_STEP, or all of them, on demand.
const LIST_ALL = 200, LIST_HEAD = 50, LIST_TAIL = 50, LIST_STEP = 1000;

// `items` drawn by `make(item, i)` (a node each); `gap(kids)` makes the element holding the gap's
// text and buttons (a table row, a paragraph); `noun`: what the items are, plural.
function lazyItems(items, make, gap, noun) {
  if (items.length <= LIST_ALL) return items.map(make);
  const end = items.length - LIST_TAIL;
  let next = LIST_HEAD;
  const label = h('span', null);
  const more = h('button', {type: 'button', class: 'more'});
  const all = h('button', {type: 'button', class: 'more'});
  const holder = gap([label, ' ', more, ' ', all]);
  holder.classList.add('gap');
  const update = () => {
    const left = end - next;
    label.textContent = fmtInt(left) + ' more ' + noun + ' not drawn:';
    more.textContent = 'show the next ' + fmtInt(Math.min(LIST_STEP, left));
    all.textContent = 'show all ' + fmtInt(left);
  };
  const show = (count) => {
    const stop = Math.min(end, next + count);
    const drawn = document.createDocumentFragment();
    for (; next < stop; next++) drawn.appendChild(make(items[next], next));
    holder.parentNode.insertBefore(drawn, holder);
    if (next >= end) holder.remove();
    else update();
  };
  more.addEventListener('click', () => show(LIST_STEP));
  all.addEventListener('click', () => show(end - next));
  update();
  return [items.slice(0, LIST_HEAD).map(make), holder, items.slice(end).map((x, i) => make(x, end + i))];
}

// A table of `items`, one row each by `make`, drawn in part when long (lazyItems).
function longTable(headers, items, make, attrs) {
  const gap = (kids) => h('tr', null, h('td', {colspan: headers.length}, kids));
  return table(headers, lazyItems(items, make, gap, 'rows'), attrs);
}

// A path or a qualified name that wraps only at its separators (after `.`, `/`, `:`, before `[`),
// never inside an identifier: its parts with <wbr> between them.
function pathText(text) {
  const parts = str(text).split(/(?<=[./:])|(?=\[)/);
  return parts.flatMap((p, i) => (i ? [h('wbr'), p] : [p]));
}

function facts(pairs) {
  return h('dl', {class: 'facts'}, pairs.filter((p) => p).map(([k, v]) => [h('dt', null, k), h('dd', null, v)]));
}

function card(label, value, detail, attrs) {
  return h('div', Object.assign({class: 'card'}, attrs || {}),
    h('div', {class: 'label'}, label), h('div', {class: 'value'}, value),
    detail ? h('div', {class: 'detail'}, detail) : null);
}
