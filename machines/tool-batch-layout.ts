/**
 * The tool batch's data: its input, context and output, how it lays out its
 * members (calls, or slices of calls), and the pure reads its chart's guards and
 * actions are made of (`tool-batch-setup.ts`). Plain data; nothing here sends or spawns.
 */
import type { AgentEvent, ToolCall, ToolExecutionMode, ToolResultMessage } from "../src/types.js";
import {
  callSystemId,
  type BatchToSliceEvent,
  type BatchToToolCallEvent,
  type CallHookScope,
  type SliceToBatchEvent,
  type ToolCallInput,
  type ToolCallToBatchEvent,
} from "./events.js";
import { ABORTED_MESSAGE } from "./tool-call-setup.js";
import { transcriptMessages, type Transcript } from "./transcript.js";
import type { CallCaps, ToolCallPolicy } from "./loop-policies.js";

/** The most children (calls or slices) any batch machine parents. */
export const SLICE_SIZE = 32;

/** How a batch runs its calls. */
export type BatchMode = "parallel" | "sequential";

/**
 * Whether a batch runs one call at a time: when the run says so
 * (`toolExecution: "sequential"`), or when any call of the batch names a tool that
 * declares `executionMode: "sequential"` (pi's rule; a tool's `"parallel"` cannot
 * make a sequential run parallel). Calls of unknown tools count for nothing.
 */
export function runsSequentially(toolExecution: ToolExecutionMode, calls: readonly ToolCall[], sequentialTools: readonly string[]): boolean {
  return toolExecution === "sequential" || calls.some((call) => sequentialTools.includes(call.name));
}

/** Which mode a batch runs in ({@link runsSequentially}). Pure, so other policies can extend it. */
export function batchModeOf(calls: readonly ToolCall[], toolExecution: ToolExecutionMode, sequentialTools: readonly string[]): BatchMode {
  return runsSequentially(toolExecution, calls, sequentialTools) ? "sequential" : "parallel";
}

/**
 * The id each of `calls` is known by in the run: its tool call id, made unique
 * within the batch (a repeated id gets `#<source index>`). A call's system id is
 * `toolCall:<this id>` ({@link callSystemId}): approval decisions find it by it.
 */
export function uniqueCallIds(calls: readonly ToolCall[]): string[] {
  const seen = new Set<string>();
  return calls.map((call, index) => {
    const id = seen.has(call.id) ? `${call.id}#${index}` : call.id;
    seen.add(id);
    return id;
  });
}

/** Which per-call hooks the run has. */
export interface ToolBatchHooks {
  beforeToolCall: boolean;
  afterToolCall: boolean;
  needsApproval?: boolean;
}

/** Input of a tool batch (or of a slice of one). Plain data. */
export interface ToolBatchInput {
  /** The calls, in source order. */
  calls: ToolCall[];
  /** The id of each call in the run (default: {@link uniqueCallIds}): its system id is `toolCall:<id>`. */
  callIds?: string[];
  /** Source index of `calls[0]` (0, or where a slice starts). */
  offset?: number;
  mode: BatchMode;
  /** When set, every call is refused with this text (length truncation); nothing executes. */
  refusal?: string;
  /** Which per-call hooks the run has (and whether some tool decides `needsApproval` with a function). */
  hooks: ToolBatchHooks;
  /** What the call hooks are shown (set when the run has one). */
  hookScope?: CallHookScope;
  /** Tools approved for good: their calls never wait for approval. */
  approvedTools?: string[];
  /** Timeout and retry of the tools that have a policy, by tool name. */
  policies?: Record<string, ToolCallPolicy>;
  /** Register each call under its system id `toolCall:<id>` (the loop's `registersCalls`; off in explorations). */
  registersCalls?: boolean;
  /** The run was aborted before the batch started: no call executes. */
  aborted?: boolean;
  /** The abort grace period (ms), named in the abandon warning. */
  abortGraceMs?: number;
  /** Set for a slice of a larger batch: it reports to its parent batch like a call, and emits no result messages. */
  slice?: boolean;
  /** Most children (calls or slices) one batch machine parents (default {@link SLICE_SIZE}; the model checker lowers it to explore slices). */
  fanOut?: number;
  /**
   * How many calls may execute at once (a tool's `concurrency`, `maxParallelCalls`):
   * set by the loop only when a cap binds a parallel batch ({@link capsFor}); a
   * slice of a capped batch gets it too, and leaves the releasing to the batch of the response.
   */
  caps?: CallCaps;
}

