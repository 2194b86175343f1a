/**
 * `checkAgentLoop`: model-checks a loop machine definition (the shipped
 * `agentLoopMachine` or a user's reconfigured or extended version) against the
 * abstract world, over several machine inputs, and reports states, transition
 * coverage, complete paths and every invariant violation with the shortest path
 * of world events that reaches it.
 */
import type { AnyStateMachine, AnyTransitionDefinition } from "xstate";
import { createConfiguredWorlds } from "./configured-worlds.js";
import { explore } from "./explore.js";
import { SERIAL_TOOL, TOOL, type HookOutcome, type LoopWorldState } from "./loop-world.js";
import { coverageOf } from "./machine-transitions.js";
import {
  INVARIANTS,
  type ConfigurationReport,
  type ModelCheckConfiguration,
  type ModelCheckReport,
  type ModelCheckViolation,
} from "./types.js";

/** Default turn bound of the exploration. */
export const DEFAULT_MODEL_CHECK_TURNS = 2;
/** Default largest batch of tool calls in one response. */
export const DEFAULT_MODEL_CHECK_MAX_CALLS = 3;
/** Default cap on the states of one configuration; exceeding it throws. */
export const DEFAULT_MODEL_CHECK_STATE_LIMIT = 2_000_000;

/** Compaction in the model check's configurations: a window the world's "context too large" responses overflow; every length stop is short. */
export const MODEL_CHECK_COMPACTION = { reserveTokens: 10, keepRecentTokens: 0, contextWindow: 100_000, maxOutputTokens: 100 };

/** Options of {@link checkAgentLoop}. */
export interface CheckAgentLoopOptions {
  /** Turns explored per run (default 2): configurations with `maxTurns` use it, the others stop expanding past it. */
  turns?: number;
  /** Largest batch of tool calls in one response (default 3). */
  maxCalls?: number;
  /** Machine inputs to start from (default: {@link defaultModelCheckConfigurations}). */
  configurations?: ModelCheckConfiguration[];
  /** Extra or replacement sample outputs of hook actors, by actor source name (e.g. a hook you added). */
  hookOutcomes?: Record<string, HookOutcome[]>;
  /** Abstracts the context for state identity; must drop data that grows with the run (default: drops the transcript). */
  abstractContext?: (context: unknown) => unknown;
  /** Traversal cap per configuration (default 2,000,000 iterations); exceeding it throws. */
  limit?: number;
  /** The tool-call machine the batch spawns (default: the one the batch machine provides). Its actors are inert; the world answers them. */
  toolCallMachine?: AnyStateMachine;
  /** The tool-batch machine the loop invokes (default: the one `machine` provides as `toolBatch`); the world plays its calls and slices. */
  toolBatchMachine?: AnyStateMachine;
}

/**
 * The configurations explored by default: every pi 0.73 hook with `maxTurns`; no
 * hook, and `afterToolCall` with steering, in parallel with `maxTurns` (their
 * plain calls, up to the largest response, run on the direct path: the loop
 * spawns them itself);
 * `beforeToolCall` alone with the same fan-out (slices that prepare one by one,
 * report `tool.prepared` and wait for their go) and one turn; pi 1.x's turn hooks
 * (`prepareRequest`, `finishTurn`, `prepareNextTurn`) with follow-up and
 * `maxTurns`; `shouldStopAfterTurn` and `finishTurn` (so a `continue` decision
 * meets no follow-up poll) with sequential tools and no cap; `finishTurn` alone (a
 * turn it lets go on is a plain turn from `endingTurn`). (A hook alone takes
 * the paths that skip the others.) Three more, one turn each, let the world ask
 * for approval (`approvals`): parallel without `beforeToolCall` (in slices: a batch
 * fan-out one call smaller than the largest response, with no handshake) and with it
 * (the handshake, in slices), and sequential. Two capped ones (a tool's `concurrency`
 * 1, with `maxParallelCalls` 2; and with approvals, in slices) make the batch
 * queue prepared calls and release them as room frees up (I8). Two compact their context
 * (with follow-up in parallel; with steering and `prepareRequest` sequentially), where the
 * model may also overflow the window and the summarizer cuts the real transcript (I9).
 */
