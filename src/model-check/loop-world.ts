/**
 * The abstract world around the loop machine: what the model, the tools, the
 * hooks and the user can do next, as explicit events. A world state pairs the
 * loop's real snapshot with the real snapshots of the tool batch it invokes (and
 * the slices of it a large batch spawns) and of the batch's tool-call actors
 * (the calls' actors — prepareCall, executeTool, afterToolCall — are inert
 * stand-ins and their tools do not run: the answers are world events), whether
 * the model stream has started, whether the abort's grace period ran out, and
 * the invariant monitor.
 *
 * Two kinds of hostile input are part of the world. A user function that never
 * settles: in any state the world may stop answering everything pending (a tool,
 * a hook, the model stream) for good; the only things that still happen are the
 * abort and, once, the end of its grace period, after which the run must be done
 * (else I3). A malformed stream event: the model may end a response with an invalid
 * `done` or `error` event, or with tool calls whose ids are missing or repeated; the
 * world turns these into the response the real `requestModel` actor would send, with
 * the same function (`finalResponse`).
 */
import { assign, type AnyActorRef, type AnyMachineSnapshot, type AnyStateMachine, type AnyTransitionDefinition, type EventObject } from "xstate";
import { callSystemId } from "../../machines/events.js";
import { awaitsApproval, type ToolCallContext } from "../../machines/tool-call.machine.js";
import type { AgentEvent, AgentMessage, AssistantMessage, Model, StopReason, ToolCall } from "../types.js";
import {
  createMonitor,
  observeEmitted,
  observeSentToBatch,
  observeSentToCall,
  observeWorld,
  type ProtocolMonitor,
  type StepViolation,
  type WorldFact,
} from "./protocol-monitor.js";
import { emittedEvent, sentEvent, spawnedChild, stoppedChild, type RecordedAction, type RecordedStep, type StepRecorder } from "./record-step.js";
import { finalResponse } from "../providers/check-stream-event.js";
import { REQUEST_ABORTED_MESSAGE } from "../providers/assistant-stream.js";
import { failedResponse } from "../messages.js";
import { ABORTED_MESSAGE } from "../../machines/loop-context.js";

/** One tool-call actor of the current batch: the real tool-call machine's snapshot, and the key of the batch that parents it. */
export interface WorldCall {
  /** Its actor id in its batch (`call@<source index>`). */
  id: string;
  /** The id the run knows it by (its tool call id, made unique in the batch): its system id is `toolCall:<callId>`. */
  callId: string;
  name: string;
  index: number;
  parent: string;
  snapshot: AnyMachineSnapshot;
}

/**
 * The tool batch the loop invokes, or a slice of it: its key (`toolBatch`, then
 * `toolBatch/slice-0`, … for slices), its actor id in its parent, the parent's
 * key (null: the loop), and the real batch machine's snapshot.
 */
export interface WorldBatch {
  key: string;
  id: string;
  parent: string | null;
  snapshot: AnyMachineSnapshot;
}

/** A state of the product of the loop, its tool batch (and slices), the batch's tool-call actors and the world. */
export interface LoopWorldState {
  status: "active" | "done" | "error";
  output: undefined;
  error: undefined;
  loop: AnyMachineSnapshot;
  batches: WorldBatch[];
  calls: WorldCall[];
  modelStarted: boolean;
  /** The abort's grace period ran out: the loop's delayed `run.abandon` fired (it fires once). */
  abandoned: boolean;
  monitor: ProtocolMonitor;
  /** Violations found on the step that produced this state. */
  violations: StepViolation[];
}

/** One thing the world does; `type` is its readable label. */
export interface WorldEvent extends EventObject {
  /** The event delivered, to the loop or (with `call`) to a tool-call actor. */
  send?: SentEvent;
  /** Actor id of the tool-call actor that receives `send`. */
  call?: string;
  /** An event the world itself emits to the run's sink (a streamed response's `message_start`). */
  emits?: AgentEvent;
  modelStarted?: boolean;
  fact?: WorldFact;
  /** The grace period ends: `send` is the loop's delayed `run.abandon`. */
  abandons?: true;
  /** Nothing pending ever settles: the world aborts (if it has not), lets the grace period end (if it has not), and the run must then be done. */
  hangs?: true;
}

/** An event for the loop, with its payload. */
export type SentEvent = EventObject & Record<string, unknown>;

/** A sample output of a hook actor. */
export interface HookOutcome {
  label: string;
  output: unknown;
  fact?: WorldFact;
}

/** Limits and samples of the world. */
export interface LoopWorldOptions {
  /** Largest batch of tool calls in one response. */
  maxCalls: number;
  /** Extra hook outcomes by actor source name (merged over the defaults). */
  hookOutcomes?: Record<string, HookOutcome[]>;
  /** Abstracts the loop's context for state identity; must drop growing data. */
  abstractContext?: (context: unknown) => unknown;
  /** Most children per batch machine (the batch's `fanOut`); lowered to explore slices at a small bound. */
  batchFanOut?: number;
  /** Preparation may ask for approval, and the user decides (see `ModelCheckConfiguration.approvals`). */
  approvals?: boolean;
}

