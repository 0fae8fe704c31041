// The report page's section of one run: its warnings and facts, then per device and memory kind
// the peak, the trend, the live-bytes chart (chart.js), the per-iteration table (a range of alike
// iterations as one row) and the peaks (peaks.js); then its retaining sites (sites.js) and what
// its idle censuses found (held.js).

function runWarnings(run) {
  const out = [];
  const trace = obj(run.trace);
  const dropped = obj(run.dropped);
  if (trace.complete === false) out.push(h('div', {class: 'warning'}, 'The trace is incomplete: ' + str(trace.ending)));
  if (num(dropped.cupti) || num(dropped.writer)) {
    out.push(h('div', {class: 'warning bad'}, 'Records were dropped (CUPTI: ' + fmtInt(num(dropped.cupti)) +
      ', tracer: ' + fmtInt(num(dropped.writer)) + '): floors may be off.'));
  }
  if (run.iteration_source === 'detected') {
    const d = obj(run.detection);
    out.push(h('div', {class: 'warning'}, 'No marker matched the iteration pattern ' + str(run.iteration_pattern) +
      ': iterations were detected. Period ' + fmtNs(num(d.period_ns)) + ', from the allocations of ' +
      fmtBytes(num(d.size)) + ' at ' + (str(d.where) || '(no stack)') +
      (num(d.every) > 1 ? ', one in ' + num(d.every) : '') +
      '; each iteration begins where the longest quiet gap of its period ends.'));
  } else if (run.iteration_source === 'steps') {
    out.push(h('p', {class: 'muted'}, 'No marker matched the iteration pattern ' + str(run.iteration_pattern) +
      ': each iteration is one training step as the program took it, from its first forward to the end of its ' +
      'last optimizer step; its idle window lasts until the next step\u2019s first forward.'));
  } else if (run.iteration_source !== 'markers') {
    out.push(h('div', {class: 'warning'}, 'No marker matched the iteration pattern ' + str(run.iteration_pattern) +
      ': there are no iterations, only the whole-trace summary.'));
  }
  const a = obj(run.anomalies);
  const odd = [];
  // "name: count" reads right for any count (no plural to get wrong).
  if (num(tallyBytes(a.unmatched_frees)) || num(obj(a.unmatched_frees).count)) odd.push('unmatched frees: ' + fmtInt(num(obj(a.unmatched_frees).count)));
  if (num(obj(a.double_allocations).count)) odd.push('double allocations: ' + fmtInt(num(obj(a.double_allocations).count)));
  for (const k of ['size_mismatches', 'unmatched_range_ends', 'unclosed_ranges', 'out_of_order_records',
    'blocks_outside_segments']) {
    if (num(a[k])) odd.push(k.replace(/_/g, ' ') + ': ' + fmtInt(num(a[k])));
  }
  if (odd.length) out.push(h('div', {class: 'warning'}, 'Anomalies: ' + odd.join(', ') + '.'));
  for (const w of Array.isArray(a.warnings) ? a.warnings : []) out.push(h('div', {class: 'warning'}, 'Warning: ' + str(w)));
  if (num(a.warnings_left_out)) {
    out.push(h('div', {class: 'warning'}, 'And ' + fmtInt(num(a.warnings_left_out)) +
      ' more records the analysis could not take as they are.'));
  }
  const tail = a.cut_tail;
  if (tail && typeof tail === 'object') {
    out.push(h('div', {class: 'warning'}, 'The trace was cut: memory records from ' +
      fmtInt(num(tail.from_ns)) + ' ns on may be missing (one flush period); unmatched frees: ' +
      fmtInt(num(obj(tail.unmatched_frees).count)) + ', double allocations: ' +
      fmtInt(num(obj(tail.double_allocations).count)) + ' fall there.'));
  }
  return out;
}

// Of the iterations, those stored in ranges of alike ones (memfloor.report/3) or along a trend, said
// after the count.
function rangesFact(run) {
  const ranged = iterationRanges(run);
  if (!ranged.length) return '';
  const count = ranged.reduce((n, r) => n + rangeCount(r), 0);
  const trends = ranged.filter((r) => r.step).length;
  return '; ' + fmtInt(count) + ' of them in ' + plural(ranged.length, 'range') + ' of iterations whose idle ' +
    'windows repeat a kept one\u2019s' + (trends ? ' or step evenly from it (' + plural(trends, 'trend') + ')' : '');
}

