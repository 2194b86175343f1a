/**
 * The tool batch of one turn, as its own machine: runs the calls of one
 * assistant response and finishes with their results in source order.
 *
 *   dispatching ─┬─ isSequential ─▶ sequential: next ⇄ calling ─────────────────────────▶ done
 *                └─▶ parallel: ─┬─ needsHandshake ─▶ preparing: next ⇄ waiting ─▶ prepared ─┐
 *                               └─ (start every call at once) ───────────────────▶ running ◀┘ ─▶ done
 *   prepared ─ (a slice) ─▶ awaitingGo ─ call.execute / call.cancel ─▶ running
 *   parallel ─ isCapped ─▶ capped: preparing: next ⇄ waiting ─▶ prepared ─┬─ (a slice) ─▶ relaying ─▶ done
 *                                                                       └─▶ running ⟲ (release what fits) ─▶ done
 *
 * - **sequential**: one call at a time, in source order. The call is spawned when
 *   its turn comes, reports `tool.prepared`, is told `call.execute` (or
 *   `call.cancel` after an abort), and is stopped once it settled; its result
 *   message is emitted right away, as pi does.
 * - **parallel**: every call runs at once. Without a handshake each call is
 *   spawned ready to go on from preparation to execution, in source order, so the
 *   calls prepare one after another and no tool starts before the last is
 *   prepared (preparation is synchronous, a tool starts a microtask later). With
 *   `beforeToolCall` (or after an abort) the calls prepare one at a time and all
 *   prepared calls are released together. The loop emits the result messages
 *   (its `appending` state, the backfill) once the batch is done, in source order.
 *
 * **Capped** (`caps`: a tool's `concurrency`, `maxParallelCalls`; the loop sets
 * them only when one binds): the calls prepare one at a time in source order and
 * wait prepared — queued — in their `prepared` state. The batch of the response
 * owns the caps, the queue (source indexes) and the count of released calls by
 * tool, for the whole batch: once every call is prepared it releases, in source
 * order, what fits ({@link releasable}), and again as each call settles; after an
 * abort the queued calls are cancelled and never start. Its slices (which get
 * the caps too) only relay: a slice queues its own calls as they prepare and
 * hands the list up with its `tool.prepared`; after that each call's settle goes
 * up as `slice.callSettled` (passed on by the slices above), and `slice.execute` /
 * `slice.cancel` for one index comes down to the member holding it. A released call awaiting approval holds its room. An uncapped
 * batch never enters `capped` and has no caps, queue or released list in its context.
 *
 * **Bounded fan-out.** XState copies a parent's `children` on every spawn and
 * stop, so one machine parenting n calls costs O(n²) to spawn and tear down
 * (xstate 5.33: 20,000 children take ~80 s to stop). A parallel batch of more
 * than {@link SLICE_SIZE} calls therefore does not parent its calls: it spawns
 * at most `SLICE_SIZE` *slices* — this same machine (`toolBatch`) over a run of
 * the calls — and each slice does the same until a slice has at most
 * `SLICE_SIZE` calls. No machine ever has more than `SLICE_SIZE` children, so a
 * batch costs O(n · SLICE_SIZE). A slice behaves towards its parent like a call:
 * it reports `tool.prepared` (handshake batches) and waits for `call.execute`,
 * takes `call.cancel`, and settles by finishing with its results as output.
 *
 * Each call reports to its batch once (`tool.settled`; `tool.prepared` only with
 * a handshake). The loop sees one event per batch: this machine's done event.
 * Only a sequential batch emits result messages (`message_start`/`message_end`),
 * each as its call settles; the loop emits a parallel batch's. `run.abort` and `run.abandon` reach it from
 * the loop; after `run.abandon` it warns what it stops waiting on and cancels
 * every unsettled call. Plain data, changed only through `assign`.
 */
import { assign, emit, enqueueActions, fromCallback, setup, type AnyStateMachine } from "xstate";
import type { AgentEvent, AgentMessage, ToolCall, ToolExecutionMode, ToolResultMessage } from "../src/types.js";
import {
  callSystemId,
  type BatchToSliceEvent,
  type BatchToToolCallEvent,
  type CallHookScope,
  type SliceToBatchEvent,
  type ToolCallInput,
  type ToolCallToBatchEvent,
} from "./events.js";
import { ABORTED_MESSAGE, toolCallMachine } from "./tool-call.machine.js";
import { appendMessages, transcriptMessages, type Transcript } from "./transcript.js";
import { scanReleasable, type CallCaps, type ToolCallPolicy } from "./loop-policies.js";

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

