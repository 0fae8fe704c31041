// The report page's live-bytes chart, as inline SVG: the live bytes of one device and memory kind
// over the trace, with its iterations (ranges of alike ones as one band), idle windows and idle
// floors, downsampled when there are more of them than the chart has columns.

function niceStep(raw) {
  if (!(raw > 0)) return 1;
  const p = Math.pow(10, Math.floor(Math.log10(raw)));
  const m = raw / p;
  return (m <= 1 ? 1 : m <= 2 ? 2 : m <= 2.5 ? 2.5 : m <= 5 ? 5 : 10) * p;
}

// Byte ticks at round values of the unit of `top` (0, 200 MiB, 400 MiB, ...).
function byteTicks(top) {
  if (!(top > 0)) return {max: 1, ticks: [0]};
  let scale = 1;
  while (top / scale >= 1024 && scale < Math.pow(1024, 6)) scale *= 1024;
  const step = niceStep(top / scale / 5) * scale;
  const max = Math.ceil(top / step) * step;
  const ticks = [];
  for (let v = 0; v <= max + step / 2; v += step) ticks.push(v);
  return {max, ticks};
}

// Per iteration the chart draws at most this many shapes per unit of the plot's width (a column,
// about a pixel); a run with more iterations and ranges is drawn downsampled (chart's `detailed`).
const SHAPES_PER_COLUMN = 2;

// Where an entry of iterationEntries lies: the iteration (a range: all its iterations), its idle
// window (null for a range, whose windows' times are not stored), its idle floor of `key` (null
// without a window; a range's: its first window's, and `floorEnd` its last's) and what hovering it
// says.
function chartSpan(entry, key) {
  if (entry.range) {
    const r = entry.range;
    const what = 'iterations ' + num(r.first) + DASH + num(r.last) + ' (' + fmtInt(rangeCount(r)) +
      (r.step ? ' from ' : ' like ') + num(r.like) + ')';
    const idle = obj(memoryOf(windowAt(entry, num(r.first)), key).idle);
    const end = obj(memoryOf(windowAt(entry, num(r.last)), key).idle);
    return {range: true, start: num(r.start_ns), end: num(r.end_ns), idle: null, what,
      floor: isNum(idle.floor) ? idle.floor : null, floorEnd: isNum(end.floor) ? end.floor : null,
      title: what + ': ' + fmtSpread(r.duration_ns, fmtNs) + ' each, idle windows ' + fmtSpread(r.idle_ns, fmtNs)};
  }
  const it = entry.row;
  const idle = obj(it.idle);
  const floor = obj(memoryOf(it, key).idle).floor;
  const s = num(it.start_ns), e = num(it.end_ns);
  return {range: false, start: s, end: Math.max(e, num(idle.end_ns)), iterationEnd: e, index: num(it.index),
    idle: isNum(idle.start_ns) && isNum(idle.end_ns) ? [idle.start_ns, idle.end_ns] : null,
    floor: it.idle && isNum(floor) ? floor : null,
    what: 'iteration ' + num(it.index), title: 'iteration ' + num(it.index) + ' (' + str(it.name) + '): ' + fmtNs(e - s)};
}

// One path of the plot's columns that `spans` ([start, end] in the chart's x) cover, as
// rectangles of full height, a rectangle per run of covered columns.
function columnsPath(spans, cls, L, T, height, width, title) {
  const cover = new Uint8Array(width);
  for (const [x1, x2] of spans) {
    const last = Math.min(width - 1, Math.floor(x2 - L));
    for (let c = Math.max(0, Math.floor(x1 - L)); c <= last; c++) cover[c] = 1;
  }
  let d = '';
  for (let c = 0; c < width; c++) {
    if (!cover[c]) continue;
    const first = c;
    while (c + 1 < width && cover[c + 1]) c++;
    d += `M${L + first},${T}h${c - first + 1}v${height}h${first - c - 1}z`;
  }
  return d ? svg('path', {class: cls, d}, svg('title', null, title)) : null;
}

