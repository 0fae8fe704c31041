// The report page's overview: the summary cards (trend verdict, worst steady idle floor, runs,
// findings, gate) and, when the report has more than one run, the table of runs.

// A run's largest steady idle floor over its devices' headline memories (allocated where a device
// has blocks, else device memory), with the reserved floor beside an allocated one: the report's
// view runs[].steady_headline (null: none).
const steadyFloor = (run) => (obj(run).steady_headline && typeof run.steady_headline === 'object'
  ? run.steady_headline : null);

const VERDICT_TEXT = {
  growing: 'the idle floor grows from iteration to iteration in at least one run',
  stable: 'no run\u2019s idle floor grows',
  unknown: 'too few iterations to fit a trend',
};

function summarySection(ctx) {
  const summary = obj(ctx.report.summary);
  const verdict = str(summary.verdict) || 'unknown';
  const worst = ctx.worst;
  const items = arr(obj(ctx.report.findings).items);
  const explaining = items.filter(accounts).length;
  const worstRun = worst ? ctx.runs[num(worst.run)] : null;
  const steady = steadyFloor(worstRun);
  const reserved = steady && sameKey(steady, worst) && isNum(steady.reserved_idle_floor)
    ? {idle_floor: steady.reserved_idle_floor} : null;
  const cards = [
    card('Idle-floor trend', badge(verdict, verdict), VERDICT_TEXT[verdict] || ''),
    worst
      ? card('Worst steady idle floor', h('span', {id: 'worst-idle-floor', title: exactBytes(worst.idle_floor)}, fmtBytes(worst.idle_floor)),
        ['in ', h('a', {href: '#run-' + num(worst.run), id: 'worst-run'}, str(worst.label)), ', ' +
          keyName(worst, hasBlocks(worstRun, worst.device)) + ', after iteration ' + num(worst.iteration),
        reserved ? ['; reserved ', h('span', {id: 'worst-reserved-floor', title: exactBytes(reserved.idle_floor)},
          fmtBytes(reserved.idle_floor))] : null])
      : card('Worst steady idle floor', DASH, 'no run has an idle window of device memory'),
    card('Runs', String(num(summary.runs) || ctx.runs.length), ctx.runs.length > 1 ? 'one per trace (rank or process)' : 'one trace'),
    card('Findings', String(items.length), typeof obj(ctx.report.findings).source === 'string'
      ? explaining + ' of them explain retained bytes or name their holders' : 'no findings file given'),
  ];
  if (ctx.gate) {
    const v = str(obj(ctx.gate).verdict);
    const regressed = arr(obj(ctx.gate).checks).filter((c) => obj(c).regression === true).length;
    cards.push(card('Gate', badge(v, v), plural(regressed, 'check') + ' regressed, ' +
      plural(arr(obj(ctx.gate).new_findings).length, 'new finding')));
  }
  return h('section', {id: 'summary'}, h('h2', null, 'Summary'), h('div', {class: 'cards'}, cards));
}

// The runs' steady idle floors side by side, the largest first: in a pipeline the ranks' floors
// differ (the first stage holds the most in-flight activations), and the worst is what fails.
function floorBars(ctx) {
  const floors = ctx.runs.map((run, i) => ({i, label: str(run.label), floor: steadyFloor(run)}))
    .filter((r) => r.floor).map((r) => ({...r, bytes: num(r.floor.idle_floor)}))
    .sort((a, b) => b.bytes - a.bytes || a.i - b.i);
  if (floors.length < 2) return null;
  const most = Math.max(1, floors[0].bytes);
  return h('div', {id: 'run-floors', class: 'run-floors'},
    h('p', {class: 'muted'}, 'Steady idle floor per run, the largest first:'),
    ...floors.map((r) => h('div', {class: 'run-floor' + (r.i === ctx.worstRun ? ' worst' : '')},
      h('a', {class: 'run-floor-label', href: '#run-' + r.i}, r.label),
      h('span', {class: 'run-floor-bar', style: 'width: ' + (100 * r.bytes / most).toFixed(1) + '%'}),
      h('span', {class: 'run-floor-value num', title: exactBytes(r.bytes)}, fmtBytes(r.bytes)))));
}

function runsTable(ctx) {
  const blocks = ctx.runs.some((run) => arr(run.devices_with_blocks).length > 0);
  const rows = ctx.runs.map((run, i) => {
    const steady = steadyFloor(run);
    const reserved = steady && isNum(steady.reserved_idle_floor) ? {idle_floor: steady.reserved_idle_floor} : null;
    const isWorst = i === ctx.worstRun;
    const peak = isNum(run.headline_peak) ? run.headline_peak : undefined;
    const trend = str(obj(run.trend).verdict) || 'unknown';
    const notes = [];
    if (!obj(run.trace).complete) notes.push('trace incomplete');
    if (num(obj(run.dropped).cupti) || num(obj(run.dropped).writer)) notes.push('records dropped');
    if (run.iteration_source === 'detected') notes.push('iterations detected');
    else if (run.iteration_source !== 'markers') notes.push('no iteration markers');
    return h('tr', {class: isWorst ? 'worst' : null},
      h('td', {class: 'nowrap'}, h('a', {href: '#run-' + i}, str(run.label)), isWorst ? [' ', badge('worst', 'worst')] : null),
      h('td', {class: 'mono break'}, str(obj(run.trace).path)),
      h('td', {class: 'num'}, fmtInt(iterationCount(run))),
      bytesCell(steady ? steady.idle_floor : undefined),
      blocks ? bytesCell(reserved ? reserved.idle_floor : undefined) : null,
      h('td', {class: 'num'}, steady ? String(num(steady.iteration)) : DASH),
      bytesCell(peak),
      h('td', null, badge(trend, trend)),
      h('td', null, notes.join(', ')));
  });
  return h('section', {id: 'runs'}, h('h2', null, 'Runs'),
    floorBars(ctx),
    ctx.worst ? h('p', null, 'Worst run: ', h('strong', null, str(ctx.worst.label)),
      ', whose steady idle floor of ' + (blocks ? 'allocated memory (device memory where no blocks were recorded)'
        : 'device memory') + ' is the largest.') : null,
    table(['run', 'trace', ['iterations', 'num'], [blocks ? 'steady idle floor (allocated)' : 'steady idle floor (device)', 'num'],
      blocks ? ['steady reserved floor', 'num'] : null, ['after iteration', 'num'],
      [blocks ? 'peak (allocated)' : 'peak (device)', 'num'], 'trend', 'notes'].filter((x) => x), rows, {id: 'runs-table'}));
}