/** What a batch finishes with. */
export interface ToolBatchOutput {
  /** Source index of the first call (0, or where a slice starts). */
  offset: number;
  /** One result per call, in source order. */
  results: ToolResultMessage[];
  /** Every result asked to terminate (and the batch was neither empty nor refused). */
  terminates: boolean;
  /** Source indexes of the calls rejected in preparation (unknown tool, invalid arguments), ascending: what the invalid-call breaker counts. */
  rejected: number[];
}

/**
 * How a batch is laid out and run; fixed when it starts. (Grouped, like
 * {@link BatchCallSettings}, so the context stays a small object: V8 keeps an
 * object XState copies on every `assign` fast only below 20 properties.)
 */
export interface BatchLayout {
  /** Source index of `calls[0]`. */
  offset: number;
  mode: BatchMode;
  /** A slice of a larger batch: reports to its parent batch like a call, emits no result messages. */
  slice: boolean;
  /** Most children this machine parents. */
  fanOut: number;
  /** Each call reports `tool.prepared` and waits for its go (sequential, `beforeToolCall`, aborted). */
  handshake: boolean;
  /** Calls per slice; 0 when this batch parents its calls itself. */
  sliceSize: number;
  /** Members (calls, or slices) in source order. */
  members: number;
  abortGraceMs: number;
  /** A capped batch (and its slices): the caps. Absent on every uncapped batch. */
  caps?: CallCaps;
  /** A capped batch of a response: the largest source index of a call whose tool has no cap of its own (-1: none). */
  lastUncapped?: number;
}

/** Where a capped batch is with its calls (absent on every uncapped batch). */
export interface BatchQueue {
  /**
   * Source indexes of prepared calls waiting for room, ascending, from `head` on
   * (a slice's, until it hands them up with its `tool.prepared`).
   */
  queued: number[];
  /** How many entries at the start of `queued` were released (so a release in order copies nothing). */
  head: number;
  /** The batch of a response: released calls that have not settled, counted by tool name. */
  executing: Record<string, number>;
}

/** What every call of the batch is spawned with. */
export interface BatchCallSettings {
  hooks: ToolBatchHooks;
  hookScope?: CallHookScope;
  refusal?: string;
  approvedTools: string[];
  policies?: Record<string, ToolCallPolicy>;
  registersCalls: boolean;
}

/** Context of a tool batch. JSON-serializable. */
export interface ToolBatchContext {
  calls: ToolCall[];
  /** The id of each call in the run ({@link uniqueCallIds}). */
  callIds: string[];
  layout: BatchLayout;
  callSettings: BatchCallSettings;
  aborted: boolean;
  /** Members spawned so far (in source order). */
  started: number;
  /** Prepared members waiting for the go. */
  waiting: number[];
  /** Results of settled members of a parallel batch, by member. */
  slots: (ToolResultMessage[] | null)[];
  /** Results of a sequential batch so far, in source order (shared chunks). */
  ordered: Transcript;
  settled: number;
  /** Every result so far asked to terminate. */
  allTerminate: boolean;
  /** Source indexes of the calls rejected in preparation so far (in settling order). */
  rejected: number[];
  /** A capped batch: its queue and released calls. */
  queue?: BatchQueue;
}

/** Events a batch accepts: its calls' (and slices') reports, its parent's go, and the run's abort. */
export type ToolBatchEvent =
  | ToolCallToBatchEvent
  | BatchToToolCallEvent
  | SliceToBatchEvent
  | BatchToSliceEvent
  | { type: "run.abort" }
  | { type: "run.abandon" }
  | { type: `xstate.done.actor.${string}`; output: ToolBatchOutput };

/** Calls per slice for `count` calls: 0 (no slices) up to `fanOut` calls, else as many as make at most `fanOut` slices. */
export function sliceSizeFor(count: number, fanOut = SLICE_SIZE): number {
  if (count <= fanOut) return 0;
  const slices = Math.min(fanOut, Math.ceil(count / fanOut));
  return Math.ceil(count / slices);
}

