// memfloor report page: draws the embedded report (memfloor.report/3 or /2) and gate result
// (memfloor.gate/1). Everything is built with createElement and text nodes: no string from the
// data is ever parsed as HTML, so names from traces and source lines show as they are.
//
// The script is the .js files of reports/html/, which html_report.cpp joins in a fixed order inside
// the one function of report.html's script element. This file, the entry, comes last: it reads the
// embedded JSON and lays out the page.

// The majors of memfloor.report this page reads: /3 adds ranges of alike iterations
// (runs[].iteration_ranges) and explains over ranges (last_iteration), which /2 lacks.
const READS = ['memfloor.report/2', 'memfloor.report/3'];

function readJson(id) {
  const node = document.getElementById(id);
  if (!node) return null;
  const text = node.textContent.trim();
  return text ? JSON.parse(text) : null;
}

function header(ctx) {
  const tool = obj(ctx.report.tool);
  const nav = h('nav', {class: 'muted'}, 'Go to: ', h('a', {href: '#summary'}, 'summary'),
    ctx.worst ? [' \u00b7 ', h('a', {href: '#answer'}, 'what holds it')] : null,
    ctx.gate ? [' \u00b7 ', h('a', {href: '#gate'}, 'gate')] : null,
    ctx.runs.length > 1 ? [' \u00b7 ', h('a', {href: '#runs'}, 'runs')] : null,
    ctx.runs.map((run, i) => [' \u00b7 ', h('a', {href: '#run-' + i}, str(run.label) || 'run ' + (i + 1))]),
    ' \u00b7 ', h('a', {href: '#findings'}, 'findings'));
  return h('header', null, h('h1', null, 'memfloor report'),
    h('div', {class: 'subtitle'}, str(tool.name) + ' ' + str(tool.version) + ' \u00b7 ' + str(ctx.report.schema) +
      ' \u00b7 ' + ctx.runs.length + (ctx.runs.length === 1 ? ' run' : ' runs')),
    nav);
}

function render() {
  const root = document.getElementById('report');
  const report = obj(readJson('memfloor-report'));
  const gate = readJson('memfloor-gate');
  const summary = obj(report.summary);
  const worst = summary.worst && typeof summary.worst === 'object' ? summary.worst : null;
  const ctx = {
    report, gate, worst,
    runs: arr(report.runs).map(obj),
    worstRun: worst ? num(worst.run) : -1,
    findingsById: new Map(arr(obj(report.findings).items).map((f) => [str(obj(f).id), obj(f)])),
  };
  if (ctx.worst) document.title = 'memfloor report: ' + str(ctx.worst.label) + ', ' + fmtBytes(ctx.worst.idle_floor);
  root.textContent = '';
  const schema = str(report.schema);
  append(root, [header(ctx),
    READS.includes(schema) ? null : h('div', {class: 'warning'}, 'This page reads ' + READS.join(' and ') +
      '; the report is ' + (schema || 'of no schema') + ': what it stores otherwise may be missing or wrong here.'),
    summarySection(ctx), answerSection(ctx), gate ? gateSection(gate) : null,
    ctx.runs.length > 1 ? runsTable(ctx) : null,
    ctx.runs.map((run, i) => runSection(ctx, run, i)),
    findingsSection(ctx)]);
}

try {
  render();
  // Drawn: what bench/render_time.mjs waits for, and when it was done since navigation started.
  performance.mark('memfloor-rendered');
  document.body.dataset.rendered = '1';
} catch (e) {
  const root = document.getElementById('report');
  root.textContent = '';
  root.appendChild(h('p', {class: 'warning bad'}, 'The report could not be drawn: ' + e.message));
  throw e;
}