// One path of the idle floors per column of the plot: from the lowest to the highest floor of the
// windows (and ranges) over it, columns alike in a row joined.
function floorsPath(floors, x, y, L, width) {
  const lo = new Float64Array(width).fill(Infinity), hi = new Float64Array(width).fill(-Infinity);
  for (const f of floors) {
    const x1 = x(f.start) - L, x2 = x(f.end) - L;
    // A trend's floor along the columns: from f.floor at x1 to f.floorEnd at x2.
    const at = (px) => (x2 > x1 ? f.floor + (f.floorEnd - f.floor) * Math.min(1, Math.max(0, (px - x1) / (x2 - x1))) : f.floor);
    const last = Math.min(width - 1, Math.floor(x2));
    for (let c = Math.max(0, Math.floor(x1)); c <= last; c++) {
      lo[c] = Math.min(lo[c], at(c), at(c + 1));
      hi[c] = Math.max(hi[c], at(c), at(c + 1));
    }
  }
  let d = '';
  for (let c = 0; c < width; c++) {
    if (lo[c] === Infinity) continue;
    const first = c;
    while (c + 1 < width && lo[c + 1] === lo[c] && hi[c + 1] === hi[c]) c++;
    d += `M${L + first},${y(hi[c])}H${L + c + 1}V${y(lo[c])}H${L + first}z`;
  }
  let min = Infinity, max = -Infinity, inRanges = 0;
  for (const f of floors) {
    min = Math.min(min, f.floor, f.floorEnd);
    max = Math.max(max, f.floor, f.floorEnd);
    if (f.sp.range) inRanges++;
  }
  return d ? svg('path', {class: 'floor-range', d}, svg('title', null, 'idle floors of ' +
    plural(floors.length - inRanges, 'window') + ' kept whole and ' + plural(inRanges, 'range') +
    ', lowest to highest per column: ' + fmtBytes(min) + DASH + fmtBytes(max))) : null;
}

