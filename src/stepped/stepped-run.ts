/**
 * `createSteppedRun`: a run of the shipped chart that parks before every effect
 * (the model request, each tool execution, each hook call), so a test drives it
 * one effect at a time — choosing which of a parallel batch's calls completes
 * first, taking the persisted snapshot at any boundary ("crash here"), aborting
 * while parked. Same choices, same transcript.
 */
import type { AnyActorRef, Snapshot } from "xstate";
import type { AgentLoopOutput } from "../../machines/agent-loop.machine.js";
import { callSystemId } from "../../machines/events.js";
import { toolCallsOf } from "../../machines/loop-context.js";
import { uniqueCallIds } from "../../machines/tool-batch.machine.js";
import { awaitsApproval, type ToolCallContext } from "../../machines/tool-call.machine.js";
import { createLoopActorOf, runActor, type AgentLoopActor, type CreateAgentLoopActorOptions } from "../agent-loop.js";
import { ApprovalError } from "../errors/approval-error.js";
import { LoopInputError } from "../errors/loop-input-error.js";
import { describeValue } from "../describe-value.js";
import type { RunSystem } from "../run-environment.js";
import type { AgentContext, AgentEvent, AgentLoopConfig, AgentMessage, StreamFn } from "../types.js";
import type { Gatekeeper } from "./effect-gate.js";
import { assertEffectChoice, describeEffect, matchesChoice, type EffectChoice, type PendingEffect } from "./pending-effect.js";
import { StepController } from "./step-controller.js";
import { steppedClock } from "./stepped-clock.js";
import { withParkedRequestHooks } from "./request-hooks.js";
import { SteppedRunError } from "./stepped-run-error.js";
import { gatedRunMachine } from "./stepped-machine.js";

/** Options of {@link createSteppedRun}: those of `agentLoop`, and a snapshot to continue from. */
export interface CreateSteppedRunOptions {
  /** Prompts of a prompt run; omit for a continue run (then the context must end with a user or tool result message). */
  prompts?: AgentMessage[];
  context: AgentContext;
  config: AgentLoopConfig;
  /** The stream function. Default: `streamByModelApi`, as for `agentLoop`. */
  streamFn?: StreamFn;
  /** The run's tools (of any schema, as `context.tools`); given, they replace `context.tools`. */
  tools?: AgentContext["tools"];
  /** A persisted snapshot (`run.snapshot()`, `actor.getPersistedSnapshot()`) to continue stepping from; `prompts` are then ignored. */
  snapshot?: Snapshot<unknown>;
  /** Aborting it is `run.abort(signal.reason)`. */
  signal?: AbortSignal;
  /**
   * Also park inside each stepped model request, before each of `transformContext`,
   * `convertToLlm` and `getApiKey` the config has (`{ kind: "hook", name }`). Default
   * false: they are part of the request's step. A snapshot taken there holds the request
   * in flight, so a restore requests again from `transformContext` on.
   */
  requestHooks?: boolean;
  /** An XState inspector, as for `createAgentLoopActor`. */
  inspect?: CreateAgentLoopActorOptions["inspect"];
}

/** What one `step` did. */
export interface StepOutcome {
  /** The effect performed. */
  performed: PendingEffect;
  /** The events emitted from the release of the effect until the run parked again (or ended). */
  events: AgentEvent[];
  /** What is pending now (empty once the run ended). */
  pending: PendingEffect[];
  /** Whether the run has ended. */
  done: boolean;
}

/**
 * A run driven one effect at a time. Calls that wait (`pending`, `step`, …) resolve
 * once the run is parked again: every released effect finished and the chart
 * waits on a parked effect or a decision, or the run ended.
 */
