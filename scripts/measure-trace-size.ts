/**
 * `npx tsx scripts/measure-trace-size.ts [MB] [deltas]`: how many bytes a long
 * streamed answer costs in a `--trace` file and on `--json` stdout (issue 13 item 11).
 *
 * Runs one real `agentLoop` whose stream function answers with `MB` megabytes of
 * text (default 50) in `deltas` text deltas (default 10), writes its events with
 * the CLI's `TraceWriter` to a temp file and through the `--json` renderer to a
 * byte counter, and prints both sizes beside the answer's size: once with the deltas a
 * macrotask apart, once pushed in one burst (read late by the loop). Sizes, not speed.
 */
import { mkdtemp, rm, stat } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { agentLoop } from "../src/agent-loop.js";
import { createJsonRenderer } from "../src/cli/json-renderer.js";
import { createRedactor } from "../src/cli/redact.js";
import { TraceWriter } from "../src/cli/trace-writer.js";
import type { Model } from "../src/types.js";
import { growingAnswerStreamFn } from "../test/support/growing-answer.js";

const megabytes = Number(process.argv[2] ?? 50);
const deltas = Number(process.argv[3] ?? 10);
if (!(megabytes > 0) || !Number.isInteger(deltas) || deltas < 1) {
  process.stderr.write("usage: npx tsx scripts/measure-trace-size.ts [MB > 0] [deltas >= 1]\n");
  process.exit(2);
}

const model: Model = {
  id: "measure",
  name: "measure",
  api: "measure",
  provider: "measure",
  baseUrl: "",
  reasoning: false,
  input: ["text"],
  cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0 },
  contextWindow: 1,
  maxTokens: 1,
};
const chunk = "x".repeat(Math.ceil((megabytes * 1024 * 1024) / deltas));

/** Runs the answer once through a trace and `--json`; returns both sizes in bytes. */
async function measure(burst: boolean): Promise<{ traceBytes: number; jsonBytes: number }> {
  const streamFn = growingAnswerStreamFn(model, chunk, deltas, { burst });
  const dir = await mkdtemp(join(tmpdir(), "loopchart-trace-size-"));
  try {
    const path = join(dir, "trace.jsonl");
    const redactor = createRedactor();
    const trace = await TraceWriter.open({ path, redactor, header: { startedAt: new Date().toISOString(), model: "measure/measure", cwd: dir, argv: [] } });
    let jsonBytes = 0;
    const json = createJsonRenderer({ out: { write: (text: string) => (jsonBytes += Buffer.byteLength(text)) }, err: { write: () => true }, redactor });
    const run = agentLoop([{ role: "user", content: "answer at length", timestamp: 0 }], { systemPrompt: "", messages: [], tools: [] }, { model, convertToLlm: (messages) => messages as never }, undefined, streamFn);
    for await (const event of run) {
      trace.write(event);
      json.render(event, Date.now());
    }
    await trace.close({ exitReason: "completed", exitCode: 0 });
    return { traceBytes: (await stat(path)).size, jsonBytes };
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

const mb = (bytes: number) => `${(bytes / 1024 / 1024).toFixed(1)} MB`;
const answer = chunk.length * deltas;
for (const burst of [false, true]) {
  const { traceBytes, jsonBytes } = await measure(burst);
  const how = burst ? "pushed in one burst" : "a macrotask apart";
  console.log(`answer ${mb(answer)} in ${deltas} text deltas ${how}: trace ${mb(traceBytes)} (${(traceBytes / answer).toFixed(1)}x), --json ${mb(jsonBytes)} (${(jsonBytes / answer).toFixed(1)}x)`);
}