function runFacts(run) {
  const trace = obj(run.trace);
  const proc = obj(run.process);
  const rec = obj(trace.records);
  const version = obj(trace.version);
  const pairs = [
    ['trace', h('span', {class: 'mono break'}, str(trace.path))],
    ['format', num(version.major) + '.' + num(version.minor) + ', ' + str(trace.ending)],
    ['records', fmtInt(num(rec.total)) + ' (' + fmtInt(num(rec.allocs)) + ' allocations, ' + fmtInt(num(rec.frees)) +
      ' frees, ' + fmtInt(num(rec.markers)) + ' markers' +
      (num(rec.steps) ? ', ' + fmtInt(num(rec.steps)) + ' step records' : '') + ')'],
    ['duration', fmtNs(num(trace.end_ns) - num(trace.first_ns))],
    ['iterations', fmtInt(iterationCount(run)) + ' from ' + str(run.iteration_source) + ' (pattern ' +
      str(run.iteration_pattern) + ', ' + num(run.warmup_iterations) + ' warm-up)' + rangesFact(run)],
  ];
  if (proc.present) {
    pairs.push(['process', 'pid ' + num(proc.pid) + ' on ' + str(proc.host) +
      (num(proc.rank) >= 0 ? ', rank ' + num(proc.rank) + ' of ' + num(proc.world_size) : '')]);
    pairs.push(['command', h('span', {class: 'mono break'}, str(proc.command_line))]);
    for (const d of arr(proc.devices)) {
      pairs.push(['device ' + num(obj(d).device), str(obj(d).name) + ', ' + fmtBytes(num(obj(d).total_memory))]);
    }
  }
  const props = Object.entries(obj(proc.properties));
  return [facts(pairs), props.length
    ? h('details', null, h('summary', null, 'process properties (' + props.length + ')'),
      facts(props.map(([k, v]) => [h('span', {class: 'mono break'}, k), h('span', {class: 'mono break'}, str(v))])))
    : null];
}

// The numbers of an idle window of one memory `m` (an iteration's), in the table's columns; null
// for the cached column where there is none.
function idleNumbers(m, reserved) {
  const idle = obj(m.idle);
  const retained = obj(idle.retained);
  return [idle.floor, retained.bytes, tallyBytes(retained.inter_iteration), tallyBytes(retained.leak),
    tallyBytes(retained.persistent), reserved ? tallyBytes(retained.cached) : null,
    tallyBytes(idle.explained), tallyBytes(idle.unexplained)];
}

// The cells of the idle windows of one memory, the same for a kept row and a range: an alike
// range's is its `like` row's; a trend range's run from its first window `m` to its last `end`,
// shown as first–last.
function idleCells(m, reserved, end) {
  const to = end ? idleNumbers(end, reserved) : null;
  return idleNumbers(m, reserved).map((v, k) => {
    if (v === null) return null;
    if (!to || num(to[k]) === num(v)) return bytesCell(v);
    return h('td', {class: 'num spread', title: exactBytes(v) + ' \u2192 ' + exactBytes(to[k])},
      fmtBytes(v) + DASH + fmtBytes(to[k]));
  });
}

// A spread over a range's iterations: min–max, and the mean below it (the columns stay narrow);
// the exact bytes as a tooltip.
function spreadCell(spread, fmt, exact) {
  const [range, mean] = spreadParts(spread, fmt);
  const s = obj(spread);
  return h('td', {class: 'num spread', title: exact ? 'min ' + exactBytes(s.min) + ', max ' + exactBytes(s.max) +
    ', mean ' + exactBytes(s.mean) : null}, range, mean ? [h('br'), h('span', {class: 'muted'}, ' ' + mean)] : null);
}

