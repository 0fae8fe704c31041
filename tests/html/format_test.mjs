// The page's number formatting against the table memfloor's own labels are held to
// (testdata/report/formats.json; tests/report/labels_test.cpp): format.js, run in Node on its own,
// must write every byte count and duration of the table as report/labels.cpp does.
//   node format_test.mjs REPORTS_HTML_DIR TESTDATA_DIR
import {readFileSync} from 'node:fs';
import vm from 'node:vm';

const [htmlDir, testdata] = process.argv.slice(2);
// The page's helpers (dom.js) and its formatting, in the page's order, as one script.
const source = ['dom.js', 'format.js'].map((f) => readFileSync(`${htmlDir}/${f}`, 'utf8')).join('\n');
const page = vm.runInNewContext(`${source}\n({fmtBytes, fmtSignedBytes, fmtNs});`, {});
const table = JSON.parse(readFileSync(`${testdata}/report/formats.json`, 'utf8'));

let failures = 0;
let checks = 0;
function check(got, want, what) {
  checks++;
  if (got !== want) {
    failures++;
    console.error(`FAIL: ${what}: got '${got}', want '${want}'`);
  }
}

for (const [bytes, text] of table.bytes) {
  check(page.fmtBytes(bytes), text, `fmtBytes(${bytes})`);
  if (bytes > 0) {
    check(page.fmtBytes(-bytes), '-' + text, `fmtBytes(-${bytes})`);
    check(page.fmtSignedBytes(bytes), '+' + text, `fmtSignedBytes(${bytes})`);
  }
}
for (const [ns, text] of table.durations_ns) check(page.fmtNs(ns), text, `fmtNs(${ns})`);
// What is not a number is a dash, as everywhere on the page.
check(page.fmtBytes(undefined), '\u2013', 'fmtBytes(undefined)');
check(page.fmtNs(NaN), '\u2013', 'fmtNs(NaN)');

if (table.bytes.length < 20 || table.durations_ns.length < 15) {
  failures++;
  console.error('FAIL: the table is shorter than it was written');
}
console.log(`${checks - failures}/${checks} formatting checks passed`);
process.exit(failures ? 1 : 0);
