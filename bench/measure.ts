/**
 * Runs one engine through one workload and measures it: wall time from the
 * `agentLoop` call until `result()` resolves with every event consumed, the
 * number of events, and the peak heap above the post-GC baseline.
 */
import type { AgentLoopConfig, AgentMessage, Message, UserMessage } from "../src/types.js";
import { echoTool } from "./bench-tool.js";
import type { Engine } from "./engines.js";
import { SCRIPTED_MODEL, createScriptedStreamFn } from "./scripted-stream.js";
import { expectedMessageCount, type Workload } from "./workloads.js";

/** Heap is sampled once per this many events (a power of two), plus once at the end. */
export const HEAP_SAMPLE_EVERY = 1024;

/** What one run measured. */
export interface RunMeasurement {
  wallMs: number;
  events: number;
  /** Highest sampled `heapUsed` minus `heapUsed` right after the pre-run GC, in bytes. */
  peakHeapBytes: number;
  /** Messages `result()` resolved with. */
  messages: number;
}

/** Thrown when an engine's run does not return what the scripted workload implies. */
export class WorkloadMismatchError extends Error {
  override readonly name = "WorkloadMismatchError";
}

/** Collects garbage when node runs with `--expose-gc`; a no-op otherwise. */
export function collectGarbage(): void {
  const gc = (globalThis as { gc?: () => void }).gc;
  if (gc) {
    gc();
    gc();
  }
}

/** The identity conversion: every message of these runs is already an LLM message. */
const convertToLlm = (messages: AgentMessage[]): Message[] => messages as Message[];

/**
 * Runs `workload` once through `engine`, consuming every event with `for await`.
 * Throws {@link WorkloadMismatchError} when the run returns the wrong number of messages.
 */
export async function measureRun(engine: Engine, workload: Workload): Promise<RunMeasurement> {
  const prompt: UserMessage = { role: "user", content: "Run the benchmark.", timestamp: Date.now() };
  const context = { systemPrompt: "You are a benchmark.", messages: [], tools: [echoTool] };
  const config: AgentLoopConfig = { model: SCRIPTED_MODEL, convertToLlm };
  const streamFn = createScriptedStreamFn(workload);

  collectGarbage();
  const baseline = process.memoryUsage().heapUsed;
  let peak = baseline;
  let events = 0;

  const started = performance.now();
  const stream = engine.agentLoop([prompt], context, config, undefined, streamFn);
  for await (const _event of stream) {
    events += 1;
    if ((events & (HEAP_SAMPLE_EVERY - 1)) === 0) {
      const used = process.memoryUsage().heapUsed;
      if (used > peak) peak = used;
    }
  }
  const messages = await stream.result();
  const wallMs = performance.now() - started;

  const used = process.memoryUsage().heapUsed;
  if (used > peak) peak = used;

  const expected = expectedMessageCount(workload);
  if (messages.length !== expected) {
    throw new WorkloadMismatchError(
      `${engine.name} returned ${messages.length} messages on ${workload.name}, expected ${expected}`,
    );
  }
  return { wallMs, events, peakHeapBytes: peak - baseline, messages: messages.length };
}