function keptRow(it, key, reserved, worstIteration) {
  const m = memoryOf(it, key);
  const flags = [];
  if (it.warmup) flags.push(badge('warm-up'));
  if (it.complete === false) flags.push(badge('incomplete', 'warn'));
  if (obj(it.idle).final) flags.push(badge('final window'));
  if (num(it.index) === worstIteration) flags.push(badge('steady floor', 'worst'));
  const cls = [it.warmup ? 'warmup' : '', it.complete === false ? 'incomplete' : '',
    num(it.index) === worstIteration ? 'worst' : ''].filter((c) => c).join(' ');
  return h('tr', {class: cls || null},
    h('td', {class: 'num'}, String(num(it.index))),
    h('td', {class: 'break'}, str(it.name), flags.length ? ' ' : null, flags),
    h('td', {class: 'num'}, fmtNs(num(it.end_ns) - num(it.start_ns))),
    bytesCell(m.peak), idleCells(m, reserved),
    h('td', {class: 'num'}, fmtNs(num(obj(it.idle).end_ns) - num(obj(it.idle).start_ns))));
}

// A range of iterations, collapsed into one row: its idle window is `like`'s, or a trend range's
// steps from it each iteration (shown from its first window to its last); what differs between its
// iterations (durations, peaks) is a spread.
function rangeRow(entry, key, reserved) {
  const range = entry.range;
  const step = range.step ? obj(arr(obj(range.step).memory).find((m) => sameKey(obj(m), key))) : null;
  const label = step
    ? fmtInt(rangeCount(range)) + ' iterations from ' + num(range.like) + ', idle floor ' +
      fmtSignedBytes(num(step.floor)) + ' each'
    : fmtInt(rangeCount(range)) + ' iterations like ' + num(range.like);
  return h('tr', {class: 'range' + (step ? ' trend' : '')},
    h('td', {class: 'num'}, num(range.first) + DASH + num(range.last)),
    h('td', null, label),
    spreadCell(range.duration_ns, fmtNs),
    spreadCell(memoryOf(range, key).peak, fmtBytes, true),
    idleCells(memoryOf(windowAt(entry, num(range.first)), key), reserved,
      step ? memoryOf(windowAt(entry, num(range.last)), key) : null),
    spreadCell(range.idle_ns, fmtNs));
}

function iterationTable(run, key, worstIteration) {
  const reserved = isReserved(run, key);  // the only memory with cached bytes
  const entries = iterationEntries(run);
  if (!entries.length) return h('p', {class: 'muted'}, 'No iterations.');
  const make = (e) => (e.range ? rangeRow(e, key, reserved) : keptRow(e.row, key, reserved, worstIteration));
  return longTable([['#', 'num'], 'the program\u2019s name', ['duration', 'num'], ['peak', 'num'], ['idle floor', 'num'],
    ['retained', 'num'], ['inter-iteration', 'num'], ['leak', 'num'], ['persistent', 'num'],
    ...(reserved ? [['cached', 'num']] : []), ['explained', 'num'], ['unexplained', 'num'], ['idle window', 'num']],
  entries, make, {class: 'iterations'});
}

// The gate's idle-floor check of this run and memory (memfloor.gate/1 checks[], by the run's
// label), for the chart to draw its baseline; null without a gate or such a check.
function gateBaseline(gate, run, key) {
  const check = arr(obj(gate).checks).map(obj).find((c) => str(c.metric) === 'idle_floor' &&
    str(c.run) === str(run.label) && sameKey(c, key) && isNum(c.baseline));
  return check || null;
}