export function defaultModelCheckConfigurations(turns: number, maxCalls = DEFAULT_MODEL_CHECK_MAX_CALLS): ModelCheckConfiguration[] {
  // A fan-out one call smaller than the largest batch: the largest runs in slices, smaller ones are parented by the batch.
  const fanOut = Math.max(2, maxCalls - 1);
  return [
    {
      name: `all pi 0.73 hooks, parallel, maxTurns ${turns}`,
      input: {
        hooks: { steering: true, followUp: true, shouldStopAfterTurn: true, prepareNextTurn: true, beforeToolCall: true, afterToolCall: true } as never,
        maxTurns: turns,
        sequentialTools: [SERIAL_TOOL],
      },
    },
    { name: `no hooks, parallel, maxTurns ${turns}`, input: { maxTurns: turns, sequentialTools: [SERIAL_TOOL] } },
    {
      name: `afterToolCall and steering, parallel, batch fan-out ${fanOut}, maxTurns ${turns}`,
      input: { hooks: { afterToolCall: true, steering: true } as never, maxTurns: turns },
      batchFanOut: fanOut,
    },
    {
      name: `beforeToolCall only, parallel, batch fan-out ${fanOut}, maxTurns 1`,
      input: { hooks: { beforeToolCall: true } as never, maxTurns: 1 },
      batchFanOut: fanOut,
    },
    {
      name: `pi 1.x turn hooks (prepareRequest, finishTurn, prepareNextTurn) and follow-up, parallel, maxTurns ${turns}`,
      input: { hooks: { prepareRequest: true, finishTurn: true, prepareNextTurn: true, followUp: true } as never, maxTurns: turns },
    },
    // finishTurn alone: a turn it lets go on is a plain turn from endingTurn (appending's shortcut skips it otherwise).
    { name: `finishTurn only, parallel, maxTurns ${turns}`, input: { hooks: { finishTurn: true } as never, maxTurns: turns } },
    {
      name: "shouldStopAfterTurn and finishTurn, sequential, no maxTurns",
      input: { hooks: { shouldStopAfterTurn: true, finishTurn: true } as never, toolExecution: "sequential" },
    },
    // Approval: one turn each, so the decisions multiply only the first batch.
    // A tool decides needsApproval with a function: every call prepares in the prepareCall actor, then goes straight on.
    // In slices (the batch's fan-out lowered): the plain calls of the other parallel configurations run on the direct path.
    {
      name: `approvals, a needsApproval function, parallel, batch fan-out ${fanOut}, maxTurns 1`,
      input: { hooks: { needsApproval: true } as never, maxTurns: 1 },
      approvals: true,
      batchFanOut: fanOut,
    },
    {
      name: `approvals and beforeToolCall, parallel, batch fan-out ${fanOut}, maxTurns 1`,
      input: { hooks: { beforeToolCall: true } as never, maxTurns: 1 },
      approvals: true,
      batchFanOut: fanOut,
    },
    {
      name: "approvals, sequential, maxTurns 1",
      input: { toolExecution: "sequential", maxTurns: 1 },
      approvals: true,
    },
    // The loop policies, each alone (every response uses one token).
    {
      name: `invalid-call breaker at 1 with a hint, maxTurns ${turns}`,
      input: { invalidCallLimit: 1, onInvalidCallLimit: "hint", maxTurns: turns, sequentialTools: [SERIAL_TOOL] },
    },
    { name: "wrapUp, maxTurns 1", input: { wrapUp: { prompt: "wrap up" }, maxTurns: 1 } },
    { name: "budget of 1 token with wrapUp, no maxTurns", input: { budget: { tokens: 1 }, wrapUp: { prompt: "wrap up" } } },
    { name: `budget of ${turns} tokens, no maxTurns`, input: { budget: { tokens: turns } } },
    {
      name: `tool timeout and retry, ${SERIAL_TOOL} retry only, maxTurns 1`,
      input: {
        maxTurns: 1,
        sequentialTools: [SERIAL_TOOL],
        toolPolicies: {
          calls: { [TOOL]: { timeoutMs: 10, retry: { attempts: 2, backoffMs: 1 } }, [SERIAL_TOOL]: { retry: { attempts: 2 } } },
          concurrency: {},
        },
      },
    },
    {
      // A needsApproval function: calls prepare in the prepareCall actor and go on to execute with their timeout.
      name: "approvals, a needsApproval function, tool timeout, parallel, maxTurns 1",
      input: { hooks: { needsApproval: true } as never, maxTurns: 1, toolPolicies: { calls: { [TOOL]: { timeoutMs: 10 } }, concurrency: {} } },
      approvals: true,
    },
    // Concurrency caps: the batch queues prepared calls and releases what fits (I8), by itself and in slices.
    {
      name: `concurrency 1 for ${TOOL}, maxParallelCalls 2, maxTurns 1`,
      input: { maxTurns: 1, maxParallelCalls: 2, toolPolicies: { calls: {}, concurrency: { [TOOL]: 1 } } },
    },
    {
      name: `approvals, concurrency 1 for ${TOOL}, batch fan-out ${fanOut}, maxTurns 1`,
      input: { maxTurns: 1, toolPolicies: { calls: {}, concurrency: { [TOOL]: 1 } } },
      approvals: true,
      batchFanOut: fanOut,
    },
    // Compaction (I9): the model may overflow the window (an error, a short length stop) or report a context
    // near it; the summarizer cuts the real transcript as deep as the running turn allows, or finds nothing to cut.
    {
      name: `compaction and follow-up, parallel, maxTurns ${turns}`,
      input: { hooks: { followUp: true } as never, maxTurns: turns, compaction: MODEL_CHECK_COMPACTION },
    },
    {
      name: `compaction, steering and prepareRequest, sequential, maxTurns ${turns}`,
      input: { hooks: { steering: true, prepareRequest: true } as never, toolExecution: "sequential", maxTurns: turns, compaction: MODEL_CHECK_COMPACTION },
    },
    {
      name: "tool timeout, afterToolCall, maxTurns 1",
      input: { hooks: { afterToolCall: true } as never, maxTurns: 1, toolPolicies: { calls: { [TOOL]: { timeoutMs: 10 } }, concurrency: {} } },
    },
  ];
}

