/**
 * The loop as an XState actor: `createAgentLoopActor` for users who want the actor itself,
 * `provideRunActors`, and `runIntoSink`, which the pi-compatible façade (`agent-loop.ts`),
 * the `Agent` and the durable runs build on. Its declarations name XState's types, so it is
 * exported from `loopchart/xstate`, not from the main entry (a user who type-checks with
 * `skipLibCheck: false` loads XState's declarations only through that entry).
 */
import { createActor, type Actor, type ActorOptions, type AnyActorLogic, type InspectionEvent, type Snapshot } from "xstate";
import type { LoopInspector } from "./inspection/inspection-event.js";
import { agentLoopMachine, type AgentLoopOutput } from "../machines/agent-loop.machine.js";
import { transcriptMessages } from "../machines/transcript.js";
import { upgradeFlatChartSnapshot } from "./flat-chart-snapshot.js";
import { rearmDelaysOnStart } from "./rearm-delays.js";
import { createRequestModelActor } from "./actors/request-model.js";
import { createAfterToolCallActor, createExecuteToolActor, createPrepareArgumentsAction, createPrepareCallActor } from "./actors/tool-call-actors.js";
import { approvalToolNames, createTurnHookActors, sequentialToolNames } from "./actors/turn-hook-actors.js";
import { toolCallMachine } from "../machines/tool-call.machine.js";
import { linkSlices, toolBatchMachine } from "../machines/tool-batch.machine.js";
import { describeThrown } from "./describe-thrown.js";
import { readableInspector } from "./inspection/readable-inspection.js";
import { telemetryFor } from "./inspection/telemetry.js";
import { streamByModelApi } from "./providers/stream-by-api.js";
import { assertLoopInput, assertPrompts } from "./loop-input.js";
import { bindRun, createRunServices, listenerIn, LOOP_SYSTEM_ID, servicesIn, type RunServices, type ServicesSource } from "./run-environment.js";
import { heardBy, type ListenerSource } from "./heard-by.js";
import { policyInput } from "./tool-policies.js";
import { createInvalidCallHintActor } from "./actors/invalid-call-hint.js";
import { createCompactContextActor } from "./actors/compact-context.js";
import { compactionSettings } from "./compaction/compaction-settings.js";
import type {
  AgentContext,
  AgentEvent,
  AgentEventSink,
  AgentLoopConfig,
  AgentMessage,
  StreamFn,
} from "./types.js";

/** The actor type `createAgentLoopActor` returns. */
export type AgentLoopActor = Actor<typeof agentLoopMachine>;

/** Options of {@link createAgentLoopActor}. */
export interface CreateAgentLoopActorOptions {
  /** Prompts of a prompt run; omit (or pass []) for a continue run. */
  prompts?: AgentMessage[];
  context: AgentContext;
  config: AgentLoopConfig;
  /** Aborting it reaches the stream function, the hooks and every running tool. */
  signal?: AbortSignal;
  /** The stream function (pi-ai's `streamSimple` works unchanged). Default: `streamByModelApi`, which serves the model by its `api`. */
  streamFn?: StreamFn;
  /**
   * An XState inspector that sees every actor of the run (loop, each call, each invoked actor),
   * e.g. `createWebSocketInspector({ url }).inspect` from `@statelyai/inspect` pointed at
   * `loopchart inspect`. It receives readable events: every snapshot, event and action as plain
   * data with long strings truncated, functions dropped and secrets (API keys, `Authorization`
   * headers) redacted, and `actorRef.getSnapshot()` answering the same way
   * (`rawInspectionEvent(event)` gives the live XState event back). If it throws, the run goes
   * on unchanged, it is told nothing more, and a `LoopchartInspectorWarning` is emitted once.
   */
  inspect?: LoopInspector;
  /**
   * Receives every event of the run, in order: the loop's own and those its
   * actors emit (a call's `tool_execution_*`, the model request's
   * `message_start`/`message_update`). `actor.on(...)` on the loop sees only the
   * loop's own events.
   */
  onEvent?: (event: AgentEvent) => void;
  /**
   * A persisted snapshot (`actor.getPersistedSnapshot()`, possibly through
   * `JSON.stringify`/`JSON.parse`) to continue from instead of starting anew.
   * Pass the same context (tools) and config the run had. The restored run
   * re-invokes exactly the work that was in flight: a run restored in
   * `requesting` requests again; calls restored in `executing` run their tools
   * again; settled calls never run again. `prompts` are ignored. A snapshot the
   * flat chart of earlier loopchart versions wrote is restored with its state
   * mapped to the hierarchical chart's (`FLAT_STATE_PATHS`).
   */
  snapshot?: Snapshot<unknown>;
}

