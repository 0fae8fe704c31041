// memfloor report page: draws the embedded report (memfloor.report/2) and gate result
// (memfloor.gate/1). Everything is built with createElement and text nodes: no string from the
// data is ever parsed as HTML, so names from traces and source lines show as they are.
'use strict';
(function () {
  const SVG_NS = 'http://www.w3.org/2000/svg';
  const UNITS = ['B', 'KiB', 'MiB', 'GiB', 'TiB', 'PiB', 'EiB'];
  const MICRO = '\u00b5';
  const DASH = '\u2013';

  // ---- DOM helpers: attributes through setAttribute, text through text nodes ----------------

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

  // ---- Reading untrusted data defensively ----------------------------------------------------

  const arr = (x) => (Array.isArray(x) ? x : []);
  const obj = (x) => (x && typeof x === 'object' && !Array.isArray(x) ? x : {});
  const num = (x) => (typeof x === 'number' && isFinite(x) ? x : 0);
  const isNum = (x) => typeof x === 'number' && isFinite(x);
  const str = (x) => (typeof x === 'string' ? x : x === null || x === undefined ? '' : String(x));

  function readJson(id) {
    const node = document.getElementById(id);
    if (!node) return null;
    const text = node.textContent.trim();
    return text ? JSON.parse(text) : null;
  }

  // ---- Formatting ---------------------------------------------------------------------------

  function fmtInt(n) {
    if (!isNum(n)) return DASH;
    return Math.round(n).toString().replace(/\B(?=(\d{3})+(?!\d))/g, ',');
  }

  // Binary units, three significant digits: 576 MiB, 2.00 MiB, 12.5 GiB.
  function fmtBytes(n) {
    if (!isNum(n)) return DASH;
    let v = Math.abs(n);
    let u = 0;
    while (v >= 1024 && u < UNITS.length - 1) {
      v /= 1024;
      u++;
    }
    const text = u === 0 ? String(v) : v.toFixed(v >= 100 ? 0 : v >= 10 ? 1 : 2);
    return (n < 0 ? '-' : '') + text + ' ' + UNITS[u];
  }

  const fmtSignedBytes = (n) => (isNum(n) && n > 0 ? '+' : '') + fmtBytes(n);
  const exactBytes = (n) => (isNum(n) ? fmtInt(n) + ' bytes' : null);

  function fmtNs(ns) {
    if (!isNum(ns)) return DASH;
    const a = Math.abs(ns);
    const [div, unit] = a >= 1e9 ? [1e9, 's'] : a >= 1e6 ? [1e6, 'ms'] : a >= 1e3 ? [1e3, MICRO + 's'] : [1, 'ns'];
    if (div === 1) return Math.round(ns) + ' ns';
    const v = ns / div;
    const av = Math.abs(v);
    return v.toFixed(av >= 100 ? 0 : av >= 10 ? 1 : 2) + ' ' + unit;
  }

  function fmtPercent(p) {
    return isNum(p) ? (p > 0 ? '+' : '') + p.toFixed(1) + '%' : DASH;
  }

  function kindName(kind) {
    const names = {
      device: 'device memory',
      pinned: 'pinned host memory',
      managed: 'managed memory',
      device_static: 'static device memory',
      pool: 'pool memory',
    };
    return names[kind] || str(kind) + ' memory';
  }

  const keyName = (x) => 'device ' + num(x.device) + ' \u00b7 ' + kindName(x.kind);
  const sameKey = (a, b) => num(a.device) === num(b.device) && str(a.kind) === str(b.kind);
  const locText = (l) => str(obj(l).file) + (num(obj(l).line) ? ':' + num(obj(l).line) : '');

  // "1–4, 7, 9–10" from a list of iteration numbers.
  function ranges(numbers) {
    const sorted = [...new Set(numbers)].sort((a, b) => a - b);
    const parts = [];
    for (let i = 0; i < sorted.length; i++) {
      let j = i;
      while (j + 1 < sorted.length && sorted[j + 1] === sorted[j] + 1) j++;
      parts.push(j > i ? sorted[i] + DASH + sorted[j] : String(sorted[i]));
      i = j;
    }
    return parts.join(', ');
  }

  const plural = (n, word) => n + ' ' + word + (n === 1 ? '' : 's');
  // Table cells name memory shortly: "device 0 · pinned".
  const memCell = (x) => h('td', {class: 'nowrap'}, 'device ' + num(x.device) + ' \u00b7 ' + str(x.kind));
  const bytesCell = (n) => h('td', {class: 'num', title: exactBytes(n)}, fmtBytes(n));
  const badge = (text, cls) => h('span', {class: 'badge ' + (cls || '')}, text);
  const tallyBytes = (t) => (t && typeof t === 'object' ? t.bytes : undefined);

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

  // ---- Stacks ---------------------------------------------------------------------------------

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

  // ---- The live-bytes chart -----------------------------------------------------------------

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

  // One chart: the min/max band and last value per bucket of `series`, iterations and idle windows
  // as bands, each idle floor as a red mark. Every element is O(points + iterations).
  function chart(run, key, series, worstIteration) {
    const W = 960, H = 260, L = 74, R = 34, T = 14, B = 30;
    const points = arr(series.points).filter((p) => Array.isArray(p) && p.length >= 4);
    const bucket = num(series.bucket_ns);
    const trace = obj(run.trace);
    const iterations = arr(run.iterations);

    const starts = [num(trace.first_ns) || Infinity];
    if (points.length) starts.push(num(points[0][0]));
    if (iterations.length) starts.push(num(obj(iterations[0]).start_ns));
    const t0 = Math.min(...starts) === Infinity ? 0 : Math.min(...starts);
    let t1 = num(trace.end_ns);
    if (points.length) t1 = Math.max(t1, num(points[points.length - 1][0]));
    for (const it of iterations) t1 = Math.max(t1, num(obj(obj(it).idle).end_ns), num(obj(it).end_ns));
    if (!(t1 > t0)) t1 = t0 + 1;

    let top = 0;
    for (const p of points) top = Math.max(top, num(p[2]));
    const floors = [];
    for (const it of iterations) {
      const m = arr(obj(it).memory).find((x) => sameKey(obj(x), key));
      if (m && it.idle) floors.push({it, floor: num(obj(m.idle).floor)});
    }
    for (const f of floors) top = Math.max(top, f.floor);
    const yAxis = byteTicks(top * 1.04);

    const px = (v) => Math.round(v * 10) / 10;
    const x = (t) => px(L + (Math.min(Math.max(t, t0), t1) - t0) / (t1 - t0) * (W - L - R));
    const y = (v) => px(T + (1 - v / yAxis.max) * (H - T - B));

    const root = svg('svg', {viewBox: `0 0 ${W} ${H}`, role: 'img',
      'aria-label': 'live bytes over time, ' + keyName(key)});

    // Iterations and idle windows.
    const bands = svg('g', {class: 'bands'});
    iterations.forEach((it, i) => {
      const s = num(it.start_ns), e = num(it.end_ns);
      bands.appendChild(svg('rect', {class: 'iter-band' + (i % 2 ? ' alt' : ''), x: x(s), y: T,
        width: Math.max(0.5, x(e) - x(s)), height: H - T - B},
        svg('title', null, 'iteration ' + num(it.index) + ' (' + str(it.name) + '): ' + fmtNs(e - s))));
      const idle = obj(it.idle);
      if (isNum(idle.start_ns) && isNum(idle.end_ns)) {
        bands.appendChild(svg('rect', {class: 'idle-band', x: x(idle.start_ns), y: T,
          width: Math.max(0.5, x(idle.end_ns) - x(idle.start_ns)), height: H - T - B},
          svg('title', null, 'idle window after iteration ' + num(it.index) + ': ' + fmtNs(idle.end_ns - idle.start_ns))));
      }
    });
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

    // Idle floors.
    const marks = svg('g', null);
    let worstMark = null;
    for (const {it, floor} of floors) {
      const idle = obj(it.idle);
      const x1 = x(num(idle.start_ns));
      const x2 = Math.max(x1 + 4, x(num(idle.end_ns)));
      const isWorst = num(it.index) === worstIteration;
      marks.appendChild(svg('line', {class: 'floor-mark' + (isWorst ? ' worst' : ''), x1, x2, y1: y(floor), y2: y(floor)},
        svg('title', null, 'idle floor after iteration ' + num(it.index) + ': ' + fmtBytes(floor) + ' (' + exactBytes(floor) + ')')));
      if (isWorst) worstMark = {x: (x1 + x2) / 2, y: y(floor), floor};
    }
    if (worstMark) {
      const right = worstMark.x > W - 180;
      marks.appendChild(svg('text', {class: 'floor-label', x: worstMark.x + (right ? -6 : 6),
        y: Math.max(T + 12, worstMark.y - 6), 'text-anchor': right ? 'end' : 'start'},
        'steady idle floor ' + fmtBytes(worstMark.floor)));
    }
    root.appendChild(marks);

    const legend = h('div', {class: 'legend'},
      h('span', null, h('span', {class: 'swatch band'}), 'min' + DASH + 'max live bytes per ' + fmtNs(bucket)),
      h('span', null, h('span', {class: 'swatch last'}), 'live bytes'),
      h('span', null, h('span', {class: 'swatch iter'}), 'iteration'),
      h('span', null, h('span', {class: 'swatch idle'}), 'idle window'),
      h('span', null, h('span', {class: 'swatch floor'}), 'idle floor'));
    return h('figure', {class: 'chart'}, root, legend,
      h('figcaption', null, plural(points.length, 'point') + ' over ' + fmtNs(t1 - t0) + ' (time since the trace began)'));
  }

  // ---- Sections -----------------------------------------------------------------------------

  function steadyDeviceFloor(run) {
    let best = null;
    for (const s of arr(run.steady_idle_floor)) {
      if (obj(s).kind === 'device' && (!best || num(s.idle_floor) > num(best.idle_floor))) best = s;
    }
    return best;
  }

  function header(ctx) {
    const tool = obj(ctx.report.tool);
    const nav = h('nav', {class: 'muted'}, 'Go to: ', h('a', {href: '#summary'}, 'summary'),
      ctx.gate ? [' \u00b7 ', h('a', {href: '#gate'}, 'gate')] : null,
      ctx.runs.length > 1 ? [' \u00b7 ', h('a', {href: '#runs'}, 'runs')] : null,
      ctx.runs.map((run, i) => [' \u00b7 ', h('a', {href: '#run-' + i}, str(run.label) || 'run ' + (i + 1))]),
      ' \u00b7 ', h('a', {href: '#findings'}, 'findings'));
    return h('header', null, h('h1', null, 'memfloor report'),
      h('div', {class: 'subtitle'}, str(tool.name) + ' ' + str(tool.version) + ' \u00b7 ' + str(ctx.report.schema) +
        ' \u00b7 ' + ctx.runs.length + (ctx.runs.length === 1 ? ' run' : ' runs')),
      nav);
  }

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
    const explaining = items.filter((f) => num(f.max_explained_bytes) > 0).length;
    const cards = [
      card('Idle-floor trend', badge(verdict, verdict), VERDICT_TEXT[verdict] || ''),
      worst
        ? card('Worst steady idle floor', h('span', {id: 'worst-idle-floor', title: exactBytes(worst.idle_floor)}, fmtBytes(worst.idle_floor)),
          ['in ', h('a', {href: '#run-' + num(worst.run), id: 'worst-run'}, str(worst.label)), ', ' + keyName(worst) +
            ', after iteration ' + num(worst.iteration)])
        : card('Worst steady idle floor', DASH, 'no run has an idle window of device memory'),
      card('Runs', String(num(summary.runs) || ctx.runs.length), ctx.runs.length > 1 ? 'one per trace (rank or process)' : 'one trace'),
      card('Findings', String(items.length), typeof obj(ctx.report.findings).source === 'string'
        ? explaining + ' of them explain retained bytes' : 'no findings file given'),
    ];
    if (ctx.gate) {
      const v = str(obj(ctx.gate).verdict);
      const regressed = arr(obj(ctx.gate).checks).filter((c) => obj(c).regression === true).length;
      cards.push(card('Gate', badge(v, v), plural(regressed, 'check') + ' regressed, ' +
        plural(arr(obj(ctx.gate).new_findings).length, 'new finding')));
    }
    return h('section', {id: 'summary'}, h('h2', null, 'Summary'), h('div', {class: 'cards'}, cards));
  }

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
    const thresholds = Object.entries(obj(g.thresholds));
    const rows = (list) => list.map((c) => h('tr', {class: c.regression === true ? 'regressed' : null},
      h('td', {class: 'nowrap'}, str(c.metric)), h('td', {class: 'nowrap'}, str(c.run)), memCell(c),
      h('td', {class: 'where'}, str(c.site)),
      bytesCell(c.baseline), bytesCell(c.current),
      h('td', {class: 'num', title: exactBytes(c.delta)}, fmtSignedBytes(c.delta)),
      h('td', {class: 'num'}, fmtPercent(c.delta_percent))));
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
          table(headers, rows(regressed), {id: 'gate-regressed'})]
        : h('p', null, 'No check regressed (' + checks.length + ' checks).'),
      checks.length > regressed.length
        ? h('details', null, h('summary', null, 'All ' + checks.length + ' checks'), table(headers, rows(checks)))
        : null,
      h('h3', null, 'New findings (' + newFindings.length + ')'),
      newFindings.length
        ? h('ul', {class: 'compact'}, newFindings.map((f) => h('li', null, badge(str(f.rule), 'bad'), ' ',
          h('span', {class: 'mono'}, locText(f.location)), ': ', str(f.message))))
        : h('p', {class: 'muted'}, 'None: every finding of the current report is in the baseline.'));
  }

  function runsTable(ctx) {
    const rows = ctx.runs.map((run, i) => {
      const steady = steadyDeviceFloor(run);
      const isWorst = i === ctx.worstRun;
      let peak;
      for (const m of arr(run.memory)) if (obj(m).kind === 'device') peak = Math.max(peak || 0, num(m.peak));
      const trend = str(obj(run.trend).verdict) || 'unknown';
      const notes = [];
      if (!obj(run.trace).complete) notes.push('trace incomplete');
      if (num(obj(run.dropped).cupti) || num(obj(run.dropped).writer)) notes.push('records dropped');
      if (run.iteration_source === 'detected') notes.push('iterations detected');
      else if (run.iteration_source !== 'markers') notes.push('no iteration markers');
      return h('tr', {class: isWorst ? 'worst' : null},
        h('td', {class: 'nowrap'}, h('a', {href: '#run-' + i}, str(run.label)), isWorst ? [' ', badge('worst', 'worst')] : null),
        h('td', {class: 'mono break'}, str(obj(run.trace).path)),
        h('td', {class: 'num'}, String(arr(run.iterations).length)),
        bytesCell(steady ? steady.idle_floor : undefined),
        h('td', {class: 'num'}, steady ? String(num(steady.iteration)) : DASH),
        bytesCell(peak),
        h('td', null, badge(trend, trend)),
        h('td', null, notes.join(', ')));
    });
    return h('section', {id: 'runs'}, h('h2', null, 'Runs'),
      ctx.worst ? h('p', null, 'Worst run: ', h('strong', null, str(ctx.worst.label)),
        ', whose steady idle floor of device memory is the largest.') : null,
      table(['run', 'trace', ['iterations', 'num'], ['steady idle floor (device)', 'num'], ['after iteration', 'num'],
        ['peak (device)', 'num'], 'trend', 'notes'], rows, {id: 'runs-table'}));
  }

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
    } else if (run.iteration_source !== 'markers') {
      out.push(h('div', {class: 'warning'}, 'No marker matched the iteration pattern ' + str(run.iteration_pattern) +
        ': there are no iterations, only the whole-trace summary.'));
    }
    const a = obj(run.anomalies);
    const odd = [];
    // "name: count" reads right for any count (no plural to get wrong).
    if (num(tallyBytes(a.unmatched_frees)) || num(obj(a.unmatched_frees).count)) odd.push('unmatched frees: ' + fmtInt(num(obj(a.unmatched_frees).count)));
    if (num(obj(a.double_allocations).count)) odd.push('double allocations: ' + fmtInt(num(obj(a.double_allocations).count)));
    for (const k of ['size_mismatches', 'unmatched_range_ends', 'unclosed_ranges', 'out_of_order_records']) {
      if (num(a[k])) odd.push(k.replace(/_/g, ' ') + ': ' + fmtInt(num(a[k])));
    }
    if (odd.length) out.push(h('div', {class: 'warning'}, 'Anomalies: ' + odd.join(', ') + '.'));
    const tail = a.cut_tail;
    if (tail && typeof tail === 'object') {
      out.push(h('div', {class: 'warning'}, 'The trace was cut: memory records from ' +
        fmtInt(num(tail.from_ns)) + ' ns on may be missing (one flush period); unmatched frees: ' +
        fmtInt(num(obj(tail.unmatched_frees).count)) + ', double allocations: ' +
        fmtInt(num(obj(tail.double_allocations).count)) + ' fall there.'));
    }
    return out;
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
        ' frees, ' + fmtInt(num(rec.markers)) + ' markers)'],
      ['duration', fmtNs(num(trace.end_ns) - num(trace.first_ns))],
      ['iterations', arr(run.iterations).length + ' from ' + str(run.iteration_source) + ' (pattern ' +
        str(run.iteration_pattern) + ', ' + num(run.warmup_iterations) + ' warm-up)'],
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

  function iterationTable(run, key, worstIteration) {
    const rows = arr(run.iterations).map((it) => {
      it = obj(it);
      const m = obj(arr(it.memory).find((x) => sameKey(obj(x), key)));
      const idle = obj(m.idle);
      const retained = obj(idle.retained);
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
        bytesCell(m.peak), bytesCell(idle.floor), bytesCell(retained.bytes),
        bytesCell(tallyBytes(retained.inter_iteration)), bytesCell(tallyBytes(retained.leak)),
        bytesCell(tallyBytes(retained.persistent)),
        bytesCell(tallyBytes(idle.explained)), bytesCell(tallyBytes(idle.unexplained)),
        h('td', {class: 'num'}, fmtNs(num(obj(it.idle).end_ns) - num(obj(it.idle).start_ns))));
    });
    if (!rows.length) return h('p', {class: 'muted'}, 'No iterations.');
    return table([['#', 'num'], 'iteration', ['duration', 'num'], ['peak', 'num'], ['idle floor', 'num'],
      ['retained', 'num'], ['inter-iteration', 'num'], ['leak', 'num'], ['persistent', 'num'],
      ['explained', 'num'], ['unexplained', 'num'], ['idle window', 'num']], rows, {class: 'iterations'});
  }

  function memorySection(run, index, mem) {
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
    return h('div', {class: 'memory', id: 'run-' + index + '-' + key.device + '-' + key.kind},
      h('h3', null, keyName(key), ' ', badge(verdict, verdict)),
      h('p', null, 'Peak ', h('strong', {title: exactBytes(mem.peak)}, fmtBytes(mem.peak)), ' at +' +
        fmtNs(num(mem.peak_ns) - num(obj(run.trace).first_ns)) + '; live at the end ' + fmtBytes(mem.live_at_end) +
        '; ' + fmtInt(num(obj(mem.allocated).count)) + ' allocations (' + fmtBytes(num(obj(mem.allocated).bytes)) + ')' +
        (worstIteration ? '; steady idle floor ' + fmtBytes(num(steady.idle_floor)) + ' after iteration ' + worstIteration : '') + '.'),
      h('p', {class: 'muted'}, 'Trend: ' + trendText + '.'),
      chart(run, key, series, worstIteration),
      iterationTable(run, key, worstIteration));
  }

  function sitesSection(ctx, run) {
    const stacks = new Map(arr(run.stacks).map((s) => [num(obj(s).id), obj(s)]));
    const sites = new Map();
    for (const it of arr(run.iterations)) {
      for (const s of arr(obj(it).top_sites)) {
        const site = obj(s);
        const id = [num(site.device), str(site.kind), num(site.stack), str(site.where)].join('\u0000');
        let e = sites.get(id);
        if (!e) sites.set(id, e = {site, windows: [], max: -1, maxIteration: 0, findings: new Set()});
        e.windows.push(num(obj(it).index));
        if (num(site.bytes) > e.max) {
          e.max = num(site.bytes);
          e.maxIteration = num(obj(it).index);
          e.site = site;
        }
        for (const f of arr(site.findings)) e.findings.add(str(f));
      }
    }
    const counted = (e) => e.max - num(tallyBytes(e.site.persistent));
    const list = [...sites.values()].sort((a, b) => counted(b) - counted(a) || b.max - a.max);
    if (!list.length) return h('p', {class: 'muted'}, 'No site retains bytes across an idle window.');
    const rows = list.map((e) => {
      const cls = str(e.site.class);
      const linked = [...e.findings].map((id) => {
        const f = ctx.findingsById.get(id);
        return h('div', null, h('a', {href: '#finding-' + id}, f ? str(f.rule) + ' ' + locText(f.location) : id));
      });
      return h('tr', null,
        h('td', {class: 'where'}, str(e.site.where), stackDetails(stacks, e.site.stack)),
        memCell(e.site),
        h('td', null, badge(cls.replace('_', '-'), cls)),
        h('td', {class: 'num', title: exactBytes(e.max)}, fmtBytes(e.max)),
        h('td', {class: 'num'}, String(e.maxIteration)),
        h('td', null, ranges(e.windows)),
        h('td', null, linked.length ? linked
          : cls === 'persistent' ? h('span', {class: 'muted'}, 'no finding') : badge('unexplained', 'warn')));
    });
    return [h('h3', null, 'Retaining sites'),
      h('p', {class: 'muted'}, 'The sites listed among the top retainers of at least one idle window; ' +
        'sites allocating in counted iterations first, then persistent ones.'),
      table(['site (first frame not shared by every stack)', 'memory', 'class', ['most retained', 'num'],
        ['in window', 'num'], 'listed in windows', 'explained by'], rows, {class: 'sites'})];
  }

  function runSection(ctx, run, index) {
    run = obj(run);
    const isWorst = index === ctx.worstRun;
    return h('section', {class: 'run', id: 'run-' + index},
      h('h2', null, str(run.label) || 'run ' + (index + 1), isWorst ? [' ', badge('worst run', 'worst')] : null),
      runWarnings(run), runFacts(run),
      arr(run.memory).map((m) => memorySection(run, index, obj(m))),
      sitesSection(ctx, run));
  }

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
      g.iterations.push(num(e.iteration));
      if (num(e.bytes) > g.max) {
        g.max = num(e.bytes);
        g.at = num(e.iteration);
      }
    }
    const rows = [...groups.values()].map((g) => h('tr', null,
      h('td', null, h('a', {href: '#run-' + num(g.e.run)}, str(obj(ctx.runs[num(g.e.run)]).label) || 'run ' + num(g.e.run))),
      memCell(g.e), h('td', null, ranges(g.iterations)),
      h('td', {class: 'num', title: exactBytes(g.max)}, fmtBytes(g.max)), h('td', {class: 'num'}, String(g.at))));
    return table(['run', 'memory', 'idle windows', ['most explained', 'num'], ['in window', 'num']], rows, {class: 'explains'});
  }

  function findingCard(ctx, item) {
    item = obj(item);
    const id = str(item.id);
    const max = num(item.max_explained_bytes);
    const related = arr(item.related).map(obj);
    const links = arr(item.link_functions).map(str);
    return h('div', {class: 'finding', id: 'finding-' + id},
      h('div', {class: 'head'}, badge(str(item.rule), max > 0 ? 'bad' : ''),
        h('span', {class: 'loc'}, locText(item.location)),
        item.function ? h('code', {class: 'break'}, str(item.function)) : null,
        item.field ? h('span', {class: 'muted'}, 'field ', h('code', null, str(item.field))) : null,
        h('span', {class: 'muted mono'}, id)),
      h('p', {class: 'message'}, str(item.message)),
      snippet(item),
      max > 0
        ? [h('p', null, 'Explains up to ', h('strong', {class: 'explained', title: exactBytes(max)}, fmtBytes(max)),
          ' retained in one idle window:'), explainsTable(ctx, item)]
        : h('p', {class: 'muted'}, 'Explains no retained bytes in these runs.'),
      links.length ? h('p', {class: 'muted'}, 'Linked to sites whose stack contains: ',
        links.map((f, i) => [i ? ', ' : '', h('code', null, f)])) : null,
      related.length ? h('ul', {class: 'compact'}, related.map((r) =>
        h('li', null, h('span', {class: 'mono'}, locText(r.location)), ': ', str(r.message)))) : null);
  }

  function findingsSection(ctx) {
    const f = obj(ctx.report.findings);
    const items = arr(f.items);
    const errors = arr(f.errors);
    const explaining = items.filter((x) => num(obj(x).max_explained_bytes) > 0).length;
    return h('section', {id: 'findings'}, h('h2', null, 'Findings'),
      typeof f.source === 'string'
        ? h('p', null, items.length + ' findings from ', h('span', {class: 'mono break'}, f.source), ', ' + explaining +
          ' of them explaining retained bytes, in the order of the file.')
        : h('p', {class: 'muted'}, 'No findings file was given: memfloor analyze --findings findings.json links ' +
          'memfloor-check\u2019s findings to the bytes they explain.'),
      errors.length ? h('div', {class: 'warning'}, 'The checker could not read some units:',
        h('ul', {class: 'compact'}, errors.map((e) => h('li', {class: 'mono break'}, str(e))))) : null,
      items.map((item) => findingCard(ctx, item)));
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
    append(root, [header(ctx), summarySection(ctx), gate ? gateSection(gate) : null,
      ctx.runs.length > 1 ? runsTable(ctx) : null,
      ctx.runs.map((run, i) => runSection(ctx, run, i)),
      findingsSection(ctx)]);
  }

  try {
    render();
  } catch (e) {
    const root = document.getElementById('report');
    root.textContent = '';
    root.appendChild(h('p', {class: 'warning bad'}, 'The report could not be drawn: ' + e.message));
    throw e;
  }
})();
