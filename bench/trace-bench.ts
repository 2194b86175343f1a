/**
 * Trace figures: records a 2,000-turn scripted run with recordTrace, printing heap use
 * along the way (flat memory means the late samples are no higher than the early ones),
 * then opens the trace in the viewer server and prints how long loading and serving took.
 * Run: node --expose-gc --import tsx bench/trace-bench.ts [turns]
 */
import { mkdtemp, stat } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Type } from "typebox";
import { runAgentLoop } from "../src/index.js";
import { recordTrace } from "../src/inspection/record-trace.js";
import { createScriptedModel } from "../src/providers/scripted.js";
import { loadTrace } from "../src/cli/trace-reader.js";
import { startViewerServer } from "../src/cli/viewer-server.js";
import type { AgentTool } from "../src/types.js";

const TURNS = Number(process.argv[2] ?? 2_000);
const SAMPLE_EVERY = TURNS / 10;
const gc = (globalThis as { gc?: () => void }).gc;

const parameters = Type.Object({ n: Type.Number() });
const tool: AgentTool<typeof parameters> = {
  name: "step",
  label: "Step",
  description: "One step",
  parameters,
  execute: async (_id, args) => ({ content: [{ type: "text", text: `step ${args.n}` }], details: {} }),
};
const responses = Array.from({ length: TURNS - 1 }, (_, n) => ({
  content: [{ type: "toolCall" as const, id: `call_${n}`, name: "step", arguments: { n } }],
}));
const scripted = createScriptedModel({ name: "trace-bench", responses: [...responses, { content: [{ type: "text", text: "done" }] }] });
const file = join(await mkdtemp(join(tmpdir(), "loopchart-trace-bench-")), "run.jsonl");
const recorder = recordTrace({ file });
const samples: number[] = [];
let turns = 0;
const started = performance.now();
await runAgentLoop(
  [{ role: "user", content: "go", timestamp: Date.now() }],
  // The context keeps only the last messages so the run's own memory stays flat too: what is measured is the recorder.
  { systemPrompt: "", messages: [], tools: [tool] },
  { model: scripted.model, convertToLlm: (messages) => messages.slice(-4) as never, inspect: recorder.inspect },
  (event) => {
    recorder.onEvent(event);
    if (event.type === "turn_end") {
      turns += 1;
      if (turns % SAMPLE_EVERY === 0) {
        gc?.();
        samples.push(process.memoryUsage().heapUsed);
      }
    }
  },
  undefined,
  scripted.streamFn,
);
await recorder.close();
const recordMs = performance.now() - started;
const size = (await stat(file)).size;
const mb = (bytes: number) => (bytes / 1024 / 1024).toFixed(1);
console.log(`trace of ${turns} turns: ${mb(size)} MB written in ${(recordMs / 1000).toFixed(1)} s`);
console.log(`heap every ${SAMPLE_EVERY} turns (MB, after gc${gc ? "" : " — unavailable, run with --expose-gc"}): ${samples.map(mb).join(" ")}`);
console.log("(the run's transcript itself grows with the turns; the recorder holds at most one 64 KiB buffer)");

const loadStart = performance.now();
const trace = await loadTrace(file);
const server = await startViewerServer();
server.addRun(file, trace.records);
const response = await fetch(`${server.url}api/runs/trace-1`);
const body = await response.text();
console.log(`viewer: ${trace.records.length} records loaded and served (${mb(body.length)} MB JSON) in ${((performance.now() - loadStart) / 1000).toFixed(1)} s at ${server.url}`);
await server.close();