/** `machine` with the run actors provided, finding the services and the listener through the two sources. */
function provideActorsFrom(machine: typeof agentLoopMachine, servicesOf: ServicesSource, listenerOf: ListenerSource | undefined): typeof agentLoopMachine {
  const heard = <T extends AnyActorLogic>(logic: T): T => (listenerOf ? heardBy(logic, listenerOf) : logic);
  const actors = machine.implementations.actors as { toolBatch?: typeof toolBatchMachine };
  const batch = actors.toolBatch ?? toolBatchMachine;
  const calls = (batch.implementations.actors as { toolCall?: typeof toolCallMachine }).toolCall ?? toolCallMachine;
  const toolCall = heard(
    calls.provide({
      actors: {
        prepareCall: createPrepareCallActor(servicesOf),
        executeTool: heard(createExecuteToolActor(servicesOf)),
        afterToolCall: createAfterToolCallActor(servicesOf),
      },
      actions: { prepareArguments: createPrepareArgumentsAction(servicesOf) as never },
    }),
  );
  const toolBatch = linkSlices(batch.provide({ actors: { toolCall } }), heard);
  return machine.provide({
    actors: {
      requestModel: heard(createRequestModelActor(servicesOf)),
      ...createTurnHookActors(servicesOf),
      invalidCallHint: createInvalidCallHintActor(servicesOf),
      compactContext: createCompactContextActor(servicesOf),
      toolBatch,
      // The calls of the direct path (`dispatching.alone`): the batch's call machine, the same real actors.
      toolCall,
    },
  });
}

/**
 * `machine` (default: the shipped loop) with a run's real actors provided: the
 * model request, the turn hooks, and — inside the tool batch the machine
 * provides (and its slices), and for the direct path's calls — the
 * tool-call machine with its real actors, all
 * using `services`. With `onEvent`, every actor that emits run events hands them
 * to it ({@link heardBy}). This builds new machines; `createAgentLoopActor`
 * instead uses one machine provided once for every run.
 */
export function provideRunActors(
  services: RunServices,
  machine: typeof agentLoopMachine = agentLoopMachine,
  onEvent?: (event: AgentEvent) => void,
): typeof agentLoopMachine {
  return provideActorsFrom(machine, () => services, onEvent ? () => onEvent : undefined);
}

/**
 * The shipped loop with its run actors provided once, for every run: they find
 * the run's services and listener by the run's actor system ({@link bindRun}).
 * Providing costs ~0.7 ms (XState builds each machine's state tree anew), and a
 * new machine formats its transitions again on first use; one shared machine pays
 * that once per process instead of once per run.
 */
let sharedRunMachine: typeof agentLoopMachine | undefined;
export function runMachine(): typeof agentLoopMachine {
  sharedRunMachine ??= provideActorsFrom(agentLoopMachine, servicesIn, listenerIn);
  return sharedRunMachine;
}

/**
 * An inspector that passes each inspection event on, made readable. An inspector
 * that throws is a fault of the watcher, not of the run: the run goes on, the
 * inspector is told nothing more, and the throw is reported once as a process
 * warning (`LoopchartInspectorWarning`).
 */
