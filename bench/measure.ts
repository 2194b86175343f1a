/**
 * Runs one engine through one workload and measures it: wall time from the
 * `agentLoop` call until `result()` resolves with every event consumed, the
 * number of events, and (in a separate, untimed run) the peak heap above the
 * post-GC baseline. Heap sampling stays out of timed runs because reading heap
 * statistics makes V8 finish sweeping, which would charge GC work to the sample.
 */
import type { AgentLoopConfig, AgentMessage, Message, UserMessage } from "../src/types.js";
import { echoTool } from "./bench-tool.js";
import type { Engine } from "./engines.js";
import { SCRIPTED_MODEL, createScriptedStreamFn } from "./scripted-stream.js";
import { expectedMessageCount, type Workload } from "./workloads.js";

/** In heap runs the heap is sampled once per this many events (a power of two), plus once at the end. */
export const HEAP_SAMPLE_EVERY = 256;

/** What one run measured. */
export interface RunMeasurement {
  wallMs: number;
  events: number;
  /** Heap runs only: highest sampled `heapUsed` minus `heapUsed` right after the pre-run GC, in bytes. */
  peakHeapBytes?: number;
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

/** How to run a measurement. */
export interface MeasureOptions {
  /** Sample `heapUsed` during the run and report the peak (default false: a clean timed run). */
  sampleHeap?: boolean;
  /** Collect garbage before the run (default true); profiles turn it off to keep forced GCs out. */
  collectFirst?: boolean;
}

/**
 * Runs `workload` once through `engine`, consuming every event with `for await`.
 * Throws {@link WorkloadMismatchError} when the run returns the wrong number of messages.
 */
export async function measureRun(
  engine: Engine,
  workload: Workload,
  { sampleHeap = false, collectFirst = true }: MeasureOptions = {},
): Promise<RunMeasurement> {
  const prompt: UserMessage = { role: "user", content: "Run the benchmark.", timestamp: Date.now() };
  const context = { systemPrompt: "You are a benchmark.", messages: [], tools: [echoTool] };
  const config: AgentLoopConfig = { model: SCRIPTED_MODEL, convertToLlm };
  const streamFn = createScriptedStreamFn(workload);

  if (collectFirst) collectGarbage();
  const baseline = sampleHeap ? process.memoryUsage().heapUsed : 0;
  let peak = baseline;
  let events = 0;

  const started = performance.now();
  const stream = engine.agentLoop([prompt], context, config, undefined, streamFn);
  for await (const _event of stream) {
    events += 1;
    if (sampleHeap && (events & (HEAP_SAMPLE_EVERY - 1)) === 0) {
      const used = process.memoryUsage().heapUsed;
      if (used > peak) peak = used;
    }
  }
  const messages = await stream.result();
  const wallMs = performance.now() - started;

  if (sampleHeap) peak = Math.max(peak, process.memoryUsage().heapUsed);

  const expected = expectedMessageCount(workload);
  if (messages.length !== expected) {
    throw new WorkloadMismatchError(
      `${engine.name} returned ${messages.length} messages on ${workload.name}, expected ${expected}`,
    );
  }
  const measurement: RunMeasurement = { wallMs, events, messages: messages.length };
  if (sampleHeap) measurement.peakHeapBytes = peak - baseline;
  return measurement;
}