// One chart: the min/max band and last value per bucket of `series`, iterations and idle windows
// as bands, each idle floor as a red mark; a range of alike iterations as one band with its idle
// floor (its `like`'s) across it, a trend range's rising or falling from its first window's to its
// last's. Past SHAPES_PER_COLUMN shapes per column, the ranges, the
// iterations kept whole and the floors are each one path over the columns they cover (the floors'
// from the lowest to the highest per column), so the page stays light whatever the number of
// iterations.
function chart(run, key, series, worstIteration) {
  const W = 960, H = 260, L = 74, R = 34, T = 14, B = 30;
  const plotW = W - L - R;
  const points = arr(series.points).filter((p) => Array.isArray(p) && p.length >= 4);
  const bucket = num(series.bucket_ns);
  const trace = obj(run.trace);
  const spans = iterationEntries(run).map((e) => chartSpan(e, key));
  const ranged = spans.filter((sp) => sp.range);

  const starts = [num(trace.first_ns) || Infinity];
  if (points.length) starts.push(num(points[0][0]));
  if (spans.length) starts.push(spans[0].start);
  const t0 = Math.min(...starts) === Infinity ? 0 : Math.min(...starts);
  let t1 = num(trace.end_ns);
  if (points.length) t1 = Math.max(t1, num(points[points.length - 1][0]));
  for (const sp of spans) t1 = Math.max(t1, sp.end);
  if (!(t1 > t0)) t1 = t0 + 1;

  let top = 0;
  for (const p of points) top = Math.max(top, num(p[2]));
  // A kept window's floor lies over its idle window, a range's over the whole range.
  const floors = [];
  for (const sp of spans) {
    if (sp.floor === null) continue;
    const [start, end] = sp.idle ? [num(sp.idle[0]), num(sp.idle[1])] : [sp.start, sp.end];
    const floorEnd = isNum(sp.floorEnd) ? sp.floorEnd : sp.floor;
    floors.push({sp, start, end, floor: sp.floor, floorEnd});
    top = Math.max(top, sp.floor, floorEnd);
  }
  const yAxis = byteTicks(top * 1.04);

  const px = (v) => Math.round(v * 10) / 10;
  const x = (t) => px(L + (Math.min(Math.max(t, t0), t1) - t0) / (t1 - t0) * plotW);
  const y = (v) => px(T + (1 - v / yAxis.max) * (H - T - B));
  const shapes = spans.reduce((n, sp) => n + 1 + (sp.idle ? 1 : 0) + (sp.floor !== null ? 1 : 0), 0);
  const detailed = shapes <= SHAPES_PER_COLUMN * plotW;

  const blocks = hasBlocks(run, key.device);
  const level = levelOf(key.kind, blocks) ? levelOf(key.kind, blocks) + ' ' : '';
  const root = svg('svg', {viewBox: `0 0 ${W} ${H}`, role: 'img',
    'aria-label': 'live bytes over time, ' + keyName(key, blocks)});

  // Iterations, ranges and idle windows.
  const bands = svg('g', {class: 'bands'});
  const band = (cls, s, e, title) => svg('rect', {class: cls, x: x(s), y: T,
    width: Math.max(0.5, x(e) - x(s)), height: H - T - B}, svg('title', null, title));
  if (detailed) {
    spans.forEach((sp, i) => {
      if (sp.range) {
        bands.appendChild(band('range-band', sp.start, sp.end, sp.title));
        return;
      }
      bands.appendChild(band('iter-band' + (i % 2 ? ' alt' : ''), sp.start, sp.iterationEnd, sp.title));
      if (sp.idle) {
        bands.appendChild(band('idle-band', sp.idle[0], sp.idle[1],
          'idle window after ' + sp.what + ': ' + fmtNs(sp.idle[1] - sp.idle[0])));
      }
    });
  } else {
    // The ranges, then over them the columns where an iteration is kept whole (where the run's idle
    // windows change). Idle windows are left out: a column holds many, it would be all idle.
    const kept = spans.filter((sp) => !sp.range);
    append(bands, [
      columnsPath(ranged.map((sp) => [x(sp.start), x(sp.end)]), 'range-band', L, T, H - T - B, plotW,
        plural(ranged.length, 'range') + ' of alike iterations'),
      columnsPath(kept.map((sp) => [x(sp.start), x(sp.end)]), 'iter-band', L, T, H - T - B, plotW,
        plural(kept.length, 'iteration') + ' kept whole, with their idle windows'),
    ]);
  }
  root.appendChild(bands);

  // Grid and axes.
  const grid = svg('g', null);
  for (const v of yAxis.ticks) {
    grid.appendChild(svg('line', {class: 'grid', x1: L, x2: W - R, y1: y(v), y2: y(v)}));
    grid.appendChild(svg('text', {class: 'tick', x: L - 6, y: y(v) + 4, 'text-anchor': 'end'}, fmtBytes(v)));
  }
  const xStep = niceStep((t1 - t0) / 6);
  for (let t = 0; t <= t1 - t0 + xStep / 1000; t += xStep) {
    grid.appendChild(svg('line', {class: 'axis', x1: x(t0 + t), x2: x(t0 + t), y1: H - B, y2: H - B + 4}));
    grid.appendChild(svg('text', {class: 'tick', x: x(t0 + t), y: H - B + 16, 'text-anchor': 'middle'},
      t === 0 ? '0' : '+' + fmtNs(t)));
  }
  grid.appendChild(svg('line', {class: 'axis', x1: L, x2: W - R, y1: H - B, y2: H - B}));
  grid.appendChild(svg('line', {class: 'axis', x1: L, x2: L, y1: T, y2: H - B}));
  root.appendChild(grid);

  // The band (min..max per bucket, the last value carried over gaps) and the last-value line.
  // Live bytes are 0 before the first record.
  const upper = [], lower = [], line = [[t0, 0]];
  let prevLast = 0, prevEnd = t0;
  for (const p of points) {
    const start = num(p[0]), end = Math.min(start + bucket, t1);
    if (start > prevEnd) {
      upper.push([prevEnd, prevLast], [start, prevLast]);
      lower.push([prevEnd, prevLast], [start, prevLast]);
    }
    upper.push([start, num(p[2])], [end, num(p[2])]);
    lower.push([start, num(p[1])], [end, num(p[1])]);
    line.push([start, prevLast], [end, num(p[3])]);
    prevLast = num(p[3]);
    prevEnd = end;
  }
  upper.push([prevEnd, prevLast], [t1, prevLast]);
  lower.push([prevEnd, prevLast], [t1, prevLast]);
  line.push([t1, prevLast]);
  const coords = (list) => list.map(([t, v]) => x(t) + ',' + y(v)).join(' ');
  if (points.length) {
    root.appendChild(svg('polygon', {class: 'band', points: coords(upper.concat(lower.reverse()))}));
  }
  root.appendChild(svg('polyline', {class: 'last', points: coords(line)}));

  // Idle floors: a mark each, or downsampled, one path and the steady floor's mark.
  const marks = svg('g', null);
  let worstMark = null;
  const mark = ({sp, start, end, floor, floorEnd}) => {
    const x1 = x(start);
    const x2 = Math.max(x1 + 4, x(end));
    const isWorst = sp.index === worstIteration;
    // A trend's floor runs from its first window's to its last's.
    const to = floorEnd !== floor ? ' \u2192 ' + fmtBytes(floorEnd) + ' (' + exactBytes(floorEnd) + ')' : '';
    marks.appendChild(svg('line', {class: 'floor-mark' + (sp.range ? ' range' : '') + (isWorst ? ' worst' : ''),
      x1, x2, y1: y(floor), y2: y(floorEnd)},
    svg('title', null, 'idle floor ' + (sp.range ? 'of ' : 'after ') + sp.what + ': ' + fmtBytes(floor) +
      ' (' + exactBytes(floor) + ')' + to)));
    if (isWorst) worstMark = {x: (x1 + x2) / 2, y: y(floor), floor};
  };
  if (detailed) {
    floors.forEach(mark);
  } else {
    append(marks, [floorsPath(floors, x, y, L, plotW)]);
    const worst = floors.find((f) => f.sp.index === worstIteration);
    if (worst) mark(worst);
  }
  if (worstMark) {
    const right = worstMark.x > W - 180;
    marks.appendChild(svg('text', {class: 'floor-label', x: worstMark.x + (right ? -6 : 6),
      y: Math.max(T + 12, worstMark.y - 6), 'text-anchor': right ? 'end' : 'start'},
      'steady ' + level + 'idle floor ' + fmtBytes(worstMark.floor)));
  }
  root.appendChild(marks);

  const legend = h('div', {class: 'legend'},
    h('span', null, h('span', {class: 'swatch band'}), 'min' + DASH + 'max live bytes per ' + fmtNs(bucket)),
    h('span', null, h('span', {class: 'swatch last'}), level + 'live bytes'),
    h('span', null, h('span', {class: 'swatch iter'}), 'iteration'),
    ranged.length ? h('span', null, h('span', {class: 'swatch range'}), 'alike iterations (a range)' +
      (ranged.some((sp) => sp.floorEnd !== sp.floor) ? ', or along a trend' : '')) : null,
    detailed ? h('span', null, h('span', {class: 'swatch idle'}), 'idle window') : null,
    h('span', null, h('span', {class: 'swatch floor'}), level + 'idle floor' + (detailed ? '' : 's, lowest to highest')));
  const count = iterationCount(run);
  return h('figure', {class: 'chart'}, root, legend,
    h('figcaption', null, plural(points.length, 'point') + ' over ' + fmtNs(t1 - t0) + ' (time since the trace began)' +
      (detailed ? '' : '; ' + fmtInt(count) + ' iterations, drawn downsampled: per column of the chart the ' +
        'iterations kept whole and the ranges it covers, and the lowest to highest idle floor there')));
}