const memberId = (context: ToolBatchContext, member: number): string =>
  context.layout.sliceSize === 0 ? callActorId(context.layout.offset + member) : sliceId(member);

/** The member a source index belongs to. */
const memberOf = (context: ToolBatchContext, index: number): number =>
  context.layout.sliceSize === 0 ? index - context.layout.offset : Math.floor((index - context.layout.offset) / context.layout.sliceSize);

/** The spawn of member `member`: a call, or a slice of the calls. */
function memberSpawn(context: ToolBatchContext, member: number): { src: "toolCall" | "toolBatch"; id: string; systemId?: string; input: ToolCallInput | ToolBatchInput } {
  if (context.layout.sliceSize === 0) {
    const id = callActorId(context.layout.offset + member);
    const name = (context.calls[member] as ToolCall).name;
    const policy = context.callSettings.policies && Object.hasOwn(context.callSettings.policies, name) ? context.callSettings.policies[name] : undefined;
    const input: ToolCallInput = {
      toolCall: context.calls[member] as ToolCall,
      index: context.layout.offset + member,
      hooks: context.callSettings.hooks,
      reportsPreparation: context.layout.handshake,
      ...(!context.layout.handshake && context.callSettings.refusal === undefined ? { proceeds: true } : {}),
      ...(context.callSettings.hookScope ? { hookScope: context.callSettings.hookScope } : {}),
      ...(context.callSettings.refusal !== undefined ? { refusal: context.callSettings.refusal } : {}),
      ...(context.callSettings.approvedTools.includes(name) ? { preapproved: true } : {}),
      ...(policy ? { policy } : {}),
    };
    return { src: "toolCall", id, ...(context.callSettings.registersCalls ? { systemId: callSystemId(context.callIds[member] as string) } : {}), input };
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
function lastUncappedOf(calls: readonly ToolCall[], caps: CallCaps, offset: number): number {
  for (let index = calls.length - 1; index >= 0; index -= 1) if (!Object.hasOwn(caps.perTool, (calls[index] as ToolCall).name)) return offset + index;
  return -1;
}

/** Where `value` is in the ascending `sorted`, from position `from` on (binary search); -1 when it is not. */
function sortedPosition(sorted: readonly number[], value: number, from = 0): number {
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
const toolNameAt = (context: ToolBatchContext, index: number): string => (context.calls[index - context.layout.offset] as ToolCall).name;

/** A capped batch's queue (an empty one for a batch without caps, which never reads it). */
const queueOf = (context: ToolBatchContext): BatchQueue => context.queue ?? { queued: [], head: 0, executing: {} };

/**
 * What a capped batch sends towards the call with source index `index`, to the
 * member that holds it: the call itself (`call.execute` / `call.cancel`), or
 * the slice it is in (`slice.execute` / `slice.cancel`, passed on down).
 * Nothing when that member has settled already.
 */
function towardsCall(context: ToolBatchContext, index: number, execute: boolean): { to: string; event: BatchToToolCallEvent | BatchToSliceEvent } | undefined {
  const member = memberOf(context, index);
  if (context.slots[member] !== null) return undefined;
  if (context.layout.sliceSize === 0) {
    return { to: callActorId(index), event: execute ? { type: "call.execute" } : { type: "call.cancel", reason: ABORTED_MESSAGE } };
  }
  return { to: sliceId(member), event: { type: execute ? "slice.execute" : "slice.cancel", index } };
}

/** The result message of a settled call. */
function resultMessage(event: Extract<ToolCallToBatchEvent, { type: "tool.settled" }>): ToolResultMessage {
  return {
    role: "toolResult",
    toolCallId: event.toolCallId,
    toolName: event.toolName,
    content: event.result.content ?? [],
    details: event.result.details,
    isError: event.isError,
    ...(event.result.usage === undefined ? {} : { usage: event.result.usage }),
    ...(event.result.addedToolNames === undefined ? {} : { addedToolNames: event.result.addedToolNames }),
    ...(event.durationMs === undefined ? {} : { durationMs: event.durationMs }),
    timestamp: Date.now(),
  };
}

/** Every result so far, in source order. */
function resultsOf(context: ToolBatchContext): ToolResultMessage[] {
  if (context.layout.mode === "sequential") return transcriptMessages(context.ordered).slice() as ToolResultMessage[];
  const results: ToolResultMessage[] = [];
  for (const slot of context.slots) if (slot) for (const result of slot) results.push(result);
  return results;
}

/** Unsettled members told to start (they may be running, or waiting for their go). */
function unsettledStarted(context: ToolBatchContext): number[] {
  const members: number[] = [];
  if (context.layout.mode === "sequential") {
    if (context.started > context.settled) members.push(context.started - 1);
    return members;
  }
  for (let member = 0; member < context.started; member += 1) if (context.slots[member] === null) members.push(member);
  return members;
}

/** The `warning` a batch emits when the run stops waiting on its unsettled calls after an abort. */
function abandonWarning(context: ToolBatchContext): Extract<AgentEvent, { type: "warning" }> {
  const pending = unsettledStarted(context).flatMap((member) => {
    const calls = context.layout.sliceSize === 0 ? [context.calls[member] as ToolCall] : context.calls.slice(member * context.layout.sliceSize, (member + 1) * context.layout.sliceSize);
    return calls.map((call) => `tool call "${call.name}" (id ${call.id})`);
  });
  const what = pending.length > 0 ? pending.join(", ") : "work in flight";
  return {
    type: "warning",
    reason: "abandoned",
    message: `${what} did not honour the abort within ${context.layout.abortGraceMs} ms; the run stopped waiting, and a late settle will be ignored`,
  };
}

/** Stand-in for this machine as its own slices' logic; {@link linkSlices} points it at the machine itself. */
const sliceStandIn = fromCallback<ToolBatchEvent, ToolBatchInput>(() => undefined);

const toolBatchSetup = setup({
  types: {
    context: {} as ToolBatchContext,
    input: {} as ToolBatchInput,
    events: {} as ToolBatchEvent,
    emitted: {} as AgentEvent,
    output: {} as ToolBatchOutput,
  },
  actors: {
    /** One tool call. */
    toolCall: toolCallMachine,
    /** A slice of a large parallel batch: this machine itself (see {@link linkSlices}). */
    toolBatch: sliceStandIn,
  },
  guards: {
    isSequential: ({ context }) => context.layout.mode === "sequential",
    isCapped: ({ context }) => context.layout.caps !== undefined,
    needsHandshake: ({ context }) => context.layout.handshake,
    isSlice: ({ context }) => context.layout.slice,
    allStarted: ({ context }) => context.started >= context.layout.members,
    allSettled: ({ context }) => context.settled >= context.layout.members,
    /** The report is from the member preparing now (not from one cancelled while it waited for its go). */
    isCurrent: ({ context }, params: { index: number }) => memberOf(context, params.index) === context.started - 1,
  },
  actions: {
    /** Spawns every member at once, in source order (parallel batches without a handshake). */
    spawnAll: enqueueActions(({ context, enqueue }) => {
      for (let member = 0; member < context.layout.members; member += 1) {
        const { src, id, systemId, input } = memberSpawn(context, member);
        if (src === "toolCall") enqueue.spawnChild("toolCall", { id, ...(systemId ? { systemId } : {}), input: input as ToolCallInput });
        else enqueue.spawnChild("toolBatch", { id, input: input as ToolBatchInput });
      }
      enqueue.assign({ started: context.layout.members });
    }),
    /** Spawns the next member: its turn to prepare has come. */
    spawnNext: enqueueActions(({ context, enqueue }) => {
      const { src, id, systemId, input } = memberSpawn(context, context.started);
      if (src === "toolCall") enqueue.spawnChild("toolCall", { id, ...(systemId ? { systemId } : {}), input: input as ToolCallInput });
      else enqueue.spawnChild("toolBatch", { id, input: input as ToolBatchInput });
      enqueue.assign({ started: context.started + 1 });
    }),
    markWaiting: assign(({ context }, params: { index: number }) => ({ waiting: [...context.waiting, memberOf(context, params.index)] })),
    /** Lets the waiting members execute, or (after an abort) cancels them. */
    releaseWaiting: enqueueActions(({ context, enqueue }) => {
      const event: BatchToToolCallEvent = context.aborted ? { type: "call.cancel", reason: ABORTED_MESSAGE } : { type: "call.execute" };
      for (const member of context.waiting) enqueue.sendTo(memberId(context, member), event);
      enqueue.assign({ waiting: [] });
    }),
    /** Sequential: lets the prepared call execute, or cancels it after an abort. */
    releasePrepared: enqueueActions(({ context, enqueue }, params: { index: number }) => {
      const event: BatchToToolCallEvent = context.aborted ? { type: "call.cancel", reason: ABORTED_MESSAGE } : { type: "call.execute" };
      enqueue.sendTo(memberId(context, memberOf(context, params.index)), event);
    }),
    /** Records one call's result: in its slot (parallel), or appended and emitted at once (sequential). */
    recordSettled: enqueueActions(({ context, enqueue }, params: Extract<ToolCallToBatchEvent, { type: "tool.settled" }>) => {
      const member = memberOf(context, params.index);
      const allTerminate = context.allTerminate && params.result.terminate === true;
      const message = resultMessage(params);
      const rejected = params.rejected !== undefined ? [...context.rejected, params.index] : context.rejected;
      if (context.layout.mode === "sequential") {
        if (member !== context.settled) return;
        enqueue.emit({ type: "message_start", message });
        enqueue.emit({ type: "message_end", message });
        enqueue.stopChild(memberId(context, member));
        enqueue.assign({ ordered: appendMessages(context.ordered, [message as AgentMessage]), settled: context.settled + 1, allTerminate, rejected });
        return;
      }
      if (context.slots[member] !== null) return;
      const slots = context.slots.slice();
      slots[member] = [message];
      enqueue.assign({ slots, settled: context.settled + 1, allTerminate, rejected });
    }),
    /** Records a finished slice's results in its slot. */
    recordSlice: assign(({ context }, output: ToolBatchOutput) => {
      const member = memberOf(context, output.offset);
      if (context.slots[member] !== null) return {};
      const slots = context.slots.slice();
      slots[member] = output.results;
      const rejected = output.rejected.length > 0 ? [...context.rejected, ...output.rejected] : context.rejected;
      return { slots, settled: context.settled + 1, allTerminate: context.allTerminate && output.terminates, rejected };
    }),
    /** A slice's whole run of calls is prepared: report it to the parent batch, as a call does. */
    reportPrepared: enqueueActions(({ context, enqueue }) => {
      enqueue.sendParent({ type: "tool.prepared", toolCallId: context.calls[0]?.id ?? "", index: context.layout.offset } satisfies ToolCallToBatchEvent);
    }),
    /**
     * Capped: a member is prepared. A call's index joins the queue; a slice's
     * report brings its queued calls (calls prepare in source order, so the queue
     * stays ascending).
     */
    queuePrepared: assign(({ context }, params: Extract<ToolCallToBatchEvent, { type: "tool.prepared" }>) => {
      const queue = queueOf(context);
      if (context.layout.sliceSize === 0) return { queue: { ...queue, queued: [...queue.queued, params.index] } };
      return params.queued === undefined || params.queued.length === 0 ? {} : { queue: { ...queue, queued: queue.queued.concat(params.queued) } };
    }),
    /** A slice of a capped batch whose calls are prepared: hands its queue to its parent (which releases them from now on). */
    reportQueued: enqueueActions(({ context, enqueue }) => {
      const queue = queueOf(context);
      enqueue.sendParent({ type: "tool.prepared", toolCallId: context.calls[0]?.id ?? "", index: context.layout.offset, queued: queue.queued } satisfies ToolCallToBatchEvent);
      enqueue.assign({ queue: { ...queue, queued: [] } });
    }),
    /**
     * Capped: the call with source index `index` settled. Still queued here (a
     * rejection, an abort while it awaited approval): it leaves the queue. Else a
     * slice passes it up; the batch of the response frees its room (a call that
     * was never queued, rejected in preparation, settles before anything is released:
     * every count is 0 then).
     */
    noteCallSettled: enqueueActions(({ context, enqueue }, params: { index: number }) => {
      const queue = queueOf(context);
      const position = sortedPosition(queue.queued, params.index, queue.head);
      if (position >= 0) {
        enqueue.assign({ queue: { ...queue, queued: queue.queued.slice(queue.head, position).concat(queue.queued.slice(position + 1)), head: 0 } });
        return;
      }
      if (context.layout.slice) {
        enqueue.sendParent({ type: "slice.callSettled", index: params.index } satisfies SliceToBatchEvent);
        return;
      }
      const name = toolNameAt(context, params.index);
      const count = queue.executing[name] ?? 0;
      if (count > 0) enqueue.assign({ queue: { ...queue, executing: { ...queue.executing, [name]: count - 1 } } });
    }),
    /**
     * Capped, the batch of the response: releases the queued calls that fit the
     * caps, in source order ({@link releasable}); the rest keep waiting. After an
     * abort every queued call is cancelled instead (also by a slice, the calls it
     * has not handed up yet): it never starts.
     */
    releaseQueued: enqueueActions(({ context, enqueue }) => {
      const queue = queueOf(context);
      const { caps } = context.layout;
      if (caps === undefined || queue.queued.length <= queue.head || (context.layout.slice && !context.aborted)) return;
      if (context.aborted) {
        for (let position = queue.head; position < queue.queued.length; position += 1) {
          const target = towardsCall(context, queue.queued[position] as number, false);
          if (target) enqueue.sendTo(target.to, target.event);
        }
        enqueue.assign({ queue: { ...queue, queued: [], head: 0 } });
        return;
      }
      const nameOf = (index: number) => toolNameAt(context, index);
      const { release, kept, end } = scanReleasable(caps, queue.executing, queue.queued, queue.head, nameOf, context.layout.lastUncapped);
      if (release.length === 0) return;
      for (const index of release) {
        const target = towardsCall(context, index, true);
        if (target) enqueue.sendTo(target.to, target.event);
      }
      const executing = { ...queue.executing };
      for (const index of release) executing[nameOf(index)] = (executing[nameOf(index)] ?? 0) + 1;
      // Released in order from the head: move the head; else the queue is what was passed over and what was not looked at.
      const rest = kept.length === 0 ? { queued: queue.queued, head: end } : { queued: kept.concat(queue.queued.slice(end)), head: 0 };
      enqueue.assign({ queue: { ...rest, executing } });
    }),
    /** A slice of a capped batch: passes its parent's go (or cancel) for one call on to the member that holds it. */
    passToCall: enqueueActions(({ context, enqueue }, params: BatchToSliceEvent) => {
      const target = towardsCall(context, params.index, params.type === "slice.execute");
      if (target) enqueue.sendTo(target.to, target.event);
    }),
    markAborted: assign({ aborted: true }),
    /** Tells every started, unsettled member the run was aborted: a call awaiting approval settles aborted, the others ignore it; a slice passes it on. */
    abortUnsettled: enqueueActions(({ context, enqueue }) => {
      for (const member of unsettledStarted(context)) {
        enqueue.sendTo(memberId(context, member), context.layout.sliceSize === 0 ? { type: "call.abort", reason: ABORTED_MESSAGE } : { type: "run.abort" });
      }
    }),
    /** Cancels every started member that has not settled: each settles with the aborted result. */
    cancelUnsettled: enqueueActions(({ context, enqueue }) => {
      for (const member of unsettledStarted(context)) enqueue.sendTo(memberId(context, member), { type: "call.cancel", reason: ABORTED_MESSAGE });
      enqueue.assign({ waiting: [] });
    }),
    warnAbandoned: emit(({ context }) => abandonWarning(context)),
  },
});

/**
 * Preparing one member at a time, in source order (beforeToolCall, after an abort,
 * or a capped batch), then on to the `prepared` state beside it. A prepared member
 * waits for its go: uncapped batches keep it in `waiting`, capped ones in their
 * queue. When the member preparing now settles instead (unknown tool, invalid
 * arguments, blocked), the next one prepares; a capped batch also notes the settle.
 * (A member that settles while it waited for its go — cancelled, or rejected
 * awaiting approval — is recorded by the enclosing state.)
 */
function preparingOneAtATime({ capped }: { capped: boolean }) {
  return toolBatchSetup.createStateConfig({
    initial: "next",
    states: {
      next: {
        always: [
          { guard: "allStarted", target: capped ? "#toolBatch.parallel.capped.prepared" : "#toolBatch.parallel.prepared" },
          { target: "waiting", actions: "spawnNext" },
        ],
      },
      waiting: {
        on: {
          "tool.prepared": {
            target: "next",
            actions: capped ? { type: "queuePrepared", params: ({ event }) => event } : { type: "markWaiting", params: ({ event }) => event },
          },
          "tool.settled": {
            guard: { type: "isCurrent", params: ({ event }) => event },
            target: "next",
            actions: capped
              ? [
                  { type: "recordSettled", params: ({ event }) => event },
                  { type: "noteCallSettled", params: ({ event }) => event },
                ]
              : [{ type: "recordSettled", params: ({ event }) => event }],
          },
          "xstate.done.actor.*": {
            guard: { type: "isCurrent", params: ({ event }) => ({ index: event.output.offset }) },
            target: "next",
            actions: { type: "recordSlice", params: ({ event }) => event.output },
          },
        },
      },
    },
  });
}

const toolBatchDefinition = toolBatchSetup.createMachine({
  id: "toolBatch",
  context: ({ input }) => {
    const offset = input.offset ?? 0;
    const fanOut = Math.max(2, Math.floor(input.fanOut ?? SLICE_SIZE));
    const sliceSize = input.mode === "sequential" ? 0 : sliceSizeFor(input.calls.length, fanOut);
    const members = sliceSize === 0 ? input.calls.length : Math.ceil(input.calls.length / sliceSize);
    const aborted = input.aborted === true;
    // Caps apply to a parallel batch that runs its calls (not a refused one).
    const caps = input.mode === "parallel" && input.refusal === undefined ? input.caps : undefined;
    return {
      calls: input.calls,
      callIds: input.callIds ?? uniqueCallIds(input.calls),
      layout: {
        offset,
        mode: input.mode,
        slice: input.slice === true,
        fanOut,
        handshake: input.refusal === undefined && (input.mode === "sequential" || input.hooks.beforeToolCall || aborted || caps !== undefined),
        sliceSize,
        members,
        abortGraceMs: input.abortGraceMs ?? 0,
        ...(caps ? { caps, ...(input.slice === true ? {} : { lastUncapped: lastUncappedOf(input.calls, caps, offset) }) } : {}),
      },
      callSettings: {
        hooks: input.hooks,
        ...(input.hookScope ? { hookScope: input.hookScope } : {}),
        ...(input.refusal !== undefined ? { refusal: input.refusal } : {}),
        approvedTools: input.approvedTools ?? [],
        ...(input.policies ? { policies: input.policies } : {}),
        registersCalls: input.registersCalls === true,
      },
      aborted,
      started: 0,
      waiting: [],
      slots: input.mode === "sequential" ? [] : Array.from({ length: members }, () => null),
      ordered: { full: [], tail: [], length: 0 },
      settled: 0,
      allTerminate: true,
      rejected: [],
      ...(caps ? { queue: { queued: [], head: 0, executing: {} } } : {}),
    };
  },
  on: {
    "run.abort": { actions: ["markAborted", "abortUnsettled"] },
    "run.abandon": { actions: ["warnAbandoned", "markAborted", "cancelUnsettled"] },
    "call.cancel": { actions: ["markAborted", "cancelUnsettled"] },
  },
  initial: "dispatching",
  states: {
    dispatching: {
      always: [{ guard: "isSequential", target: "sequential" }, { target: "parallel" }],
    },
    sequential: {
      initial: "next",
      states: {
        next: {
          always: [{ guard: "allSettled", target: "#toolBatch.done" }, { target: "calling", actions: "spawnNext" }],
        },
        // One call at a time: it reports tool.prepared, gets its go, settles, and is stopped.
        calling: {
          on: {
            "tool.prepared": { actions: { type: "releasePrepared", params: ({ event }) => event } },
            "tool.settled": { target: "next", actions: { type: "recordSettled", params: ({ event }) => event } },
          },
        },
      },
    },
    parallel: {
      // Wherever the batch is, a member's result is kept (the states above decide what follows).
      on: {
        "tool.settled": { actions: { type: "recordSettled", params: ({ event }) => event } },
        "xstate.done.actor.*": { actions: { type: "recordSlice", params: ({ event }) => event.output } },
      },
      initial: "starting",
      states: {
        starting: {
          always: [{ guard: "isCapped", target: "capped" }, { guard: "needsHandshake", target: "preparing" }, { target: "running", actions: "spawnAll" }],
        },
        // One member prepares at a time (beforeToolCall, or after an abort); the prepared wait for the go.
        preparing: preparingOneAtATime({ capped: false }),
        prepared: {
          always: [
            { guard: "allSettled", target: "#toolBatch.done" },
            { guard: "isSlice", target: "awaitingGo" },
            { target: "running", actions: "releaseWaiting" },
          ],
        },
        // A slice whose calls are prepared waits, as a prepared call does, for its parent's go.
        // Every member here has settled or waits for its go; a waiting one may still settle
        // (a call awaiting approval is rejected, or aborted): once all did, the slice is done.
        awaitingGo: {
          entry: "reportPrepared",
          always: { guard: "allSettled", target: "#toolBatch.done" },
          on: {
            "call.execute": { target: "running", actions: "releaseWaiting" },
            "call.cancel": { target: "running", actions: ["markAborted", "releaseWaiting"] },
          },
        },
        running: {
          always: { guard: "allSettled", target: "#toolBatch.done" },
        },
        // A capped batch (a tool's concurrency, maxParallelCalls) and its slices. The calls prepare
        // one at a time, in source order, and wait prepared ("queued"); the batch of the response
        // holds the queue and the released calls for the whole batch, releases what fits once all
        // are prepared and again as each call settles. A slice hands its queued calls up with its
        // tool.prepared, then passes each call's settle up and the go (or cancel) for one call down.
        capped: {
          on: {
            // The abort cancels the queued calls (they never start); the released ones honour the run's signal.
            "run.abort": { actions: ["markAborted", "abortUnsettled", "releaseQueued"] },
            "tool.settled": {
              actions: [
                { type: "recordSettled", params: ({ event }) => event },
                { type: "noteCallSettled", params: ({ event }) => event },
              ],
            },
            "slice.callSettled": { actions: { type: "noteCallSettled", params: ({ event }) => event } },
            "slice.execute": { actions: { type: "passToCall", params: ({ event }) => event } },
            "slice.cancel": { actions: { type: "passToCall", params: ({ event }) => event } },
          },
          initial: "preparing",
          states: {
            preparing: preparingOneAtATime({ capped: true }),
            prepared: {
              always: [
                { guard: "allSettled", target: "#toolBatch.done" },
                { guard: "isSlice", target: "relaying" },
                { target: "running", actions: "releaseQueued" },
              ],
            },
            // A slice whose calls are prepared: its parent releases them one by one.
            relaying: {
              entry: "reportQueued",
              always: { guard: "allSettled", target: "#toolBatch.done" },
            },
            // The batch of the response: each settled call makes room for the next that fits.
            running: {
              on: {
                "tool.settled": {
                  actions: [
                    { type: "recordSettled", params: ({ event }) => event },
                    { type: "noteCallSettled", params: ({ event }) => event },
                    "releaseQueued",
                  ],
                },
                "slice.callSettled": { actions: [{ type: "noteCallSettled", params: ({ event }) => event }, "releaseQueued"] },
              },
              always: { guard: "allSettled", target: "#toolBatch.done" },
            },
          },
        },
      },
    },
    done: {
      type: "final",
    },
  },
  output: ({ context }) => ({
    offset: context.layout.offset,
    results: resultsOf(context),
    terminates: context.callSettings.refusal === undefined && context.calls.length > 0 && context.allTerminate,
    rejected: context.rejected.slice().sort((a, b) => a - b),
  }),
});

/**
 * `machine` (the tool-batch machine, possibly with other actors provided) with
 * its slices pointed at itself, so a large batch is sliced by the same machine.
 * `as` may wrap the linked machine (the run's event listening); the slices run
 * the wrapped logic too, and it is what is returned. Use it after every `provide`.
 */
export function linkSlices<T extends AnyStateMachine>(machine: T, as: (linked: T) => T = (linked) => linked): T {
  const linked = machine.provide({}) as T;
  const logic = as(linked);
  (linked.implementations.actors as Record<string, unknown>).toolBatch = logic;
  return logic;
}

/** The tool-batch machine (inert call actors; `src/` provides the real ones, then {@link linkSlices}). */
export const toolBatchMachine = linkSlices(toolBatchDefinition);