/** The machines of a world and how to record their steps. */
export interface LoopWorldMachines {
  /** The loop machine (stand-in actors provided). */
  loop: AnyStateMachine;
  /** The tool-call machine (stand-in actors provided). */
  call: AnyStateMachine;
  /** The tool-batch machine (stand-in children: the world plays its calls and slices). */
  batch: AnyStateMachine;
  recorders: { loop: StepRecorder; call: StepRecorder };
  /** Receives the transitions every step took, by machine. */
  onTransitions: (taken: AnyTransitionDefinition[], of: "loop" | "call" | "batch") => void;
}

/** Name of the tool that declares sequential execution in sample batches. */
export const SERIAL_TOOL = "serialTool";
/** Name of the tool of every other sample call. */
export const TOOL = "tool";

const STUB_MODEL: Model = {
  id: "model-check",
  name: "Model check stand-in",
  api: "model-check",
  provider: "model-check",
  baseUrl: "",
  reasoning: false,
  input: ["text"],
  cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0 },
  contextWindow: 1,
  maxTokens: 1,
};

/** A user message the world uses for prompts, steering and follow-ups. */
export const sampleMessage = (text: string): AgentMessage => ({ role: "user", content: text, timestamp: 0 });

/** The base input every configuration starts from: one prompt, a stub model. */
export function baseLoopInput() {
  const prompt = sampleMessage("check the loop");
  return { systemPrompt: "model check", messages: [prompt], prompts: [prompt], model: STUB_MODEL };
}

function response(stopReason: StopReason, calls: ToolCall[], text: boolean): AssistantMessage {
  return {
    role: "assistant",
    content: [...(text ? [{ type: "text" as const, text: "…" }] : []), ...calls],
    api: STUB_MODEL.api,
    provider: STUB_MODEL.provider,
    model: STUB_MODEL.id,
    // One token per response, so a budget of n tokens is reached by the n-th response.
    usage: { input: 0, output: 1, cacheRead: 0, cacheWrite: 0, totalTokens: 1, cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0 } },
    stopReason,
    ...(stopReason === "error" || stopReason === "aborted" ? { errorMessage: `response ${stopReason}` } : {}),
    timestamp: 0,
  };
}

const SETTLE_TEXT = {
  ok: "done",
  throws: "the tool threw",
  invalid: "Tool tool: invalid arguments",
  blocked: "Tool execution was blocked",
} as const;

/** Marks a sample call's raw arguments as failing preparation (unknown tool or invalid arguments). */
const INVALID_FLAG = "modelCheckInvalid";

/** Marks a sample call as one to a tool whose `needsApproval` is `true` (approval configurations). */
const ASKS_FLAG = "modelCheckAsksApproval";

/** Whether the world marked a call's raw arguments as failing preparation (unknown tool or invalid arguments). */
const marksInvalid = (context: ToolCallContext): boolean => context.toolCall.arguments[INVALID_FLAG] === true;

/**
 * The world's `prepareArguments` (a call's synchronous preparation without
 * `beforeToolCall`): arguments the world marked invalid settle at once with the
 * invalid-arguments result; the others are accepted as they are.
 */
export const worldPrepareArguments = assign(({ context }: { context: ToolCallContext }): Partial<ToolCallContext> => {
  if (marksInvalid(context)) return { settled: { result: { content: [{ type: "text", text: SETTLE_TEXT.invalid }], details: {} }, isError: true, rejected: "invalidArguments" } };
  // A call to a tool whose needsApproval is `true` asks (unless its tool was approved for good).
  const asks = context.toolCall.arguments[ASKS_FLAG] === true && context.preapproved !== true;
  return asks ? { args: context.toolCall.arguments, approval: "asked" } : { args: context.toolCall.arguments };
});

const DEFAULT_HOOK_OUTCOMES: Record<string, HookOutcome[]> = {
  pollSteering: [
    { label: "no messages", output: [] },
    { label: "1 message", output: [sampleMessage("steer")], fact: { pendingDelivered: true } },
  ],
  pollFollowUp: [
    { label: "no messages", output: [] },
    { label: "1 message", output: [sampleMessage("follow up")], fact: { pendingDelivered: true } },
  ],
  checkStopAfterTurn: [
    { label: "false", output: false },
    { label: "true", output: true, fact: { stopRequested: true } },
  ],
  prepareNextTurn: [
    { label: "no change", output: undefined },
    { label: "1 message", output: { append: [sampleMessage("prepared")] } },
  ],
  prepareRequest: [{ label: "no change", output: undefined }],
  finishTurn: [
    { label: "no decision", output: undefined },
    { label: "end", output: "end", fact: { stopRequested: true } },
    { label: "continue", output: "continue", fact: { continueRequested: true } },
  ],
  invalidCallHint: [{ label: "hint", output: sampleMessage("hint") }],
};

/** Actor sources the world plays itself rather than answering as a hook. */
const OWN_SOURCES = new Set(["requestModel", "toolBatch", "toolCall"]);

/** The world: initial state, events, and the step of the product. */
export interface LoopWorld {
  initial: LoopWorldState;
  events(state: LoopWorldState): WorldEvent[];
  next(state: LoopWorldState, event: WorldEvent): LoopWorldState;
  serialize(state: LoopWorldState): string;
}

