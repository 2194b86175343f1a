/**
 * The abstract world around the loop machine: what the model, the tools, the
 * hooks and the user can do next, as explicit events. A world state pairs the
 * loop's real snapshot with the real snapshot of each tool-call actor it spawned
 * (their own actors — prepare, execute, finalize — are inert stand-ins whose
 * answers are world events), whether the model stream has started, and the
 * invariant monitor.
 */
import type { AnyMachineSnapshot, AnyStateMachine, AnyTransitionDefinition, EventObject } from "xstate";
import type { AgentMessage, AssistantMessage, Model, StopReason, ToolCall } from "../types.js";
import {
  createMonitor,
  observeEmitted,
  observeSentToCall,
  observeWorld,
  type ProtocolMonitor,
  type StepViolation,
  type WorldFact,
} from "./protocol-monitor.js";
import { emittedEvent, PARENT_ID, sentEvent, spawnedChild, stoppedChild, type StepRecorder } from "./record-step.js";
import type { AgentEvent } from "../types.js";

/** One tool-call actor of the current batch: the real tool-call machine's snapshot. */
export interface WorldCall {
  id: string;
  name: string;
  index: number;
  snapshot: AnyMachineSnapshot;
  stopped: boolean;
}

/** A state of the product of the loop, its tool-call actors and the world. */
export interface LoopWorldState {
  status: "active" | "done" | "error";
  output: undefined;
  error: undefined;
  loop: AnyMachineSnapshot;
  calls: WorldCall[];
  modelStarted: boolean;
  monitor: ProtocolMonitor;
  /** Violations found on the step that produced this state. */
  violations: StepViolation[];
}

/** One thing the world does; `type` is its readable label. */
export interface WorldEvent extends EventObject {
  /** The event delivered, to the loop or (with `call`) to a tool-call actor. */
  send: SentEvent;
  /** Index of the tool-call actor that receives `send`. */
  call?: number;
  modelStarted?: boolean;
  fact?: WorldFact;
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
}

/** Name of the tool that declares sequential execution in sample batches. */
export const SERIAL_TOOL = "serialTool";
const TOOL = "tool";

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
    usage: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, totalTokens: 0, cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0 } },
    stopReason,
    ...(stopReason === "error" || stopReason === "aborted" ? { errorMessage: `response ${stopReason}` } : {}),
    timestamp: 0,
  };
}

const SETTLE_TEXT = {
  ok: "done",
  throws: "the tool threw",
  failed: "Tool tool not found",
  blocked: "Tool execution was blocked",
} as const;

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
  prepareNextTurn: [{ label: "no change", output: undefined }],
};

/** The world: initial state, events, and the step of the product. */
export interface LoopWorld {
  initial: LoopWorldState;
  events(state: LoopWorldState): WorldEvent[];
  next(state: LoopWorldState, event: WorldEvent): LoopWorldState;
  serialize(state: LoopWorldState): string;
}

/** Cap on the events one world step may cascade into (a larger cascade is reported as a livelock). */
export const MAX_CASCADE = 10_000;

/**
 * Builds the world for `machine` (stand-in actors provided) starting from
 * `input`. Tool-call actors are `callMachine` snapshots: the loop's events to
 * them and theirs to the loop are delivered in FIFO order until quiet, as the
 * runtime's mailboxes do; what the world chooses is which outside answer comes
 * next (the model, a hook, a tool's prepare/execute/finalize actor, an abort).
 */
