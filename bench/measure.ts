/**
 * Runs one engine through one workload and measures it: wall time from the
 * `agentLoop` call until `result()` resolves with every event consumed, the
 * number of events, and (in a separate, untimed run) the peak heap above the
 * post-GC baseline. Heap sampling stays out of timed runs because reading heap
 * statistics makes V8 finish sweeping, which would charge GC work to the sample.
 */
import type { AgentEvent, AgentLoopConfig, AgentMessage, Message, UserMessage } from "../src/types.js";
import { echoTool } from "./bench-tool.js";
import type { Engine } from "./engines.js";
import { SCRIPTED_MODEL, createScriptedStreamFn } from "./scripted-stream.js";
import { expectedMessageCount, type Workload } from "./workloads.js";

/** In heap runs the heap is sampled once per this many events (a power of two), plus once at the end. */
export const HEAP_SAMPLE_EVERY = 256;

/** What one run measured. */
export interface RunMeasurement {
  wallMs: number;
  /** CPU time of the whole process (every thread, GC helpers included) over the run: steadier than wall time on a shared machine. */
  cpuMs: number;
  events: number;
  /** With `fingerprint`: a hash of the event sequence (type, tool call id, stream event type), to compare engines. */
  sequenceHash?: number;
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
  /** Hash the event sequence into `sequenceHash` (default false; costs time, so untimed runs only). */
  fingerprint?: boolean;
  /** Give the run an abort signal (that never fires), as `Agent` always does (default false). */
  signal?: boolean;
  /**
   * Turn compaction on (as the CLI does by default) with a window so large it never
   * compacts: the run pays only for deciding, before each request, that it need not.
   */
  compaction?: boolean;
}

/** A window no scripted run fills, so compaction is checked every turn and never runs. */
const UNFILLED_WINDOW = 1_000_000_000;

const FNV_OFFSET = 0x811c9dc5;
const FNV_PRIME = 0x01000193;

/** Folds `text` into a 32-bit FNV-1a hash. */
function fnv1a(hash: number, text: string): number {
  let next = hash;
  for (let i = 0; i < text.length; i += 1) next = Math.imul(next ^ text.charCodeAt(i), FNV_PRIME) >>> 0;
  return next;
}

/** What identifies an event's place in the protocol: its type, its tool call, its stream event. */
function eventKey(event: AgentEvent): string {
  if ("toolCallId" in event) return `${event.type}:${event.toolCallId}`;
  if (event.type === "message_update") return `${event.type}:${event.assistantMessageEvent.type}`;
  if (event.type === "message_start" || event.type === "message_end") return `${event.type}:${event.message.role}`;
  return event.type;
}

/**
 * Runs `workload` once through `engine`, consuming every event with `for await`.
 * Throws {@link WorkloadMismatchError} when the run returns the wrong number of messages.
 */
export async function measureRun(
  engine: Engine,
  workload: Workload,
  { sampleHeap = false, collectFirst = true, fingerprint = false, signal = false, compaction = false }: MeasureOptions = {},
): Promise<RunMeasurement> {
  const prompt: UserMessage = { role: "user", content: "Run the benchmark.", timestamp: Date.now() };
  const context = { systemPrompt: "You are a benchmark.", messages: [], tools: [echoTool] };
  const config: AgentLoopConfig = compaction
    ? { model: { ...SCRIPTED_MODEL, contextWindow: UNFILLED_WINDOW }, convertToLlm, compaction: {} }
    : { model: SCRIPTED_MODEL, convertToLlm };
  const streamFn = createScriptedStreamFn(workload);

  if (collectFirst) collectGarbage();
  const baseline = sampleHeap ? process.memoryUsage().heapUsed : 0;
  let peak = baseline;
  let events = 0;
  let hash = FNV_OFFSET;

  const cpuStarted = process.cpuUsage();
  const started = performance.now();
  const stream = engine.agentLoop([prompt], context, config, signal ? new AbortController().signal : undefined, streamFn);
  for await (const event of stream) {
    events += 1;
    if (fingerprint) hash = fnv1a(hash, `${eventKey(event)}|`);
    if (sampleHeap && (events & (HEAP_SAMPLE_EVERY - 1)) === 0) {
      const used = process.memoryUsage().heapUsed;
      if (used > peak) peak = used;
    }
  }
  const messages = await stream.result();
  const wallMs = performance.now() - started;
  const cpu = process.cpuUsage(cpuStarted);
  const cpuMs = (cpu.user + cpu.system) / 1_000;

  if (sampleHeap) peak = Math.max(peak, process.memoryUsage().heapUsed);

  const expected = expectedMessageCount(workload);
  if (messages.length !== expected) {
    throw new WorkloadMismatchError(
      `${engine.name} returned ${messages.length} messages on ${workload.name}, expected ${expected}`,
    );
  }
  const measurement: RunMeasurement = { wallMs, cpuMs, events, messages: messages.length };
  if (sampleHeap) measurement.peakHeapBytes = peak - baseline;
  if (fingerprint) measurement.sequenceHash = hash;
  return measurement;
}
