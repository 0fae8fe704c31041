// Runs the data half of PyTorch's memory viewer (torch/utils/viz/MemoryViz.js, the code behind
// pytorch.org/memory_viz and _memory_viz trace_plot/segment_plot) on a snapshot under Node: its
// own unpickler, annotate_snapshot, and process_alloc_data for the active memory timeline and the
// segment timeline of each device; prints what it drew by category. Drawing (d3, the DOM) is left
// out. Exit 1 when the viewer's code throws.
//
//   node scripts/memory-viz-js.mjs PATH/TO/torch/utils/viz/MemoryViz.js snapshot.pickle
import {readFileSync} from 'node:fs';

const [viewerPath, snapshotPath] = process.argv.slice(2);
if (!viewerPath || !snapshotPath) {
  console.error('usage: memory-viz-js.mjs MemoryViz.js snapshot.pickle');
  process.exit(2);
}
const source = readFileSync(viewerPath, 'utf8');
// The functions up to the page's own set-up (`const kinds = {`), without the d3 imports.
const end = source.indexOf('const kinds = {');
if (end < 0) throw new Error(`${viewerPath}: no 'const kinds = {': not the viewer this reads`);
const body = source.slice(0, end).replace(/^import .*$/gm, '');
const viewer = new Function(
    `${body}\nreturn {unpickle, annotate_snapshot, process_alloc_data};`)();

const bytes = readFileSync(snapshotPath);
const snapshot = viewer.unpickle(bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.length));
viewer.annotate_snapshot(snapshot);
console.log(`categories: ${JSON.stringify(snapshot.categories)}`);
for (let device = 0; device < snapshot.device_traces.length; device++) {
  const trace = snapshot.device_traces[device];
  if (trace.length === 0) continue;
  for (const segments of [false, true]) {
    const data = viewer.process_alloc_data(snapshot, device, segments, 15000);
    const bytesBy = {};
    for (const e of data.allocations_over_time) {
      if (e.elem === 'summarized') continue;
      const name = snapshot.categories.length ? snapshot.categories[e.color] : 'all';
      bytesBy[name] = (bytesBy[name] || 0) + e.size;
    }
    console.log(`device ${device} ${segments ? 'segment' : 'active memory'} timeline: ` +
                `${trace.length} entries, ${data.elements_length} elements, max ` +
                `${data.max_size} bytes; drawn bytes by category ${JSON.stringify(bytesBy)}`);
  }
}
