/**
 * The services of one run: what the chart's named actors need and a snapshot
 * cannot hold — the configuration with its hook functions, the tools, the stream
 * function and the abort signal. Provided once per run and only read; the chart's
 * data (transcript, assistant message, batch) reaches the actors as their input,
 * never through these. Nothing here is persisted: a restored
 * run is given fresh services.
 */
import type { AnyActorRef } from "xstate";
import type { CallHookScope } from "../machines/events.js";
import type { AgentContext, AgentEvent, AgentLoopConfig, AgentTool, StreamFn, Tool } from "./types.js";
import { toJsonSchema } from "./validation.js";
import { transcriptMessages } from "../machines/transcript.js";

/** System id of a run's loop actor: the actors read the loop's current snapshot through it. */
export const LOOP_SYSTEM_ID = "agentLoop";

/** The per-run services the actors use. */
export interface RunServices {
  readonly config: AgentLoopConfig;
  readonly streamFn: StreamFn;
  readonly signal: AbortSignal | undefined;
  /** The tool named `name` of the current tool list. */
  tool(name: string): AgentTool | undefined;
  /** The current tool list as given (for hook contexts). */
  tools(): AgentTool[] | undefined;
  /** The tool declarations sent to the model (JSON Schema parameters). */
  declaredTools(): Tool[] | undefined;
  /** Replaces the tool list, when `prepareNextTurn` swaps the context. */
  useTools(tools: AgentTool[] | undefined): void;
  /**
   * Calls `listener` with the reason when the run's signal aborts (at once if it
   * has; never without a signal); returns what detaches it. One listener on the
   * signal serves them all, so a wide parallel batch does not trip Node's
   * listener-leak warning, and it is removed once none is left, so a signal
   * shared by many runs keeps nothing of a finished one.
   */
  onAbort(listener: (reason: unknown) => void): () => void;
  /**
   * {@link onAbort} for a controller, with nothing made per call: `controller`
   * is aborted with the run's reason when the run's signal aborts (at once if it
   * has; never without a signal), until {@link releaseFromRun} detaches it.
   */
  abortWithRun(controller: AbortController): void;
  /** Detaches a controller given to {@link abortWithRun}; the run's abort no longer reaches it. */
  releaseFromRun(controller: AbortController): void;
}

const noDetach = (): void => undefined;

/** Builds the services of a run for a tool list. */
export function createRunServices(options: {
  config: AgentLoopConfig;
  streamFn: StreamFn;
  signal: AbortSignal | undefined;
  tools: AgentTool[] | undefined;
}): RunServices {
  let tools: AgentTool[] | undefined;
  let byName = new Map<string, AgentTool>();
  let declared: Tool[] | undefined;
  const useTools = (next: AgentTool[] | undefined) => {
    tools = next;
    byName = new Map((next ?? []).map((tool) => [tool.name, tool]));
    declared = next?.map((tool) => ({ name: tool.name, description: tool.description, parameters: toJsonSchema(tool.parameters) }));
  };
  useTools(options.tools);
  const { signal } = options;
  // Listeners (and controllers) of the tools running now, in the order they came; the one listener on the signal is
  // there only while some are.
  const aborters = new Set<((reason: unknown) => void) | AbortController>();
  const abortAll = () => {
    const listening = [...aborters];
    aborters.clear();
    for (const aborter of listening) {
      if (typeof aborter === "function") aborter(signal?.reason);
      else aborter.abort(signal?.reason);
    }
  };
  /** Adds `aborter` to the run's abort; false when there is nothing to add it to (no signal, or aborted already). */
  const listen = (aborter: ((reason: unknown) => void) | AbortController): boolean => {
    if (!signal || signal.aborted) return false;
    if (aborters.size === 0) signal.addEventListener("abort", abortAll, { once: true });
    aborters.add(aborter);
    return true;
  };
  const release = (aborter: ((reason: unknown) => void) | AbortController): void => {
    if (aborters.delete(aborter) && aborters.size === 0) signal?.removeEventListener("abort", abortAll);
  };
  const onAbort = (listener: (reason: unknown) => void) => {
    if (listen(listener)) return () => release(listener);
    if (signal?.aborted) listener(signal.reason);
    return noDetach;
  };
  const abortWithRun = (controller: AbortController): void => {
    if (!listen(controller) && signal?.aborted) controller.abort(signal.reason);
  };
  return {
    onAbort,
    abortWithRun,
    releaseFromRun: release,
    config: options.config,
    streamFn: options.streamFn,
    signal: options.signal,
    tool: (name) => byName.get(name),
    tools: () => tools,
    declaredTools: () => declared,
    useTools,
  };
}

/** The pi-shaped context call hooks receive: the system prompt and transcript as the batch started, and the run's tools. */
export function hookContext(services: RunServices, scope: CallHookScope): AgentContext {
  const tools = services.tools();
  return { systemPrompt: scope.systemPrompt, messages: transcriptMessages(scope.messages), ...(tools ? { tools } : {}) };
}

/**
 * Where a run's actors find its services: given the actor system they run in.
 * The shipped machine is provided once, with {@link servicesIn}, and every run
 * binds its services to its own system ({@link bindRun}); `provideRunActors`
 * gives a fixed source instead.
 */
export type ServicesSource = (system: RunSystem) => RunServices;

/** The actor system a run's actors share (the loop's, or a lone call's). */
export type RunSystem = AnyActorRef["system"];

/** What one run binds to its actor system: its services, and who hears its events. */
interface RunBinding {
  services: RunServices;
  onEvent: ((event: AgentEvent) => void) | undefined;
}

const runs = new WeakMap<RunSystem, RunBinding>();

/** Binds a run's services (and its event listener) to the actor system of its loop actor, before the actor starts. */
export function bindRun(system: RunSystem, services: RunServices, onEvent: ((event: AgentEvent) => void) | undefined): void {
  runs.set(system, { services, onEvent });
}

/** The services bound to `system`. Throws when none are: the machine was started without `createAgentLoopActor`. */
export const servicesIn: ServicesSource = (system) => {
  const run = runs.get(system);
  if (!run) throw new Error("no run services are bound to this actor system: create the run with createAgentLoopActor, or provide its actors with provideRunActors");
  return run.services;
};

/** Who hears the events of the run of `system`, if anyone. */
export function listenerIn(system: RunSystem): ((event: AgentEvent) => void) | undefined {
  return runs.get(system)?.onEvent;
}