function readableObserver(inspect: CreateAgentLoopActorOptions["inspect"]): ((event: InspectionEvent) => void) | undefined {
  if (!inspect) return undefined;
  const observe = readableInspector(typeof inspect === "function" ? inspect : (event: InspectionEvent) => inspect.next?.(event));
  let broken = false;
  return (event) => {
    if (broken) return;
    try {
      observe(event);
    } catch (error) {
      broken = true;
      process.emitWarning(`the inspect observer threw on ${event.type} and is told nothing more of this run: ${describeThrown(error)}`, {
        type: "LoopchartInspectorWarning",
      });
    }
  };
}

/**
 * Creates (does not start) the loop actor for one run, or for a run restored
 * from `snapshot`. Pass `onEvent` to receive every event of the run in order,
 * then call `actor.start()`. The actor's output is `{ exitReason, messages,
 * errorMessage? }`; `signal` aborting sends it `run.abort`. Its snapshots are
 * plain data that never change once taken; `getPersistedSnapshot()` round-trips
 * through JSON.
 *
 * Throws `LoopInputError`/`InvalidToolDefinitionError` synchronously on bad input.
 * The caller's `context.messages` array is never mutated.
 */
export function createAgentLoopActor(options: CreateAgentLoopActorOptions): AgentLoopActor {
  return createLoopActorOf(runMachine(), options);
}

/**
 * {@link createAgentLoopActor} with another machine: one derived from
 * {@link runMachine} with `provide` (its actors still find the run's services
 * and listener by the run's actor system), e.g. the stepped run's gated machine;
 * `clock`, given, schedules the chart's delayed transitions instead of the timers.
 */
export function createLoopActorOf(machine: typeof agentLoopMachine, options: CreateAgentLoopActorOptions, clock?: ActorOptions<typeof agentLoopMachine>["clock"]): AgentLoopActor {
  const { context, config, signal } = options;
  // Omitted means a continue run; anything else given (null, a string) must be prompts.
  const prompts = options.prompts === undefined ? [] : options.prompts;
  assertPrompts(prompts);
  assertLoopInput(context, config);
  const streamFn = requireStreamFn(options.streamFn);
  const services = createRunServices({ config, streamFn, signal, tools: context.tools });
  const inspect = readableObserver(options.inspect);
  const actor = createActor(machine, {
    systemId: LOOP_SYSTEM_ID,
    input: {
      systemPrompt: context.systemPrompt,
      messages: [...context.messages, ...prompts],
      prompts,
      model: config.model,
      thinkingLevel: config.thinkingLevel ?? config.reasoning ?? "off",
      toolExecution: config.toolExecution ?? "parallel",
      sequentialTools: sequentialToolNames(services),
      approvalTools: approvalToolNames(services),
      ...(config.maxTurns !== undefined ? { maxTurns: config.maxTurns } : {}),
      ...(config.abortGraceMs !== undefined ? { abortGraceMs: config.abortGraceMs } : {}),
      ...policyInput(config, context.tools),
      hooks: {
        beforeToolCall: typeof config.beforeToolCall === "function",
        afterToolCall: typeof config.afterToolCall === "function",
        steering: typeof config.getSteeringMessages === "function",
        followUp: typeof config.getFollowUpMessages === "function",
        shouldStopAfterTurn: typeof config.shouldStopAfterTurn === "function",
        prepareNextTurn: typeof config.prepareNextTurn === "function",
        prepareRequest: typeof config.prepareRequest === "function",
        finishTurn: typeof config.finishTurn === "function",
        needsApproval: (context.tools ?? []).some((tool) => typeof tool?.needsApproval === "function"),
      },
      ...(config.approvedTools !== undefined ? { approvedTools: [...config.approvedTools] } : {}),
      // Every call is registered under `toolCall:<id>`, where approval decisions find it.
      registersCalls: true,
      ...(config.compaction !== undefined ? { compaction: compactionSettings(config.compaction, config.model, config.maxTokens) } : {}),
    },
    // A snapshot the flat chart wrote (loopchart before the hierarchical chart) restores with its state mapped.
    ...(options.snapshot ? { snapshot: upgradeFlatChartSnapshot(options.snapshot) as never } : {}),
    ...(inspect ? { inspect } : {}),
    ...(clock ? { clock } : {}),
  });
  // A restored snapshot's delayed transitions (a tool's timeout, a retry's backoff) are not in it: armed again at start.
  if (options.snapshot) rearmDelaysOnStart(actor);
  // Bound before the actor starts: no actor of the run reads its services or emits before that.
  bindRun(actor.system, services, options.onEvent);
  if (options.onEvent) actor.on("*", options.onEvent as (emitted: unknown) => void);
  if (signal) {
    const onAbort = () => actor.send({ type: "run.abort" });
    if (signal.aborted) queueMicrotask(onAbort);
    else signal.addEventListener("abort", onAbort, { once: true });
    actor.subscribe({
      complete: () => signal.removeEventListener("abort", onAbort),
      error: () => signal.removeEventListener("abort", onAbort),
    });
  }
  return actor;
}