/**
 * Actor id of the call with source index `index` in its batch: `call@<index>`.
 * Positional rather than the tool call id, so the same few ids recur from turn
 * to turn: XState copies a parent's `children` object on every spawn and stop,
 * and V8 gives each object shape of new keys a hidden class of its own, so ids
 * never seen before made every spawn and stop several times dearer
 * (`bench/RESULTS.md`). The run finds a call by its system id instead.
 */
export const callActorId = (index: number): string => `call@${index}`;

/** Actor id of a slice. */
export const sliceId = (member: number): string => `slice-${member}`;

export const memberId = (context: ToolBatchContext, member: number): string =>
  context.layout.sliceSize === 0 ? callActorId(context.layout.offset + member) : sliceId(member);

/** The member a source index belongs to. */
export const memberOf = (context: ToolBatchContext, index: number): number =>
  context.layout.sliceSize === 0 ? index - context.layout.offset : Math.floor((index - context.layout.offset) / context.layout.sliceSize);

/** The spawn of member `member`: a call, or a slice of the calls. */
export function memberSpawn(context: ToolBatchContext, member: number): { src: "toolCall" | "toolBatch"; id: string; systemId?: string; input: ToolCallInput | ToolBatchInput } {
  if (context.layout.sliceSize === 0) {
    const id = callActorId(context.layout.offset + member);
    const name = (context.calls[member] as ToolCall).name;
    const policy = context.callSettings.policies && Object.hasOwn(context.callSettings.policies, name) ? context.callSettings.policies[name] : undefined;
    const { hookScope, refusal } = context.callSettings;
    const input: ToolCallInput = {
      toolCall: context.calls[member] as ToolCall,
      index: context.layout.offset + member,
      hooks: context.callSettings.hooks,
      reportsPreparation: context.layout.handshake,
    };
    // Optional fields only when present (no undefined-valued keys in the call's context), set before anyone sees the input.
    if (!context.layout.handshake && refusal === undefined) input.proceeds = true;
    if (hookScope) input.hookScope = hookScope;
    if (refusal !== undefined) input.refusal = refusal;
    if (context.callSettings.approvedTools.includes(name)) input.preapproved = true;
    if (policy) input.policy = policy;
    const spawn: ReturnType<typeof memberSpawn> = { src: "toolCall", id, input };
    if (context.callSettings.registersCalls) spawn.systemId = callSystemId(context.callIds[member] as string);
    return spawn;
  }
  const from = member * context.layout.sliceSize;
  const to = from + context.layout.sliceSize;
  const input: ToolBatchInput = {
    calls: context.calls.slice(from, to),
    callIds: context.callIds.slice(from, to),
    offset: context.layout.offset + from,
    mode: "parallel",
    hooks: context.callSettings.hooks,
    aborted: context.aborted,
    abortGraceMs: context.layout.abortGraceMs,
    slice: true,
    fanOut: context.layout.fanOut,
    ...(context.callSettings.approvedTools.length > 0 ? { approvedTools: context.callSettings.approvedTools } : {}),
    ...(context.callSettings.policies ? { policies: context.callSettings.policies } : {}),
    ...(context.callSettings.registersCalls ? { registersCalls: true } : {}),
    ...(context.callSettings.hookScope ? { hookScope: context.callSettings.hookScope } : {}),
    ...(context.callSettings.refusal !== undefined ? { refusal: context.callSettings.refusal } : {}),
    ...(context.layout.caps ? { caps: context.layout.caps } : {}),
  };
  return { src: "toolBatch", id: sliceId(member), input };
}

/** The largest source index of a call among `calls` (from `offset`) whose tool has no cap of its own; -1 when none. */
export function lastUncappedOf(calls: readonly ToolCall[], caps: CallCaps, offset: number): number {
  for (let index = calls.length - 1; index >= 0; index -= 1) if (!Object.hasOwn(caps.perTool, (calls[index] as ToolCall).name)) return offset + index;
  return -1;
}

