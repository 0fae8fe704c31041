// The report page's gate section (with --gate): the verdict, the reports compared, the
// thresholds, the checks that regressed (all of them in a fold-out) and the new findings.

// "idle_floor: rises above 1.00 MiB and 1%" (a rise regresses when it exceeds both).
function thresholdText(name, value) {
  const v = obj(value);
  if (isNum(v.bytes) || isNum(v.percent)) {
    return str(name) + ': rises above ' + fmtBytes(num(v.bytes)) + ' and ' + num(v.percent) + '%';
  }
  return str(name) + ': ' + (typeof value === 'object' ? JSON.stringify(value) : str(value));
}

function gateSection(gate) {
  const g = obj(gate);
  const verdict = str(g.verdict);
  const checks = arr(g.checks).map(obj);
  const regressed = checks.filter((c) => c.regression === true);
  // A run with blocks on a device has checks of kind block there: its device memory is reserved.
  const blockDevices = new Set(checks.filter((c) => c.kind === 'block').map((c) => str(c.run) + '\u0000' + num(c.device)));
  const thresholds = Object.entries(obj(g.thresholds));
  const row = (c) => h('tr', {class: c.regression === true ? 'regressed' : null},
    h('td', {class: 'nowrap'}, str(c.metric)), h('td', {class: 'nowrap'}, str(c.run)), memCell(c, blockDevices.has(str(c.run) + '\u0000' + num(c.device))),
    h('td', {class: 'where'}, str(c.site)),
    bytesCell(c.baseline), bytesCell(c.current),
    h('td', {class: 'num', title: exactBytes(c.delta)}, fmtSignedBytes(c.delta)),
    h('td', {class: 'num'}, fmtPercent(c.delta_percent)));
  const headers = ['metric', 'run', 'memory', 'site', ['baseline', 'num'], ['current', 'num'], ['change', 'num'], ['change %', 'num']];
  const newFindings = arr(g.new_findings).map(obj);
  return h('section', {id: 'gate'},
    h('h2', null, 'Gate: ', badge(verdict, verdict)),
    facts([['baseline', h('span', {class: 'mono break'}, str(g.baseline))],
      ['current', h('span', {class: 'mono break'}, str(g.current))],
      thresholds.length ? ['thresholds', thresholds.map(([k, v]) => thresholdText(k, v)).join('; ')] : null,
      arr(g.missing_runs).length ? ['runs only in the baseline', arr(g.missing_runs).map(str).join(', ')] : null,
      arr(g.added_runs).length ? ['runs only in the current report', arr(g.added_runs).map(str).join(', ')] : null]),
    regressed.length
      ? [h('h3', null, 'Checks that regressed (' + regressed.length + ' of ' + checks.length + ')'),
        longTable(headers, regressed, row, {id: 'gate-regressed'})]
      : h('p', null, 'No check regressed (' + checks.length + ' checks).'),
    checks.length > regressed.length
      ? h('details', null, h('summary', null, 'All ' + checks.length + ' checks'), longTable(headers, checks, row))
      : null,
    h('h3', null, 'New findings (' + newFindings.length + ')'),
    newFindings.length
      ? h('ul', {class: 'compact'}, newFindings.map((f) => h('li', null, badge(str(f.rule), 'bad'), ' ',
        h('span', {class: 'mono'}, locText(f.location)), ': ', str(f.message))))
      : h('p', {class: 'muted'}, 'None: every finding of the current report is in the baseline.'));
}