/** The stand-in call refs registered in one recorder's system (shared by every world built on it), and the calls they show. */
interface StandIns {
  refs: Map<string, AnyActorRef>;
  live: WorldCall[];
}
const STAND_INS = new WeakMap<object, StandIns>();
function standInsOf(system: object): StandIns {
  let found = STAND_INS.get(system);
  if (!found) {
    found = { refs: new Map(), live: [] };
    STAND_INS.set(system, found);
  }
  return found;
}

/** Cap on the events one world step may cascade into (a larger cascade is reported as a livelock). */
export const MAX_CASCADE = 10_000;

/** The input of a tool-call actor, as far as the world reads it. */
interface CallInput {
  toolCall: ToolCall;
  index: number;
  proceeds?: boolean;
}

/**
 * Builds the world for the machines starting from `input`. The events between
 * the loop, its batch (and slices) and the calls are delivered in FIFO order
 * until quiet, as the runtime's mailboxes do; what the world chooses is which
 * outside answer comes next (the model, a hook, a tool call's hook or tool, an abort).
 */
export function createLoopWorld(machines: LoopWorldMachines, input: Record<string, unknown>, options: LoopWorldOptions): LoopWorld {
  const { recorders, onTransitions } = machines;
  const hookOutcomes = { ...DEFAULT_HOOK_OUTCOMES, ...options.hookOutcomes };
  const abstractContext = options.abstractContext ?? defaultAbstractContext;
  const maxTurns = typeof input.maxTurns === "number" ? input.maxTurns : null;
  const concurrency = (input.toolPolicies as { concurrency?: Record<string, number> } | undefined)?.concurrency;
  const limits = {
    wrapUp: input.wrapUp !== undefined,
    budget: input.budget !== undefined,
    ...(concurrency !== undefined && Object.keys(concurrency).length > 0 ? { concurrency } : {}),
    ...(typeof input.maxParallelCalls === "number" ? { maxParallelCalls: input.maxParallelCalls } : {}),
  };
  const parentId = recorders.call.parent?.id;

  /**
   * The loop finds a call by its system id (approval decisions). The world's calls
   * are snapshots, not actors: each call id gets one stand-in ref, registered in the
   * loop's system, whose snapshot is the call's current one (none once it is gone).
   * What the loop sends it is delivered to the call like any event for it.
   */
  const standIns = standInsOf(recorders.loop.system);
  const registerStandIn = (id: string) => {
    if (standIns.refs.has(id)) return;
    const ref = { id, getSnapshot: () => standIns.live.find((call) => call.callId === id)?.snapshot } as unknown as AnyActorRef;
    standIns.refs.set(id, ref);
    // XState's own registration (what spawning with a system id does); the system has no public setter.
    (recorders.loop.system as unknown as { _set(systemId: string, ref: AnyActorRef): void })._set(callSystemId(id), ref);
  };

  /** Where a queued event goes: the loop, a batch (by key), or a call (by id). */
  type Delivery = { to: "loop" | { batch: string } | { call: string }; event: SentEvent };
  type Previous = Pick<LoopWorldState, "calls" | "batches" | "modelStarted" | "abandoned" | "monitor"> & { loop?: AnyMachineSnapshot };

  const run = (previous: Previous, first: Delivery | "init" | null, event?: WorldEvent): LoopWorldState => {
    const monitor: ProtocolMonitor = { ...previous.monitor };
    const violations: StepViolation[] = [];
    let calls = previous.calls.slice();
    let batches = previous.batches.slice();
    let modelStarted = previous.modelStarted;
    let loop = previous.loop as AnyMachineSnapshot;
    if (event) {
      observeWorld(monitor, event.fact);
      if (event.modelStarted !== undefined) modelStarted = event.modelStarted;
      if (event.emits) violations.push(...observeEmitted(monitor, event.emits));
    }
    const queue: Delivery[] = [];
    const threw = (what: string, step: RecordedStep) => {
      if (step.error !== undefined) {
        violations.push({ invariant: "I3", message: `${what} threw: ${step.error instanceof Error ? step.error.message : String(step.error)}` });
      }
    };
    /** Removes the batch `key` with every slice and call under it (it was stopped). */
    const removeBatch = (key: string) => {
      const gone = (candidate: string) => candidate === key || candidate.startsWith(`${key}/`);
      batches = batches.filter((batch) => !gone(batch.key));
      calls = calls.filter((call) => !gone(call.parent));
    };
    /** Where the parent of `parent` (a batch key, or the loop) receives events. */
    const parentOf = (key: string): Delivery["to"] => {
      const batch = batches.find((candidate) => candidate.key === key);
      return batch?.parent ? { batch: batch.parent } : "loop";
    };
    /** Queues an event for the child `id` of the batch `key`: a call or a slice. */
    const sendToChild = (key: string, id: string, sent: SentEvent) => {
      const call = calls.find((candidate) => candidate.parent === key && candidate.id === id);
      if (call) {
        violations.push(...observeSentToCall(monitor, call.callId, sent.type, call.name));
        queue.push({ to: { call: id }, event: sent });
        return;
      }
      if (batches.some((batch) => batch.key === `${key}/${id}`)) queue.push({ to: { batch: `${key}/${id}` }, event: sent });
    };
    const fromCall = (call: Pick<WorldCall, "parent">, actions: RecordedAction[]) => {
      for (const action of actions) {
        const emitted = emittedEvent(action);
        if (emitted) {
          violations.push(...observeEmitted(monitor, emitted as AgentEvent));
          continue;
        }
        const sent = sentEvent(action);
        if (!sent || sent.to !== parentId) continue;
        // A call rejected in preparation (also when it prepared synchronously, with no world step of its own).
        observeSentToBatch(monitor, sent.event);
        queue.push({ to: { batch: call.parent }, event: sent.event as SentEvent });
      }
    };
    const startCall = (parent: string, id: string, callInput: CallInput) => {
      // The id the batch registers the call under (its context's callIds, by position).
      const batchContext = batches.find((candidate) => candidate.key === parent)?.snapshot.context as { callIds?: string[]; layout?: { offset: number } } | undefined;
      const callId = batchContext?.callIds?.[callInput.index - (batchContext.layout?.offset ?? 0)] ?? callInput.toolCall.id;
      // A call spawned ready to go on from preparation to execution starts as one told to execute would.
      if (callInput.proceeds) violations.push(...observeSentToCall(monitor, callId, "call.execute", callInput.toolCall.name));
      const callStarted = recorders.call.initial(machines.call, callInput);
      onTransitions(callStarted.transitions, "call");
      const started = { id, callId, name: callInput.toolCall.name, index: callInput.index, parent, snapshot: callStarted.snapshot };
      calls.push(started);
      registerStandIn(callId);
      fromCall({ parent }, callStarted.actions);
      // Preparation that starts after the abort settles at once as aborted (the real prepareCall checks the signal first).
      const pending = pendingOf(started);
      if (monitor.aborted && pending?.src === "prepareCall") {
        queue.push({ to: { call: id }, event: { type: `xstate.done.actor.${pending.id}`, output: { settled: { result: result(ABORTED_MESSAGE, false), isError: true } } } });
      }
    };
    /** What a batch's step did beyond its own state; a batch that finished reports done to its parent. */
    const fromBatch = (key: string, step: RecordedStep) => {
      onTransitions(step.transitions, "batch");
      threw("a tool batch", step);
      batches = batches.map((batch) => (batch.key === key ? { ...batch, snapshot: step.snapshot } : batch));
      for (const action of step.actions) {
        const emitted = emittedEvent(action);
        if (emitted) {
          violations.push(...observeEmitted(monitor, emitted as AgentEvent));
          continue;
        }
        const spawned = spawnedChild(action);
        if (spawned) {
          if (spawned.src === "toolBatch") startBatch(`${key}/${spawned.id}`, spawned.id, key, spawned.input);
          else startCall(key, spawned.id, spawned.input as CallInput);
          continue;
        }
        const sent = sentEvent(action);
        if (sent && sent.to === parentId) {
          queue.push({ to: parentOf(key), event: sent.event as SentEvent });
          continue;
        }
        if (sent) {
          sendToChild(key, sent.to, sent.event as SentEvent);
          continue;
        }
        const stopped = stoppedChild(action);
        if (stopped !== undefined) {
          calls = calls.filter((call) => !(call.parent === key && call.id === stopped));
          removeBatch(`${key}/${stopped}`);
        }
      }
      if (step.snapshot.status === "done") {
        const batch = batches.find((candidate) => candidate.key === key);
        queue.push({ to: parentOf(key), event: { type: `xstate.done.actor.${batch?.id ?? key}`, output: step.snapshot.output } });
        // A finished machine stops its children.
        calls = calls.filter((call) => call.parent !== key);
        batches = batches.filter((candidate) => !candidate.key.startsWith(`${key}/`));
      }
    };
    const startBatch = (key: string, id: string, parent: string | null, batchInput: unknown) => {
      const withFanOut = options.batchFanOut !== undefined ? { ...(batchInput as object), fanOut: options.batchFanOut } : batchInput;
      const started = recorders.call.initial(machines.batch, withFanOut);
      batches.push({ key, id, parent, snapshot: started.snapshot });
      fromBatch(key, started);
    };
    const fromLoop = (step: RecordedStep) => {
      onTransitions(step.transitions, "loop");
      loop = step.snapshot;
      threw("the machine", step);
      for (const action of step.actions) {
        const emitted = emittedEvent(action);
        if (emitted) {
          violations.push(...observeEmitted(monitor, emitted as AgentEvent));
          continue;
        }
        const spawned = spawnedChild(action);
        if (spawned && spawned.src === "toolBatch") {
          startBatch(spawned.id, spawned.id, null, spawned.input);
          continue;
        }
        const sent = sentEvent(action);
        if (sent && sent.to === "requestModel" && sent.event.type === "run.abandon") {
          // The model request gives up on its stream at once and answers with an aborted response (as the real actor does).
          observeWorld(monitor, { response: { stopReason: "aborted", calls: [] } });
          queue.push({ to: "loop", event: { type: "model.done", message: failedResponse(STUB_MODEL, REQUEST_ABORTED_MESSAGE, "aborted"), started: modelStarted } });
          modelStarted = false;
          continue;
        }
        if (sent && batches.some((batch) => batch.key === sent.to)) {
          queue.push({ to: { batch: sent.to }, event: sent.event as SentEvent });
          continue;
        }
        // An approval decision (or call.preapprove) the loop sends to a call it found by its system id.
        const found = sent ? calls.find((call) => call.callId === sent.to) : undefined;
        if (sent && found) {
          queue.push({ to: { call: found.id }, event: sent.event as SentEvent });
          continue;
        }
        const stopped = stoppedChild(action);
        if (stopped !== undefined) removeBatch(stopped);
      }
    };
    const deliverToCall = (id: string, sent: SentEvent) => {
      const position = calls.findIndex((call) => call.id === id);
      const call = calls[position];
      if (!call || call.snapshot.status !== "active") return;
      const step = recorders.call.step(machines.call, call.snapshot, sent);
      onTransitions(step.transitions, "call");
      threw("a tool-call actor", step);
      const after = { ...call, snapshot: step.snapshot };
      calls[position] = after;
      fromCall(call, step.actions);
      // Preparation that starts after the abort settles at once as aborted (the real prepareCall checks the signal first).
      const pending = pendingOf(after);
      if (monitor.aborted && pending?.src === "prepareCall" && !("prepareCall" in (call.snapshot.children as object))) {
        queue.push({ to: { call: call.id }, event: { type: `xstate.done.actor.${pending.id}`, output: { settled: { result: result(ABORTED_MESSAGE, false), isError: true } } } });
      }
    };
    const deliverToBatch = (key: string, sent: SentEvent) => {
      const batch = batches.find((candidate) => candidate.key === key);
      if (!batch || batch.snapshot.status !== "active") return;
      fromBatch(key, recorders.call.step(machines.batch, batch.snapshot, sent));
    };

    if (first === "init") fromLoop(recorders.loop.initial(machines.loop, input));
    else if (first) queue.push(first);
    for (let delivered = 0; queue.length > 0; delivered++) {
      if (delivered > MAX_CASCADE) {
        violations.push({ invariant: "I3", message: `more than ${MAX_CASCADE} events cascade without the world acting (livelock)` });
        break;
      }
      const next = queue.shift() as Delivery;
      standIns.live = calls;
      if (next.to === "loop") {
        if (loop.status === "active") fromLoop(recorders.loop.step(machines.loop, loop, next.event));
      } else if ("batch" in next.to) deliverToBatch(next.to.batch, next.event);
      else deliverToCall(next.to.call, next.event);
    }
    if (loop.status === "error") violations.push({ invariant: "I3", message: `the machine failed: ${String(loop.error)}` });
    if (loop.status === "done" && !monitor.ended) violations.push({ invariant: "I4", message: "the run ended without agent_end" });
    if (loop.status !== "active") {
      batches = [];
      calls = [];
    }
    return {
      status: loop.status === "done" ? "done" : loop.status === "error" ? "error" : "active",
      output: undefined,
      error: undefined,
      loop,
      batches,
      calls,
      modelStarted,
      abandoned: previous.abandoned || event?.abandons === true,
      monitor,
      violations,
    };
  };

  const initial = run({ calls: [], batches: [], modelStarted: false, abandoned: false, monitor: createMonitor(maxTurns, limits) }, "init");

  const ABORT: WorldEvent = { type: "run.abort", send: { type: "run.abort" }, fact: { abort: true } };
  const ABANDON: WorldEvent = { type: "abort grace period ends", send: { type: "run.abandon" }, abandons: true };

  /** What the loop and its calls still wait on, for the message of a run that never ends. */
  const waitingOn = (state: LoopWorldState): string => {
    const sources = (children: object) => Object.values(children as Record<string, { src?: unknown }>).flatMap((child) => (typeof child?.src === "string" ? [child.src] : []));
    const all = [...sources(state.loop.children as object), ...state.batches.flatMap((batch) => sources(batch.snapshot.children as object)), ...state.calls.flatMap((call) => (call.snapshot.status === "active" ? sources(call.snapshot.children as object) : []))];
    return [...new Set(all.filter((src) => src !== "toolCall" && src !== "toolBatch"))].join(", ") || "nothing the world can answer";
  };

  /** The actor a call waits on (prepareCall, executeTool, afterToolCall) and its child id, if any. */
  const pendingOf = (call: WorldCall): { id: string; src: string } | undefined => {
    if (call.snapshot.status !== "active") return undefined;
    for (const [id, child] of Object.entries(call.snapshot.children as Record<string, { src?: unknown }>)) {
      if (typeof child?.src === "string") return { id, src: child.src };
    }
    return undefined;
  };

  /**
   * Nothing pending ever settles again: the abort comes (if it has not), then its
   * grace period ends (if it has not), and the run must then be done. Work that
   * runs no user function still settles as it does at run time: preparation without
   * `beforeToolCall` (synchronous), preparation or execution that starts after the
   * abort (it settles at once as aborted), and the model request told to give up.
   */
  const hang = (state: LoopWorldState): LoopWorldState => {
    const hungBefore = new Set(
      state.calls.flatMap((call) => {
        const pending = pendingOf(call);
        const hooked = (call.snapshot.context as ToolCallContext).hooks?.beforeToolCall === true;
        return pending && (pending.src !== "prepareCall" || hooked) ? [call.id] : [];
      }),
    );
    let at = state;
    const settleWhatRunsNoUserCode = () => {
      for (let settled = true; settled && at.status === "active" && at.violations.length === 0; ) {
        settled = false;
        for (const call of at.calls) {
          const pending = pendingOf(call);
          if (!pending || hungBefore.has(call.id)) continue;
          const context = call.snapshot.context as ToolCallContext;
          let output: unknown;
          if (pending.src === "prepareCall" && !at.monitor.aborted) {
            output = marksInvalid(context) ? { settled: { result: result(SETTLE_TEXT.invalid, false), isError: true, rejected: "invalidArguments" } } : { args: context.toolCall.arguments };
          } else if (pending.src === "prepareCall") output = { settled: { result: result(ABORTED_MESSAGE, false), isError: true } };
          else if (pending.src === "executeTool") output = { result: result(ABORTED_MESSAGE, false), isError: true };
          else continue;
          at = run(at, { to: { call: call.id }, event: { type: `xstate.done.actor.${pending.id}`, output } });
          settled = true;
          break;
        }
      }
    };
    settleWhatRunsNoUserCode();
    for (const step of [at.monitor.aborted ? undefined : ABORT, at.abandoned ? undefined : ABANDON]) {
      if (!step || at.status !== "active" || at.violations.length > 0) continue;
      at = run(at, { to: "loop", event: step.send as SentEvent }, step);
      settleWhatRunsNoUserCode();
    }
    if (at.status !== "active" || at.violations.length > 0) return at;
    const stuck: StepViolation = {
      invariant: "I3",
      message: `the run never ends when what it awaits never settles: after the abort and its grace period it still waits on ${waitingOn(at)} (in ${JSON.stringify(at.loop.value)})`,
    };
    return { ...at, violations: [stuck] };
  };

  const modelEvents = (state: LoopWorldState, withoutTools: boolean): WorldEvent[] => {
    const events: WorldEvent[] = [];
    if (!state.modelStarted) {
      // A streamed response: the requestModel actor emits message_start to the sink itself.
      const partial = response("stop", [], false);
      events.push({ type: "model streams (message_start)", emits: { type: "message_start", message: partial }, modelStarted: true });
    }
    const turn = state.monitor.turns;
    const callsOf = (count: number, options: { serial?: boolean; invalid?: number; asks?: number } = {}): ToolCall[] =>
      Array.from({ length: count }, (_, index) => ({
        type: "toolCall",
        id: `call-${turn}.${index + 1}`,
        name: options.serial && index === 0 ? SERIAL_TOOL : TOOL,
        arguments: {
          n: index + 1,
          ...(options.invalid === index + 1 ? { [INVALID_FLAG]: true } : {}),
          ...(options.asks === index + 1 ? { [ASKS_FLAG]: true } : {}),
        },
      }));
    const plural = (count: number) => `${count} call${count > 1 ? "s" : ""}`;
    const done = (label: string, message: AssistantMessage): WorldEvent => ({
      type: `model.done(${label})`,
      send: { type: "model.done", message, started: state.modelStarted },
      modelStarted: false,
      fact: {
        response: {
          stopReason: message.stopReason,
          calls: message.content.flatMap((block) => (block.type === "toolCall" ? [block.id] : [])),
          withoutTools,
        },
      },
    });
    events.push(done("text", response("stop", [], true)));
    for (let count = 1; count <= options.maxCalls; count++) {
      events.push(done(plural(count), response("toolUse", callsOf(count), false)));
    }
    // One call that fails preparation (unknown tool or invalid arguments): first of a batch, and last of the largest.
    events.push(done(`${plural(Math.min(2, options.maxCalls))}, call 1 invalid`, response("toolUse", callsOf(Math.min(2, options.maxCalls), { invalid: 1 }), false)));
    if (options.maxCalls >= 2) {
      events.push(done(`${plural(options.maxCalls)}, call ${options.maxCalls} invalid`, response("toolUse", callsOf(options.maxCalls, { invalid: options.maxCalls }), false)));
    }
    const serialCount = Math.min(2, options.maxCalls);
    events.push(done(`${plural(serialCount)}, first to ${SERIAL_TOOL}`, response("toolUse", callsOf(serialCount, { serial: true }), false)));
    for (let count = 1; count <= Math.min(2, options.maxCalls); count++) {
      events.push(done(`length, ${plural(count)}`, response("length", callsOf(count), true)));
    }
    events.push(done("length, text only", response("length", [], true)));
    // A call to a tool whose needsApproval is `true`: its synchronous preparation asks.
    if (options.approvals) events.push(done(`${plural(Math.min(2, options.maxCalls))}, call 1 needs approval`, response("toolUse", callsOf(Math.min(2, options.maxCalls), { asks: 1 }), false)));
    events.push(done("error", response("error", [], false)));
    events.push(done("aborted", response("aborted", [], false)));
    // Malformed final events, turned into the response the requestModel actor sends (finalResponse):
    // an invalid done event after a streamed call (the turn fails, keeping what streamed; the call gets no result),
    // an error event carrying an Error instance, and calls whose ids are missing or repeated (repaired, one result each).
    const end = (value: unknown, eventType: "done" | "error", partial?: AssistantMessage) =>
      finalResponse({ value, eventType, partial, model: STUB_MODEL, assignToolCallId: (index) => `call-${turn}.${index + 1}` });
    const streamedCall = state.modelStarted ? response("toolUse", callsOf(1), true) : undefined;
    events.push(done("invalid done event", end(undefined, "done", streamedCall)));
    events.push(done("invalid error event", end(new Error("socket hang up"), "error")));
    if (options.maxCalls >= 2) {
      const [first, second] = callsOf(2);
      const { id: _missing, ...withoutId } = first as ToolCall;
      const raw = { ...response("toolUse", [], false), content: [withoutId, { ...second, id: (first as ToolCall).id }] };
      events.push(done("2 calls, ids missing and repeated", end(raw, "done")));
    }
    return events;
  };

  const result = (textValue: string, terminate: boolean) => ({
    content: [{ type: "text", text: textValue }],
    details: {},
    ...(terminate ? { terminate: true } : {}),
  });

  /** Answers of the actor a tool-call actor is waiting on, by the actor's source name. */
  const callEvents = (call: WorldCall): WorldEvent[] => {
    if (call.snapshot.status !== "active") return [];
    const label = (text: string) => `call ${call.index + 1}: ${text}`;
    const events: WorldEvent[] = [];
    for (const [id, child] of Object.entries(call.snapshot.children as Record<string, { src?: unknown }>)) {
      const src = typeof child?.src === "string" ? child.src : "";
      const done = (text: string, output: unknown): WorldEvent => ({ type: label(text), call: call.id, send: { type: `xstate.done.actor.${id}`, output } });
      const fail = (text: string): WorldEvent => ({ type: label(text), call: call.id, send: { type: `xstate.error.actor.${id}`, error: new Error(text) } });
      if (src === "executeTool") {
        // The tool runs in the call's executeTool actor; it never rejects (a throwing tool resolves to an error result).
        events.push(
          done("succeeds", { result: result(SETTLE_TEXT.ok, false), isError: false }),
          done("throws", { result: result(SETTLE_TEXT.throws, false), isError: true }),
          done("succeeds, terminate", { result: result(SETTLE_TEXT.ok, true), isError: false }),
          fail("the execute actor fails"),
        );
        // A tool with a retry policy may throw an error it marks retryable.
        if ((call.snapshot.context as ToolCallContext).policy?.retry) {
          events.push(done("throws, retryable", { result: result(SETTLE_TEXT.throws, false), isError: true, retryable: true }));
        }
      } else if (src === "prepareCall") {
        // Arguments the world marked invalid settle at once (what an unknown tool, invalid arguments
        // or an abort before preparing all become); with beforeToolCall the hook may block or throw.
        const context = call.snapshot.context as ToolCallContext;
        if (marksInvalid(context)) {
          events.push({
            ...done("invalid", { settled: { result: result(SETTLE_TEXT.invalid, false), isError: true, rejected: "invalidArguments" } }),
            fact: { invalidCall: true },
          });
        } else {
          events.push(done("prepared", { args: context.toolCall.arguments }));
          if (options.approvals) events.push(done("prepared, asks approval", { args: context.toolCall.arguments, approval: "ask" }));
          if (context.hooks?.beforeToolCall) {
            events.push(
              done("blocked", { settled: { result: result(SETTLE_TEXT.blocked, false), isError: true } }),
              done("blocked, terminate", { settled: { result: result(SETTLE_TEXT.blocked, true), isError: true } }),
              fail("the prepare actor fails"),
            );
          }
        }
      } else if (src === "afterToolCall") {
        const executed = (call.snapshot.context as { settled?: unknown }).settled;
        events.push(
          done("afterToolCall keeps", executed),
          done("afterToolCall overrides, terminate", { result: result("overridden", true), isError: false }),
          fail("afterToolCall throws"),
        );
      } else {
        events.push(done(`${src || id} done`, undefined), fail(`${src || id} throws`));
      }
    }
    // The call's delayed transitions (a tool's timeout, a retry's backoff): the timer may fire.
    for (const node of (call.snapshot as { _nodes?: { after?: { eventType: string }[] }[] })._nodes ?? []) {
      for (const delayed of node.after ?? []) {
        events.push({ type: label(`timer ${delayed.eventType.split(".")[2] ?? delayed.eventType} fires`), call: call.id, send: { type: delayed.eventType } });
      }
    }
    // A call waiting for a decision: the user answers through the loop, which finds the call by its system id.
    if (awaitsApproval(call.snapshot.value)) {
      const toolCallId = call.callId;
      events.push(
        { type: label("user approves"), send: { type: "tool.approve", toolCallId } },
        { type: label("user approves always"), send: { type: "tool.approve", toolCallId, always: true } },
        { type: label("user rejects"), send: { type: "tool.reject", toolCallId, reason: "no" } },
      );
    }
    return events;
  };

  const hookEvents = (id: string, src: string): WorldEvent[] => {
    const outcomes = hookOutcomes[src] ?? [{ label: "done", output: undefined }];
    return [
      ...outcomes.map((outcome): WorldEvent => ({
        type: `${src} → ${outcome.label}`,
        send: { type: `xstate.done.actor.${id}`, output: outcome.output },
        ...(outcome.fact ? { fact: outcome.fact } : {}),
      })),
      { type: `${src} throws`, send: { type: `xstate.error.actor.${id}`, error: new Error(`${src} failed`) }, fact: { hookFailed: true } },
    ];
  };

  return {
    initial,
    events(state) {
      if (state.status !== "active" || state.violations.length > 0) return [];
      const events: WorldEvent[] = [];
      for (const [id, child] of Object.entries(state.loop.children as Record<string, { src?: unknown }>)) {
        const src = typeof child?.src === "string" ? child.src : "";
        if (src === "requestModel") {
          // The run's model answers only the request of the current turn.
          // What the request declared is in the actor's input: the wrap-up request has no tools.
          const requestInput = (child as { options?: { input?: { withoutTools?: boolean } } }).options?.input;
          if (state.loop.value === "requesting") events.push(...modelEvents(state, requestInput?.withoutTools === true));
        }
        else if (OWN_SOURCES.has(src)) continue;
        else events.push(...hookEvents(id, src));
      }
      for (const call of state.calls) events.push(...callEvents(call));
      // Last, so that of two equally short counterexamples the one without an abort is reported.
      if (!state.monitor.aborted) events.push(ABORT);
      // After an abort, the grace period may run out (once) while the loop still waits on work that ignored it.
      else if (!state.abandoned) events.push(ABANDON);
      // Whatever is pending may never settle: then the abort and its grace period must end the run.
      events.push({ type: "what is pending never settles (abort, grace period ends)", hangs: true });
      return events;
    },
    next(state, event) {
      if (event.hangs) return hang(state);
      const first: Delivery | null = !event.send ? null : event.call === undefined ? { to: "loop", event: event.send } : { to: { call: event.call }, event: event.send };
      return run(state, first, event);
    },
    serialize(state) {
      // A finished run has no future: finished states differ only in what was found on the way in.
      if (state.status !== "active") return JSON.stringify([state.status, state.violations.map((violation) => `${violation.invariant} ${violation.message}`)]);
      return JSON.stringify([
        state.loop.value,
        state.status,
        abstractContext(state.loop.context),
        Object.keys(state.loop.children as object),
        state.batches.map((batch) => [batch.key, batch.snapshot.status, batch.snapshot.value, abstractBatch(batch.snapshot.context)]),
        state.calls.map((call) => [call.parent, call.snapshot.value, abstractCall(call.snapshot.context)]),
        state.modelStarted,
        state.abandoned,
        state.monitor,
        state.violations.length,
      ]);
    },
  };
}