/** Where `value` is in the ascending `sorted`, from position `from` on (binary search); -1 when it is not. */
export function sortedPosition(sorted: readonly number[], value: number, from = 0): number {
  let low = from;
  let high = sorted.length - 1;
  while (low <= high) {
    const middle = (low + high) >> 1;
    const found = sorted[middle] as number;
    if (found === value) return middle;
    if (found < value) low = middle + 1;
    else high = middle - 1;
  }
  return -1;
}

/** The tool name of the call with source index `index`. */
export const toolNameAt = (context: ToolBatchContext, index: number): string => (context.calls[index - context.layout.offset] as ToolCall).name;

/** A capped batch's queue (an empty one for a batch without caps, which never reads it). */
export const queueOf = (context: ToolBatchContext): BatchQueue => context.queue ?? { queued: [], head: 0, executing: {} };

/**
 * What a capped batch sends towards the call with source index `index`, to the
 * member that holds it: the call itself (`call.execute` / `call.cancel`), or
 * the slice it is in (`slice.execute` / `slice.cancel`, passed on down).
 * Nothing when that member has settled already.
 */
export function towardsCall(context: ToolBatchContext, index: number, execute: boolean): { to: string; event: BatchToToolCallEvent | BatchToSliceEvent } | undefined {
  const member = memberOf(context, index);
  if (context.slots[member] !== null) return undefined;
  if (context.layout.sliceSize === 0) {
    return { to: callActorId(index), event: execute ? { type: "call.execute" } : { type: "call.cancel", reason: ABORTED_MESSAGE } };
  }
  return { to: sliceId(member), event: { type: execute ? "slice.execute" : "slice.cancel", index } };
}

/**
 * The result message of a settled call. Its optional fields are set on it before
 * anyone sees it, and only when present (no `undefined`-valued keys: it lives in
 * snapshots), in the order `role, toolCallId, toolName, content, details, isError,
 * usage?, addedToolNames?, durationMs?, timestamp`.
 */
export function resultMessage(event: Extract<ToolCallToBatchEvent, { type: "tool.settled" }>): ToolResultMessage {
  const { result } = event;
  const message = {
    role: "toolResult",
    toolCallId: event.toolCallId,
    toolName: event.toolName,
    content: result.content ?? [],
    details: result.details,
    isError: event.isError,
  } as ToolResultMessage;
  if (result.usage !== undefined) message.usage = result.usage;
  if (result.addedToolNames !== undefined) message.addedToolNames = result.addedToolNames;
  if (event.durationMs !== undefined) message.durationMs = event.durationMs;
  message.timestamp = Date.now();
  return message;
}

/** Every result so far, in source order. */
export function resultsOf(context: ToolBatchContext): ToolResultMessage[] {
  if (context.layout.mode === "sequential") return transcriptMessages(context.ordered).slice() as ToolResultMessage[];
  const results: ToolResultMessage[] = [];
  for (const slot of context.slots) if (slot) for (const result of slot) results.push(result);
  return results;
}

/** Unsettled members told to start (they may be running, or waiting for their go). */
export function unsettledStarted(context: ToolBatchContext): number[] {
  const members: number[] = [];
  if (context.layout.mode === "sequential") {
    if (context.started > context.settled) members.push(context.started - 1);
    return members;
  }
  for (let member = 0; member < context.started; member += 1) if (context.slots[member] === null) members.push(member);
  return members;
}

/** What an abandonment warning names for `calls` the run stops waiting on (the batch's and the direct path's wording). */
export function callsWaitedOn(calls: readonly ToolCall[]): string {
  return calls.length > 0 ? calls.map((call) => `tool call "${call.name}" (id ${call.id})`).join(", ") : "work in flight";
}

/** The `warning` a batch emits when the run stops waiting on its unsettled calls after an abort. */
export function abandonWarning(context: ToolBatchContext): Extract<AgentEvent, { type: "warning" }> {
  const pending = unsettledStarted(context).flatMap((member) =>
    context.layout.sliceSize === 0 ? [context.calls[member] as ToolCall] : context.calls.slice(member * context.layout.sliceSize, (member + 1) * context.layout.sliceSize),
  );
  const what = callsWaitedOn(pending);
  return {
    type: "warning",
    reason: "abandoned",
    message: `${what} did not honour the abort within ${context.layout.abortGraceMs} ms; the run stopped waiting, and a late settle will be ignored`,
  };
}