/**
 * Model-checks `machine` (an agent loop machine: same events, emitted protocol
 * and named actors as `agentLoopMachine`) and returns the report. Never throws
 * for a faulty machine — a throwing machine is an I3 violation — but throws when
 * the machine cannot start from a configuration or the state limit is exceeded.
 *
 * @example
 * const report = checkAgentLoop(agentLoopMachine.provide({ guards: { ... } }), { turns: 2 });
 * expect(report.violations).toEqual([]);
 */
export function checkAgentLoop(machine: AnyStateMachine, options: CheckAgentLoopOptions = {}): ModelCheckReport {
  const started = performance.now();
  const turns = options.turns ?? DEFAULT_MODEL_CHECK_TURNS;
  const maxCalls = options.maxCalls ?? DEFAULT_MODEL_CHECK_MAX_CALLS;
  const configurations = options.configurations ?? defaultModelCheckConfigurations(turns, maxCalls);
  const taken = { loop: new Set<AnyTransitionDefinition>(), call: new Set<AnyTransitionDefinition>(), batch: new Set<AnyTransitionDefinition>() };
  const violations: ModelCheckViolation[] = [];
  const reports: ConfigurationReport[] = [];
  const worlds = createConfiguredWorlds(machine, { ...options, configurations, maxCalls }, (transitions, of) => transitions.forEach((transition) => taken[of].add(transition)));
  const { explored, callMachine, batchMachine } = worlds;
  for (const { configuration, world } of worlds.each()) {
    const result = explore<LoopWorldState, ReturnType<typeof world.events>[number]>(
      { ...world, isFrontier: (state) => state.monitor.turns > turns },
      options.limit ?? DEFAULT_MODEL_CHECK_STATE_LIMIT,
    );
    reports.push({ name: configuration.name, states: result.states, edges: result.edges, paths: result.paths, frontier: result.frontier });
    violations.push(...result.violations.map((violation) => ({ ...violation, configuration: configuration.name })));
  }
  const coverage = coverageOf(explored, taken.loop);
  return {
    states: reports.reduce((sum, report) => sum + report.states, 0),
    transitions: coverage.transitions,
    covered: coverage.covered,
    paths: reports.reduce((sum, report) => sum + report.paths, 0),
    violations,
    durationMs: Math.round(performance.now() - started),
    turns,
    maxCalls,
    invariants: INVARIANTS,
    configurations: reports,
    coverage,
    toolCallCoverage: coverageOf(callMachine, taken.call),
    toolBatchCoverage: coverageOf(batchMachine, taken.batch),
  };
}