/**
 * A tool-call actor's context without the call's payload: whether it has args, how
 * it settled, whether the world marked it invalid (else an invalid sample would be
 * the same state as a valid one, and never explored), and its retries.
 */
function abstractCall(context: unknown): unknown {
  const { settled, refusal, args, proceeds, approval, preapproved, attempt } = context as {
    settled?: { isError?: boolean; result?: { terminate?: boolean } };
    refusal?: string;
    args?: unknown;
    proceeds?: boolean;
    approval?: string;
    preapproved?: boolean;
    attempt?: number;
  };
  return [
    marksInvalid(context as ToolCallContext),
    refusal !== undefined,
    args !== undefined,
    proceeds === true,
    approval ?? null,
    preapproved === true,
    settled ? [settled.isError === true, settled.result?.terminate === true] : null,
    marksInvalid(context as ToolCallContext),
    attempt ?? 0,
  ];
}

/** A tool batch's context without the calls' payload: its progress and how each member settled. */
function abstractBatch(context: unknown): unknown {
  const { started, waiting, queue, settled, aborted, allTerminate, slots, ordered } = context as {
    started: number;
    waiting: number[];
    queue?: { queued: number[]; head: number; executing: Record<string, number> };
    settled: number;
    aborted: boolean;
    allTerminate: boolean;
    slots: ({ isError?: boolean }[] | null)[];
    ordered: { length: number };
  };
  return [
    started,
    waiting,
    settled,
    aborted,
    allTerminate,
    slots.map((slot) => (slot === null ? null : slot.map(resultKind))),
    ordered.length,
    ...(queue !== undefined ? [queue.queued.slice(queue.head), queue.executing] : []),
  ];
}

const resultKind = (result: { isError?: boolean } | null) => (result === null ? 0 : result.isError ? 1 : 2);

/** The default abstraction of `AgentLoopContext`: drops the transcript, keeps counters and flags. */
export function defaultAbstractContext(context: unknown): unknown {
  const {
    messages: _messages,
    newMessages: _newMessages,
    prompts: _prompts,
    systemPrompt: _systemPrompt,
    model: _model,
    assistant,
    pending,
    toolResults,
    refusal,
    errorMessage,
    ...rest
  } = context as Record<string, unknown>;
  const assistantMessage = assistant as AssistantMessage | undefined;
  return {
    ...rest,
    assistant: assistantMessage
      ? [assistantMessage.stopReason, assistantMessage.content.filter((block) => block.type === "toolCall").length]
      : null,
    pending: Array.isArray(pending) ? pending.length : pending,
    toolResults: Array.isArray(toolResults) ? toolResults.length : toolResults,
    errorMessage: errorMessage !== undefined,
    refusal: refusal !== undefined,
  };
}
