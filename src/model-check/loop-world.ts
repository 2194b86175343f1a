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
import type { AnyMachineSnapshot } from "xstate";
import type { AgentEvent, ToolCall } from "../types.js";
import {
  createMonitor,
  observeEmitted,
  observeSentToBatch,
  observeSentToCall,
  observeWorld,
  type ProtocolMonitor,
  type StepViolation,
} from "./protocol-monitor.js";
import { childrenSpawnedBy, emittedEvent, sentEvent, spawnedChild, stoppedChild, type RecordedAction, type RecordedStep } from "./record-step.js";
import { REQUEST_ABORTED_MESSAGE } from "../providers/assistant-stream.js";
import { failedResponse } from "../messages.js";
import { ABORTED_MESSAGE, toolCallsOf, type AgentLoopContext } from "../../machines/loop-context.js";
import { uniqueCallIds } from "../../machines/tool-batch-layout.js";
import { LOOP_PARENT, type LoopWorld, type LoopWorldMachines, type LoopWorldOptions, type LoopWorldState, type SentEvent, type WorldCall, type WorldEvent } from "./loop-world-types.js";
import { DEFAULT_HOOK_OUTCOMES, OWN_SOURCES, STUB_MODEL, callEvents, compactionEvents, hookEvents, modelEvents, pendingOf, result } from "./world-answers.js";
import { checkRequestContext } from "./request-context.js";
import { transcriptMessages, type Transcript } from "../../machines/transcript.js";
import { abstractBatch, abstractCall, defaultAbstractContext } from "./world-abstraction.js";
import { registerStandInCall, standInsOf } from "./world-stand-ins.js";
import { hangWorld } from "./world-hang.js";

export { LOOP_PARENT, type HookOutcome, type LoopWorld, type LoopWorldMachines, type LoopWorldOptions, type LoopWorldState, type SentEvent, type WorldBatch, type WorldCall, type WorldEvent } from "./loop-world-types.js";
export { SERIAL_TOOL, TOOL, baseLoopInput, sampleMessage, worldPrepareArguments } from "./world-answers.js";
export { defaultAbstractContext } from "./world-abstraction.js";

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
  const registerStandIn = (id: string) => registerStandInCall(recorders.loop.system, standIns, id);

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
        queue.push({ to: call.parent === LOOP_PARENT ? "loop" : { batch: call.parent }, event: sent.event as SentEvent });
      }
    };
    const startCall = (parent: string, id: string, callInput: CallInput) => {
      // The id the batch registers the call under (its context's callIds, by position); on the direct path, the id the batch would have given it.
      const batchContext = batches.find((candidate) => candidate.key === parent)?.snapshot.context as { callIds?: string[]; layout?: { offset: number } } | undefined;
      const callIds = parent === LOOP_PARENT ? uniqueCallIds(toolCallsOf((loop.context as AgentLoopContext).assistant)) : batchContext?.callIds;
      const callId = callIds?.[callInput.index - (batchContext?.layout?.offset ?? 0)] ?? callInput.toolCall.id;
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
    /**
     * What a batch's step did beyond its own state; a batch that finished reports done to its parent.
     * `spawnedFrom`: the children before the step, when they are not the batch's recorded snapshot's.
     */
    const fromBatch = (key: string, step: RecordedStep, spawnedFrom?: Record<string, unknown>) => {
      onTransitions(step.transitions, "batch");
      threw("a tool batch", step);
      const before: Record<string, unknown> = spawnedFrom ?? batches.find((batch) => batch.key === key)?.snapshot.children ?? {};
      batches = batches.map((batch) => (batch.key === key ? { ...batch, snapshot: step.snapshot } : batch));
      // Members spawned by an `assign` (the batch's `spawnAll`): new children of the step, in the order they were
      // spawned, but not those a `spawnChild` action of the step spawned (they are started with it, below).
      const byAction = new Set(step.actions.map((action) => spawnedChild(action)?.id).filter((id) => id !== undefined));
      for (const spawned of childrenSpawnedBy(before, step.snapshot.children)) {
        if (byAction.has(spawned.id)) continue;
        if (spawned.src === "toolBatch") startBatch(`${key}/${spawned.id}`, spawned.id, key, spawned.input);
        else startCall(key, spawned.id, spawned.input as CallInput);
      }
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
      // Every child of a starting batch is new.
      fromBatch(key, started, {});
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
        // The direct path: the loop spawns its calls itself.
        if (spawned && spawned.src === "toolCall") {
          startCall(LOOP_PARENT, spawned.id, spawned.input as CallInput);
          continue;
        }
        // I9: what the request carries pairs every call with exactly one result.
        if (spawned && spawned.src === "requestModel") {
          const requested = (spawned.input as { messages?: Transcript } | undefined)?.messages;
          if (requested) violations.push(...checkRequestContext(transcriptMessages(requested)));
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
        // An approval decision (or call.preapprove) the loop sends to a call it found by its system id, or the word for a call of the direct path.
        const found = sent ? calls.find((call) => call.callId === sent.to || (call.parent === LOOP_PARENT && call.id === sent.to)) : undefined;
        if (sent && found) {
          queue.push({ to: { call: found.id }, event: sent.event as SentEvent });
          continue;
        }
        const stopped = stoppedChild(action);
        if (stopped !== undefined) {
          calls = calls.filter((call) => !(call.parent === LOOP_PARENT && call.id === stopped));
          removeBatch(stopped);
        }
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

  const hang = (state: LoopWorldState): LoopWorldState => hangWorld(state, (at, delivery, event) => run(at, delivery as Delivery, event), ABORT, ABANDON);

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
          if (state.loop.matches({ requesting: "awaitingResponse" })) events.push(...modelEvents(state, requestInput?.withoutTools === true, options));
        }
        else if (src === "compactContext") events.push(...compactionEvents(id, state.loop.context as { messages: Transcript; systemPrompt: string }));
        else if (OWN_SOURCES.has(src)) continue;
        else events.push(...hookEvents(id, src, hookOutcomes));
      }
      for (const call of state.calls) events.push(...callEvents(call, options));
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