/** Starts the actor and resolves with its output. Never rejects for a loop fault: it ends the protocol instead. */
export function runActor(actor: AgentLoopActor, deliver: (event: AgentEvent) => void): Promise<AgentLoopOutput> {
  return new Promise((resolve) => {
    let ended = false;
    actor.on("agent_end", () => {
      ended = true;
    });
    actor.subscribe({
      complete: () => resolve(actor.getSnapshot().output as AgentLoopOutput),
      error: (error: unknown) => {
        // A fault in the loop itself: end the protocol cleanly instead of leaving the caller hanging.
        const messages = transcriptMessages(actor.getSnapshot().context.newMessages);
        const errorMessage = `loopchart internal error: ${error instanceof Error ? error.message : String(error)}`;
        if (!ended) deliver({ type: "agent_end", messages, exitReason: "error", errorMessage });
        resolve({ exitReason: "error", messages, errorMessage });
      },
    });
    actor.start();
  });
}

/** The given stream function, or the built-in one that serves the model by its `api` (as pi falls back to `streamSimple`). */
function requireStreamFn(streamFn: StreamFn | undefined): StreamFn {
  if (streamFn !== undefined && typeof streamFn !== "function") {
    throw new TypeError("streamFn must be a function (model, context, options) => stream, e.g. pi-ai's streamSimple");
  }
  return streamFn ?? streamByModelApi;
}

/** Orders calls to a possibly-async sink: each event waits for the previous call's promise. */
function orderedSink(sink: AgentEventSink): { deliver: (event: AgentEvent) => void; drained: () => Promise<void> } {
  let tail: Promise<void> | undefined;
  let failure: { error: unknown } | undefined;
  const call = (event: AgentEvent): void | Promise<void> => {
    try {
      return sink(event);
    } catch (error) {
      failure ??= { error };
    }
  };
  return {
    deliver: (event) => {
      if (tail) {
        tail = tail.then(() => call(event));
        return;
      }
      const returned = call(event);
      if (returned && typeof (returned as Promise<void>).then === "function") {
        tail = (returned as Promise<void>).catch((error: unknown) => {
          failure ??= { error };
        });
      }
    },
    drained: async () => {
      await tail;
      if (failure) throw failure.error;
    },
  };
}

/**
 * Runs one loop actor (a fresh run, or one restored from `options.snapshot`) to the
 * end, delivering events to an ordered sink; resolves with the new messages once the
 * sink settled. The actor is created and started synchronously, before the first
 * `await`; `onActor` receives it before it starts (the `Agent` keeps it to send
 * approval decisions).
 */
export async function runIntoSink(
  options: Omit<CreateAgentLoopActorOptions, "onEvent">,
  emit: AgentEventSink,
  onActor?: (actor: AgentLoopActor) => void,
): Promise<AgentMessage[]> {
  const telemetry = telemetryFor(options.config);
  const sink = orderedSink(telemetry ? (event) => (telemetry(event), emit(event)) : emit);
  const inspect = options.inspect ?? options.config.inspect;
  const actor = createAgentLoopActor({ ...options, ...(inspect ? { inspect } : {}), onEvent: sink.deliver });
  onActor?.(actor);
  const output = await runActor(actor, sink.deliver);
  await sink.drained();
  return output.messages;
}