export function createLoopWorld(
  machine: AnyStateMachine,
  callMachine: AnyStateMachine,
  input: Record<string, unknown>,
  options: LoopWorldOptions,
  recorders: { loop: StepRecorder; call: StepRecorder },
  onTransitions: (taken: AnyTransitionDefinition[], of: "loop" | "call") => void,
): LoopWorld {
  const hookOutcomes = { ...DEFAULT_HOOK_OUTCOMES, ...options.hookOutcomes };
  const abstractContext = options.abstractContext ?? defaultAbstractContext;
  const maxTurns = typeof input.maxTurns === "number" ? input.maxTurns : null;

  type Delivery = { to: "loop" | number; event: SentEvent };

  const run = (previous: Pick<LoopWorldState, "calls" | "modelStarted" | "monitor"> & { loop?: AnyMachineSnapshot }, first: Delivery | "init", event?: WorldEvent): LoopWorldState => {
    const monitor: ProtocolMonitor = { ...previous.monitor };
    const violations: StepViolation[] = [];
    let calls = previous.calls.slice();
    let modelStarted = previous.modelStarted;
    let loop = previous.loop as AnyMachineSnapshot;
    if (event) {
      observeWorld(monitor, event.fact);
      if (event.modelStarted !== undefined) modelStarted = event.modelStarted;
    }
    const queue: Delivery[] = [];
    const fromCall = (call: WorldCall, actions: ReturnType<StepRecorder["step"]>["actions"]) => {
      for (const action of actions) {
        const sent = sentEvent(action);
        if (sent && sent.to === PARENT_ID) queue.push({ to: "loop", event: sent.event as SentEvent });
      }
      if (call.snapshot.status === "done") {
        queue.push({ to: "loop", event: { type: `xstate.done.actor.${call.id}`, actorId: call.id, output: call.snapshot.output } });
      }
    };
    const fromLoop = (step: ReturnType<StepRecorder["step"]>) => {
      onTransitions(step.transitions, "loop");
      loop = step.snapshot;
      if (step.error !== undefined) {
        violations.push({ invariant: "I3", message: `the machine threw: ${step.error instanceof Error ? step.error.message : String(step.error)}` });
      }
      for (const action of step.actions) {
        const emitted = emittedEvent(action);
        if (emitted) {
          violations.push(...observeEmitted(monitor, emitted as AgentEvent));
          continue;
        }
        const spawned = spawnedChild(action);
        const callInput = spawned?.input as { toolCall?: ToolCall; index?: number } | undefined;
        if (spawned && callInput?.toolCall && typeof callInput.index === "number") {
          if (callInput.index === 0) calls = [];
          const started = recorders.call.initial(callMachine, spawned.input);
          onTransitions(started.transitions, "call");
          const call: WorldCall = { id: spawned.id, name: callInput.toolCall.name, index: callInput.index, snapshot: started.snapshot, stopped: false };
          calls[callInput.index] = call;
          fromCall(call, started.actions);
          continue;
        }
        const sent = sentEvent(action);
        const target = sent ? calls.findIndex((call) => call?.id === sent.to) : -1;
        if (sent && target >= 0) {
          violations.push(...observeSentToCall(monitor, sent.to, sent.event.type));
          queue.push({ to: target, event: sent.event as SentEvent });
          continue;
        }
        const stopped = stoppedChild(action);
        const stoppedIndex = stopped ? calls.findIndex((call) => call?.id === stopped) : -1;
        if (stoppedIndex >= 0) calls[stoppedIndex] = { ...(calls[stoppedIndex] as WorldCall), stopped: true };
      }
    };
    const deliverToCall = (index: number, sent: SentEvent) => {
      const call = calls[index];
      if (!call || call.stopped || call.snapshot.status !== "active") return;
      const step = recorders.call.step(callMachine, call.snapshot, sent);
      onTransitions(step.transitions, "call");
      if (step.error !== undefined) violations.push({ invariant: "I3", message: `a tool-call actor threw: ${String(step.error)}` });
      const next = { ...call, snapshot: step.snapshot };
      calls[index] = next;
      fromCall(next, step.actions);
    };

    if (first === "init") fromLoop(recorders.loop.initial(machine, input));
    else queue.push(first);
    for (let delivered = 0; queue.length > 0; delivered++) {
      if (delivered > MAX_CASCADE) {
        violations.push({ invariant: "I3", message: `more than ${MAX_CASCADE} events cascade without the world acting (livelock)` });
        break;
      }
      const next = queue.shift() as Delivery;
      if (next.to === "loop") {
        if (loop.status === "active") fromLoop(recorders.loop.step(machine, loop, next.event));
      } else deliverToCall(next.to, next.event);
    }
    if (loop.status === "error") violations.push({ invariant: "I3", message: `the machine failed: ${String(loop.error)}` });
    if (loop.status === "done" && !monitor.ended) violations.push({ invariant: "I4", message: "the run ended without agent_end" });
    if (monitor.ended) calls = [];
    return {
      status: loop.status === "done" ? "done" : loop.status === "error" ? "error" : "active",
      output: undefined,
      error: undefined,
      loop,
      calls,
      modelStarted,
      monitor,
      violations,
    };
  };

  const initial = run({ calls: [], modelStarted: false, monitor: createMonitor(maxTurns) }, "init");

  const modelEvents = (state: LoopWorldState): WorldEvent[] => {
    const events: WorldEvent[] = [];
    const partial = response("stop", [], false);
    // Streaming events exist only on machines that handle them (newer machines stream past the chart).
    if (!state.modelStarted && state.loop.can({ type: "model.start", partial })) {
      events.push({ type: "model.start", send: { type: "model.start", partial }, modelStarted: true });
    } else if (state.modelStarted) {
      events.push({ type: "model.update", send: { type: "model.update", partial, streamEvent: { type: "text_start", contentIndex: 0, partial } } });
    }
    const turn = state.monitor.turns;
    const callsOf = (count: number, serial: boolean): ToolCall[] =>
      Array.from({ length: count }, (_, index) => ({
        type: "toolCall",
        id: `call-${turn}.${index + 1}`,
        name: serial && index === 0 ? SERIAL_TOOL : TOOL,
        arguments: { n: index + 1 },
      }));
    const done = (label: string, message: AssistantMessage): WorldEvent => ({
      type: `model.done(${label})`,
      send: { type: "model.done", message, started: state.modelStarted },
      modelStarted: false,
      fact: {
        response: {
          stopReason: message.stopReason,
          calls: message.content.flatMap((block) => (block.type === "toolCall" ? [block.id] : [])),
        },
      },
    });
    events.push(done("text", response("stop", [], true)));
    for (let count = 1; count <= options.maxCalls; count++) {
      events.push(done(`${count} call${count > 1 ? "s" : ""}`, response("toolUse", callsOf(count, false), false)));
    }
    const serialCount = Math.min(2, options.maxCalls);
    events.push(done(`${serialCount} calls, first to ${SERIAL_TOOL}`.replace("1 calls", "1 call"), response("toolUse", callsOf(serialCount, true), false)));
    for (let count = 1; count <= Math.min(2, options.maxCalls); count++) {
      events.push(done(`length, ${count} call${count > 1 ? "s" : ""}`, response("length", callsOf(count, false), true)));
    }
    events.push(done("length, text only", response("length", [], true)));
    events.push(done("error", response("error", [], false)));
    events.push(done("aborted", response("aborted", [], false)));
    return events;
  };

  const result = (textValue: string, terminate: boolean) => ({
    content: [{ type: "text", text: textValue }],
    details: {},
    ...(terminate ? { terminate: true } : {}),
  });

  /** Answers of the actor a tool-call actor is waiting on, by the actor's source name. */
  const callEvents = (call: WorldCall): WorldEvent[] => {
    if (call.stopped || call.snapshot.status !== "active") return [];
    const label = (text: string) => `call ${call.index + 1}: ${text}`;
    const events: WorldEvent[] = [];
    for (const [id, child] of Object.entries(call.snapshot.children as Record<string, { src?: unknown }>)) {
      const src = typeof child?.src === "string" ? child.src : "";
      const done = (text: string, output: unknown): WorldEvent => ({ type: label(text), call: call.index, send: { type: `xstate.done.actor.${id}`, output } });
      const fail = (text: string): WorldEvent => ({ type: label(text), call: call.index, send: { type: `xstate.error.actor.${id}`, error: new Error(text) } });
      const immediate = (text: string, terminate = false) => ({ kind: "immediate", result: result(text, terminate), isError: true });
      if (src === "prepareToolCall") {
        events.push(
          done("prepared", { kind: "prepared", args: call.index }),
          // Unknown tool, invalid arguments, blocked and aborted are one answer to the
          // machines (an immediate error result); one event stands for all four.
          done("error result (unknown tool | invalid arguments | blocked | aborted)", immediate(SETTLE_TEXT.failed)),
          done("blocked, terminate", immediate(SETTLE_TEXT.blocked, true)),
          fail("prepare throws"),
        );
      } else if (src === "beforeToolCall") {
        events.push(
          done("beforeToolCall allows", undefined),
          done("blocked", { block: true }),
          done("blocked, terminate", { block: true, terminate: true }),
          fail("beforeToolCall throws"),
        );
      } else if (src === "executeTool") {
        const send = (text: string, sent: SentEvent): WorldEvent => ({ type: label(text), call: call.index, send: sent });
        const update: SentEvent = { type: "execute.update", partialResult: result("partial", false) };
        if (call.snapshot.can(update)) events.push(send("update", update));
        events.push(
          send("succeeds", { type: "execute.done", result: result(SETTLE_TEXT.ok, false), isError: false }),
          send("throws", { type: "execute.done", result: result(SETTLE_TEXT.throws, false), isError: true }),
          send("succeeds, terminate", { type: "execute.done", result: result(SETTLE_TEXT.ok, true), isError: false }),
        );
      } else if (src === "finalizeToolCall" || src === "afterToolCall") {
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
      if (!state.monitor.aborted) events.push({ type: "run.abort", send: { type: "run.abort" }, fact: { abort: true } });
      for (const [id, child] of Object.entries(state.loop.children as Record<string, { src?: unknown }>)) {
        const src = typeof child?.src === "string" ? child.src : "";
        if (src === "requestModel") events.push(...modelEvents(state));
        else if (state.calls.some((call) => call?.id === id)) continue;
        else if (src !== "toolCall") events.push(...hookEvents(id, src));
      }
      for (const call of state.calls) if (call) events.push(...callEvents(call));
      return events;
    },
    next(state, event) {
      return run(state, event.call === undefined ? { to: "loop", event: event.send } : { to: event.call, event: event.send }, event);
    },
    serialize(state) {
      return JSON.stringify([
        state.loop.value,
        state.status,
        abstractContext(state.loop.context),
        Object.keys(state.loop.children as object),
        state.calls.map((call) => (call ? [call.snapshot.value, call.stopped, abstractCall(call.snapshot.context)] : null)),
        state.modelStarted,
        state.monitor,
        state.violations.length,
      ]);
    },
  };
}

/** A tool-call actor's context without the call's payload: whether it has args and how it settled. */
function abstractCall(context: unknown): unknown {
  const { settled, refusal, args } = context as { settled?: { isError?: boolean; result?: { terminate?: boolean } }; refusal?: string; args?: unknown };
  return [refusal !== undefined, args !== undefined, settled ? [settled.isError === true, settled.result?.terminate === true] : null];
}

const resultKind = (result: { isError?: boolean } | null) => (result === null ? 0 : result.isError ? 1 : 2);

/** The default abstraction of `AgentLoopContext`: drops the transcript, keeps counters, flags and batch progress. */
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
    batch,
    errorMessage,
    ...rest
  } = context as Record<string, unknown>;
  const assistantMessage = assistant as AssistantMessage | undefined;
  const toolBatch = batch as
    | { calls: unknown[]; results: ({ isError?: boolean } | null)[]; actorIds: unknown; refusal?: string; [key: string]: unknown }
    | undefined;
  return {
    ...rest,
    assistant: assistantMessage
      ? [assistantMessage.stopReason, assistantMessage.content.filter((block) => block.type === "toolCall").length]
      : null,
    pending: Array.isArray(pending) ? pending.length : pending,
    toolResults: Array.isArray(toolResults) ? toolResults.length : toolResults,
    errorMessage: errorMessage !== undefined,
    batch: toolBatch
      ? {
          ...toolBatch,
          calls: toolBatch.calls.length,
          actorIds: undefined,
          refusal: toolBatch.refusal !== undefined,
          results: toolBatch.results.map(resultKind),
        }
      : null,
  };
}