function memorySection(ctx, run, index, mem) {
  const key = {device: num(mem.device), kind: str(mem.kind)};
  const series = obj(arr(run.timeline).find((t) => sameKey(obj(t), key)));
  const trend = obj(arr(obj(run.trend).per_memory).find((t) => sameKey(obj(t), key)));
  const steady = obj(arr(run.steady_idle_floor).find((t) => sameKey(obj(t), key)));
  const worstIteration = num(steady.iteration);
  const verdict = str(trend.verdict) || 'unknown';
  const trendText = trend.points >= 3
    ? 'idle floor ' + fmtSignedBytes(num(trend.slope_bytes_per_iteration)) + ' per iteration over windows ' +
      num(trend.first_iteration) + DASH + num(trend.last_iteration) + ' (' + fmtBytes(num(trend.first_floor)) +
      ' \u2192 ' + fmtBytes(num(trend.last_floor)) + '; growth ' + fmtSignedBytes(num(trend.growth_bytes)) +
      ', threshold ' + fmtBytes(num(trend.threshold_bytes)) + ')'
    : 'fewer than 3 idle windows to fit';
  const cache = isReserved(run, key)
    ? ' The allocator\u2019s cache: its segments grow while it warms up, so this trend is not in the run\u2019s ' +
      'verdict, and segments one of its sites reserved in several iterations are classed cached, not leak.'
    : '';
  // A caching allocator's reserved level grows while its cache warms: not in the run's verdict.
  const trendBadge = isReserved(run, key) && verdict === 'growing'
    ? h('span', {class: 'badge', title: 'the allocator\u2019s cache: not in the run\u2019s verdict'}, 'growing (cache)')
    : badge(verdict, verdict);
  return h('div', {class: 'memory', id: 'run-' + index + '-' + key.device + '-' + key.kind},
    h('h3', null, keyName(key, hasBlocks(run, key.device)), ' ', trendBadge),
    h('p', null, 'Peak ', h('strong', {title: exactBytes(mem.peak)}, fmtBytes(mem.peak)), ' at +' +
      fmtNs(num(mem.peak_ns) - num(obj(run.trace).first_ns)) + '; live at the end ' + fmtBytes(mem.live_at_end) +
      '; ' + fmtInt(num(obj(mem.allocated).count)) + ' allocations (' + fmtBytes(num(obj(mem.allocated).bytes)) + ')' +
      (worstIteration ? '; steady idle floor ' + fmtBytes(num(steady.idle_floor)) + ' after iteration ' + worstIteration : '') + '.'),
    h('p', {class: 'muted trend'}, 'Trend: ' + trendText + '.' + cache),
    chart(run, key, series, worstIteration, gateBaseline(ctx.gate, run, key)),
    iterationTable(run, key, worstIteration),
    peakTable(run, key));
}

// The order memories are drawn in: what the program keeps first (an allocator's blocks, then
// device memory: a caching allocator's reserved level), then the rest as listed.
const MEMORY_ORDER = ['block', 'device'];
const memoryRank = (m) => {
  const k = MEMORY_ORDER.indexOf(str(m.kind));
  return k < 0 ? MEMORY_ORDER.length : k;
};

// A memory with nothing to say: static device memory (the modules' globals, sized when they load)
// of which no idle window keeps a byte from an iteration: one line, not a chart and two tables.
function quietMemory(run, m) {
  if (str(m.kind) !== 'device_static') return false;
  const key = {device: num(m.device), kind: str(m.kind)};
  const kept = (x) => {
    const retained = obj(obj(memoryOf(x, key).idle).retained);
    return num(tallyBytes(retained.inter_iteration)) + num(tallyBytes(retained.leak));
  };
  return arr(run.iterations).every((it) => !kept(it)) && iterationRanges(run).every((r) => !kept(r));
}

function quietLine(run, index, quiet) {
  if (!quiet.length) return null;
  return h('p', {class: 'muted quiet-memory', id: 'run-' + index + '-quiet'},
    'No idle window keeps bytes of an iteration (only persistent ones) in ',
    quiet.map((m, i) => [i ? '; ' : '', keyName(m, hasBlocks(run, m.device)) + ' (peak ' + fmtBytes(num(m.peak)) + ')']),
    '.');
}

function runSection(ctx, run, index) {
  run = obj(run);
  const isWorst = index === ctx.worstRun;
  const memories = arr(run.memory).map(obj).map((m, i) => ({m, i}))
    .sort((a, b) => memoryRank(a.m) - memoryRank(b.m) || a.i - b.i).map((x) => x.m);
  const quiet = memories.filter((m) => quietMemory(run, m));
  return h('section', {class: 'run', id: 'run-' + index},
    h('h2', null, str(run.label) || 'run ' + (index + 1), isWorst ? [' ', badge('worst run', 'worst')] : null),
    runWarnings(run), runFacts(run),
    memories.filter((m) => !quiet.includes(m)).map((m) => memorySection(ctx, run, index, m)),
    quietLine(run, index, quiet),
    sitesSection(ctx, run),
    heldBySection(run, index));
}