export interface SteppedRun {
  /**
   * What the run would do next, once it is parked: the effects parked (in the
   * order they parked; a batch's calls in source order), then the calls waiting for
   * approval. Empty once the run ended. Performs nothing.
   */
  pending(): Promise<PendingEffect[]>;
  /**
   * Performs one parked effect — the first, or the first matching `choice` (e.g.
   * `{ toolCallId: "b" }` to let call `b` of a parallel batch complete first) — and
   * resolves once the run is parked again or ended. Throws a TypeError for a choice
   * that is not an {@link EffectChoice}, and {@link SteppedRunError}:
   * `finished`, `busy` (an earlier step still runs), `noMatch` (nothing pending
   * matches; the message lists what is), `awaitingDecision` (only approvals pending).
   */
  step(choice?: EffectChoice): Promise<StepOutcome>;
  /** Steps the first pending effect until the run ends; resolves with its output. Throws `awaitingDecision` if the run waits only for approvals. */
  runToCompletion(): Promise<AgentLoopOutput>;
  /**
   * The persisted snapshot at this boundary, detached plain JSON — what a durable
   * session saves. Restoring it (`createAgentLoopActor({ snapshot })`, or
   * `createSteppedRun({ snapshot })`) with the same tools and config continues as
   * this run would: the parked effects are performed then ("crash here"). Throws
   * `notParked` before the first `pending()` / `step()` resolved and while a step runs.
   */
  snapshot(): Snapshot<unknown>;
  /**
   * Aborts the run (its signal, as `agentLoop`'s would) and lets it end: every
   * parked effect begins, and none parks after, each seeing the aborted signal — a
   * parked model request or tool is not performed (the request ends `aborted`, the
   * call's result says the operation was aborted); hooks see the aborted signal.
   * Resolves with the output (exit reason `aborted`, unless the run had already ended).
   */
  abort(reason?: unknown): Promise<AgentLoopOutput>;
  /** Approves a call waiting for approval (`tool.approve`); resolves with what is pending once parked again. Throws `ApprovalError` when the call does not wait. */
  approve(toolCallId: string, options?: { always?: boolean }): Promise<PendingEffect[]>;
  /** Rejects a call waiting for approval (`tool.reject`); otherwise as {@link SteppedRun.approve}. */
  reject(toolCallId: string, reason?: string): Promise<PendingEffect[]>;
  /** Every event emitted so far, in order (a copy). */
  readonly events: AgentEvent[];
  /** Whether the run has ended. */
  readonly done: boolean;
  /** Resolves with the run's output once it ended (`{ exitReason, messages, errorMessage? }`). Never rejects. */
  result(): Promise<AgentLoopOutput>;
  /** The loop actor, for inspection. Sending it events bypasses the stepping. */
  readonly actor: AgentLoopActor;
}

const gatekeepers = new WeakMap<RunSystem, Gatekeeper>();
let sharedSteppedMachine: ReturnType<typeof gatedRunMachine> | undefined;

/** The gated machine, built once per process: a run's gates find its controller by the run's actor system. */
function steppedMachine(): ReturnType<typeof gatedRunMachine> {
  sharedSteppedMachine ??= gatedRunMachine((system) => gatekeepers.get(system));
  return sharedSteppedMachine;
}

/** The calls of the current batch waiting for approval, in source order. */
function waitingForApproval(actor: AgentLoopActor): PendingEffect[] {
  const snapshot = actor.getSnapshot();
  if (snapshot.status !== "active" || !snapshot.matches("dispatching")) return [];
  return uniqueCallIds(toolCallsOf(snapshot.context.assistant)).flatMap((toolCallId): PendingEffect[] => {
    const call = (actor.system.get(callSystemId(toolCallId)) as AnyActorRef | undefined)?.getSnapshot() as { value: unknown; context?: ToolCallContext } | undefined;
    return call?.context && awaitsApproval(call.value) ? [{ kind: "approval", toolCallId, toolName: call.context.toolCall.name }] : [];
  });
}

/**
 * Starts a stepped run of the shipped chart: the same loop, batch and call
 * machines with their real actors, each effect actor behind a gate. The run
 * starts at once (its first events — `agent_start`, `turn_start`, the prompts —
 * are emitted) and parks before its first effect. Throws `LoopInputError`
 * synchronously on bad input, as `agentLoop` does.
 *
 * Deterministic: the same choices, stream function, tools and hooks give the same
 * events and transcript (up to what they themselves vary, e.g. timestamps). The
 * chart's delayed transitions (a tool's timeout, a retry's backoff) are `timer`
 * effects on the run's own clock: they come due only when stepped.
 */
