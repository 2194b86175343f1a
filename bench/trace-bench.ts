/**
 * Trace figures: records a 2,000-turn scripted run with recordTrace, printing heap use
 * along the way (flat memory means the late samples are no higher than the early ones),
 * then opens the trace in the viewer — the server, and the page in Debian's chromium when
 * it is installed — and prints how long each took. No figure is asserted.
 * Run: node --expose-gc --import tsx bench/trace-bench.ts [turns]
 */
import { existsSync } from "node:fs";
import { mkdtemp, stat } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { loadTrace } from "../src/cli/trace-reader.js";
import { startViewerServer } from "../src/cli/viewer-server.js";
import { LONG_RUN_TURNS, recordLongRun } from "../test/support/long-trace-run.js";

const TURNS = Number(process.argv[2] ?? LONG_RUN_TURNS);
const SAMPLE_EVERY = Math.max(1, Math.floor(TURNS / 10));
const CHROMIUM = "/usr/bin/chromium";
const gc = (globalThis as { gc?: () => void }).gc;

const file = join(await mkdtemp(join(tmpdir(), "loopchart-trace-bench-")), "run.jsonl");
const samples: number[] = [];
const started = performance.now();
const cpuStarted = process.cpuUsage();
const turns = await recordLongRun({
  file,
  turns: TURNS,
  onTurn: (done) => {
    if (done % SAMPLE_EVERY !== 0) return;
    gc?.();
    samples.push(process.memoryUsage().heapUsed);
  },
});
const recordMs = performance.now() - started;
const cpu = process.cpuUsage(cpuStarted);
const size = (await stat(file)).size;
const mb = (bytes: number) => (bytes / 1024 / 1024).toFixed(1);
const seconds = (ms: number) => (ms / 1000).toFixed(1);
console.log(`trace of ${turns} turns: ${mb(size)} MB written in ${seconds(recordMs)} s (${seconds((cpu.user + cpu.system) / 1000)} s CPU)`);
console.log(`heap every ${SAMPLE_EVERY} turns (MB, after gc${gc ? "" : " — unavailable, run with --expose-gc"}): ${samples.map(mb).join(" ")}`);
console.log("(the run's transcript itself grows with the turns; the recorder holds at most one 64 KiB buffer)");

const loadStart = performance.now();
const trace = await loadTrace(file);
const server = await startViewerServer();
server.addRun(file, trace.records);
const response = await fetch(`${server.origin}/api/runs/trace-1?token=${server.token}`);
const body = await response.text();
console.log(`viewer server: ${trace.records.length} records loaded and served (${mb(body.length)} MB JSON) in ${seconds(performance.now() - loadStart)} s`);

if (existsSync(CHROMIUM)) {
  const { chromium } = await import("playwright-core");
  const browser = await chromium.launch({ executablePath: CHROMIUM, args: ["--headless", "--no-sandbox", "--disable-gpu"] });
  const page = await browser.newPage({ viewport: { width: 1400, height: 1000 } });
  const openStart = performance.now();
  await page.goto(server.url);
  await page.waitForSelector(`body[data-records="${trace.records.length}"]`, { timeout: 600_000 });
  const openMs = performance.now() - openStart;
  const lanes = await page.$$eval(".lane", (nodes) => nodes.length);
  const stepStart = performance.now();
  await page.keyboard.press("Home");
  await page.waitForSelector('body[data-cursor="0"]');
  console.log(`viewer page: ${trace.records.length} records, ${lanes} lanes shown in ${seconds(openMs)} s; a step (Home) in ${seconds(performance.now() - stepStart)} s`);
  await browser.close();
} else console.log(`viewer page: not measured (${CHROMIUM} is absent)`);
await server.close();
