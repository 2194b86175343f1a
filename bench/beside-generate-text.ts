/**
 * loopchart, pi-agent-core, the two floors and the AI SDK's `generateText`
 * on the workload shapes of the side-by-side peers benchmark
 * (`../shared/peers-bench`: short runs, a forced full GC before each timed run),
 * so the one engine that beats loopchart there — `generateText` on the wide
 * shape — can be measured from this repository beside the floor that XState
 * sets for loopchart's required structure.
 *
 * - **structure floor** (`floor-charts.ts`): a request actor and a batch machine
 *   per turn, one call machine per call with its invoked execute actor — what the
 *   design requires — and no work: no stream, no events, no validation, no
 *   messages. Whatever it costs, no engine built on that structure can cost less.
 * - **streaming floor** (`streaming-floor.ts`): the structure floor that also
 *   streams each response and emits pi's event protocol, which a drop-in for
 *   pi's `agentLoop` must, consumed like pi's and loopchart's; nothing else.
 * - **generateText**: `ai`'s `generateText` with `MockLanguageModelV3` from
 *   `ai/test` answering each step with the whole response (no streaming), one
 *   zod-validated `echo` tool that returns `ok n`, `stopWhen: stepCountIs(T + 10)`.
 *
 * Usage (from the root): node --expose-gc --import tsx bench/beside-generate-text.ts
 * Honours BENCH_ROUNDS (default 9 here), BENCH_SCALE, BENCH_ONLY (chatty, wide, long) and BENCH_LOOPCHART.
 */
import { generateText, stepCountIs, tool, type LanguageModel } from "ai";
import { MockLanguageModelV3 } from "ai/test";
import { z } from "zod";
import { runFloor, structureLoop } from "./floor-charts.js";
import { streamingFloorEngine } from "./streaming-floor.js";
import { loadLoopchartEngine, piEngine } from "./engines.js";
import { collectGarbage, measureRun } from "./measure.js";
import { readBenchOptions } from "./options.js";
import { median } from "./report.js";
import { describeWorkload, PEER_WORKLOADS, scaleWorkload, type Workload } from "./workloads.js";

/** Rounds when BENCH_ROUNDS is unset: the runs are short, so more rounds steady the medians. */
const PEER_ROUNDS = 9;
const TEXT_CHUNK = "lorem ";
const US_PER_MS = 1_000;

/** Zero token counts in the AI SDK's v3 shape. */
const NO_USAGE = {
  inputTokens: { total: 0, noCache: 0, cacheRead: 0, cacheWrite: 0 },
  outputTokens: { total: 0, text: 0, reasoning: 0 },
};

/** Thrown when `generateText` did not do what the workload implies. */
class GenerateTextMismatchError extends Error {
  override readonly name = "GenerateTextMismatchError";
}

/**
 * One `generateText` run of `workload`: step t answers with the text and the
 * calls of turn t, the last step with text alone. Resolves with the wall time;
 * throws {@link GenerateTextMismatchError} when the steps or tool results differ from the workload's.
 */
async function runGenerateText(workload: Workload): Promise<number> {
  let step = 0;
  let executed = 0;
  const model = new MockLanguageModelV3({
    modelId: "scripted",
    doGenerate: async () => {
      // The mock records every call's options (each holds the whole prompt); keep none.
      model.doGenerateCalls.length = 0;
      const turn = step;
      step += 1;
      const text = TEXT_CHUNK.repeat(workload.textDeltas);
      const calls = turn < workload.toolTurns ? workload.callsPerTurn : 0;
      const content: ({ type: "text"; text: string } | { type: "tool-call"; toolCallId: string; toolName: string; input: string })[] = [{ type: "text", text }];
      for (let call = 0; call < calls; call += 1) {
        content.push({ type: "tool-call", toolCallId: `call_${turn}_${call}`, toolName: "echo", input: JSON.stringify({ n: call, note: "bench" }) });
      }
      return { content, finishReason: { unified: calls > 0 ? "tool-calls" : "stop", raw: undefined }, usage: NO_USAGE, warnings: [] };
    },
  });
  const echo = tool({
    description: "Returns ok and the number it was given.",
    inputSchema: z.object({ n: z.number(), note: z.string() }),
    execute: async ({ n }) => {
      executed += 1;
      return `ok ${n}`;
    },
  });
  collectGarbage();
  const started = performance.now();
  const result = await generateText({
    model: model as LanguageModel,
    system: "You are a benchmark agent.",
    prompt: "go",
    tools: { echo },
    stopWhen: stepCountIs(workload.toolTurns + 10),
  });
  const wallMs = performance.now() - started;
  const results = result.steps.reduce((sum, taken) => sum + taken.toolResults.length, 0);
  const calls = workload.toolTurns * workload.callsPerTurn;
  if (result.steps.length !== workload.toolTurns + 1 || results !== calls || executed !== calls) {
    throw new GenerateTextMismatchError(`generateText took ${result.steps.length} steps with ${results} results (${executed} executed) on ${workload.name}`);
  }
  return wallMs;
}

/** One engine of the comparison: a name and how to time one run of a workload. */
interface Contender {
  name: string;
  time(workload: Workload): Promise<number>;
}

async function main(): Promise<void> {
  const options = readBenchOptions();
  const rounds = process.env.BENCH_ROUNDS ? options.rounds : PEER_ROUNDS;
  const loopchart = await loadLoopchartEngine(options.loopchartSource);
  if (typeof loopchart === "string") throw new Error(loopchart);
  const contenders: Contender[] = [
    { name: "pi", time: async (workload) => (await measureRun(piEngine, workload)).wallMs },
    { name: "loopchart", time: async (workload) => (await measureRun(loopchart, workload)).wallMs },
    {
      name: "structure floor",
      time: (workload) => {
        collectGarbage();
        return runFloor(workload, structureLoop);
      },
    },
    { name: "streaming floor", time: async (workload) => (await measureRun(streamingFloorEngine, workload)).wallMs },
    { name: "generateText", time: runGenerateText },
  ];
  const shapes = PEER_WORKLOADS.filter((shape) => !options.only || options.only.includes(shape.name)).map((shape) => scaleWorkload(shape, options.scale));
  process.stdout.write(`beside the AI SDK's generateText: node ${process.version}, ${rounds} rounds, a full GC before each run, medians\n`);
  process.stdout.write("| workload | engine | ms | × pi | µs per call |\n|---|---|--:|--:|--:|\n");
  for (const workload of shapes) {
    for (const contender of contenders) await contender.time(workload);
    const times = new Map<string, number[]>(contenders.map((contender) => [contender.name, []]));
    for (let round = 0; round < rounds; round += 1) {
      // Rotate the order, as the peers benchmark does, so no engine always follows the same one.
      for (let k = 0; k < contenders.length; k += 1) {
        const contender = contenders[(k + round) % contenders.length] as Contender;
        times.get(contender.name)?.push(await contender.time(workload));
      }
    }
    const pi = median(times.get("pi") ?? []);
    const calls = workload.toolTurns * workload.callsPerTurn;
    for (const contender of contenders) {
      const ms = median(times.get(contender.name) ?? []);
      process.stdout.write(
        `| ${workload.name} (${describeWorkload(workload)}) | ${contender.name} | ${ms.toFixed(1)} | ${(ms / pi).toFixed(2)} | ${((ms * US_PER_MS) / calls).toFixed(0)} |\n`,
      );
    }
  }
}

await main();