export function createSteppedRun(options: CreateSteppedRunOptions): SteppedRun {
  if (typeof options !== "object" || options === null) {
    throw new LoopInputError(`createSteppedRun takes { prompts?, context, config, streamFn?, tools? }, got ${describeValue(options)}`);
  }
  if (options.tools !== undefined && !Array.isArray(options.tools)) {
    throw new LoopInputError(`tools must be an array of tools (or omitted for context.tools), got ${describeValue(options.tools)}`);
  }
  const events: AgentEvent[] = [];
  const abort = new AbortController();
  const context = options.tools ? { ...options.context, tools: options.tools } : options.context;
  // Asked for the approvals only once the run started, after `actor` is set.
  const steps = new StepController(() => waitingForApproval(actor));
  const actor = createLoopActorOf(steppedMachine(), {
    context,
    config: options.requestHooks ? withParkedRequestHooks(options.config, (effect) => steps.parkNested(effect)) : options.config,
    signal: abort.signal,
    ...(options.prompts ? { prompts: options.prompts } : {}),
    ...(options.streamFn ? { streamFn: options.streamFn } : {}),
    ...(options.snapshot ? { snapshot: options.snapshot } : {}),
    ...(options.inspect ? { inspect: options.inspect } : {}),
    onEvent: (event) => {
      events.push(event);
      steps.notify();
    },
  }, steppedClock(steps));
  gatekeepers.set(actor.system, steps);
  let atBoundary = false;
  let busy = false;
  const output = runActor(actor, (event) => events.push(event)).then((result) => {
    steps.end();
    return result;
  });

  const parked = async (): Promise<void> => {
    await steps.parked();
    atBoundary = !busy;
  };
  /** Runs `work` as the one thing under way, then waits until the run is parked again. */
  const exclusive = async <T>(work: () => T): Promise<T> => {
    if (busy) throw new SteppedRunError("busy", "a step is still under way: await it before the next one");
    busy = true;
    try {
      await steps.parked();
      atBoundary = false;
      const done = work();
      await steps.parked();
      return done;
    } finally {
      busy = false;
      atBoundary = !abort.signal.aborted || steps.hasEnded;
    }
  };
  const decide = async (toolCallId: string, event: { type: "tool.approve"; always?: boolean } | { type: "tool.reject"; reason?: string }) => {
    await exclusive(() => {
      if (!steps.pending().some((effect) => effect.kind === "approval" && effect.toolCallId === toolCallId)) {
        throw new ApprovalError(toolCallId, `Tool call ${JSON.stringify(toolCallId)} is not waiting for approval in this stepped run`);
      }
      actor.send({ ...event, toolCallId });
    });
    return steps.pending();
  };

  const run: SteppedRun = {
    pending: async () => {
      await parked();
      return steps.pending();
    },
    step: async (choice = {}) => {
      assertEffectChoice(choice);
      const from = { index: events.length };
      const performed = await exclusive(() => {
        if (steps.hasEnded) throw new SteppedRunError("finished", "the run has ended: nothing is left to step");
        // Time passes last: a timer only when asked for, or when nothing else matches.
        const untimed = choice.kind === undefined ? steps.findParked((effect) => effect.kind !== "timer" && matchesChoice(effect, choice)) : -1;
        const index = untimed >= 0 ? untimed : steps.findParked((effect) => matchesChoice(effect, choice));
        if (index < 0) throw noMatch(steps.pending(), choice);
        from.index = events.length;
        return steps.release(index);
      });
      return { performed, events: events.slice(from.index), pending: steps.pending(), done: steps.hasEnded };
    },
    runToCompletion: async () => {
      while ((await run.pending()).length > 0) await run.step();
      return output;
    },
    snapshot: () => {
      if (!atBoundary || busy) throw new SteppedRunError("notParked", "the run is not parked: await pending() or step() before taking its snapshot");
      return JSON.parse(JSON.stringify(actor.getPersistedSnapshot())) as Snapshot<unknown>;
    },
    abort: (reason) => {
      atBoundary = false;
      if (!abort.signal.aborted) abort.abort(reason);
      steps.releaseAll();
      return output;
    },
    approve: (toolCallId, approveOptions) => decide(toolCallId, { type: "tool.approve", ...(approveOptions?.always ? { always: true } : {}) }),
    reject: (toolCallId, reason) => decide(toolCallId, { type: "tool.reject", ...(reason !== undefined ? { reason } : {}) }),
    get events() {
      return [...events];
    },
    get done() {
      return steps.hasEnded;
    },
    result: () => output,
    actor,
  };
  if (options.signal) {
    const external = options.signal;
    const onAbort = () => void run.abort(external.reason);
    if (external.aborted) onAbort();
    else external.addEventListener("abort", onAbort, { once: true });
    void output.then(() => external.removeEventListener("abort", onAbort));
  }
  return run;
}

/** The error of a `step` whose choice matches nothing pending. */
function noMatch(pending: PendingEffect[], choice: EffectChoice): SteppedRunError {
  const effects = pending.filter((effect) => effect.kind !== "approval");
  if (effects.length === 0 && pending.length > 0) {
    return new SteppedRunError("awaitingDecision", `the run waits only for decisions (${pending.map(describeEffect).join(", ")}): answer with approve() or reject()`);
  }
  const listed = pending.length > 0 ? pending.map(describeEffect).join(", ") : "nothing";
  return new SteppedRunError("noMatch", `no pending effect matches ${JSON.stringify(choice)}; pending: ${listed}`);
}
