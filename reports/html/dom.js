// The report page's DOM helpers: elements made with createElement, attributes set through
// setAttribute and text put in text nodes; readers that take the untrusted data defensively; the
// tables, fact lists, cards and badges the sections are made of.

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

function facts(pairs) {
  return h('dl', {class: 'facts'}, pairs.filter((p) => p).map(([k, v]) => [h('dt', null, k), h('dd', null, v)]));
}

function card(label, value, detail, attrs) {
  return h('div', Object.assign({class: 'card'}, attrs || {}),
    h('div', {class: 'label'}, label), h('div', {class: 'value'}, value),
    detail ? h('div', {class: 'detail'}, detail) : null);
}
