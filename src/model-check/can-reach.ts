/**
 * Questions to the chart: can a run reach this state, and by which events? `canReach`
 * searches the model checker's abstract worlds breadth first and answers with the shortest
 * witness (the world events from the start); `explorePaths` lists the paths up to a depth.
 * Both drive the same machines the checker explores (actors swapped for inert stand-ins).
 */
import type { AnyMachineSnapshot, AnyStateMachine } from "xstate";
import { DEFAULT_MODEL_CHECK_MAX_CALLS, DEFAULT_MODEL_CHECK_TURNS, defaultModelCheckConfigurations } from "./check-agent-loop.js";
import { createConfiguredWorlds } from "./configured-worlds.js";
import type { LoopWorld, LoopWorldState } from "./loop-world.js";
import type { ModelCheckConfiguration } from "./types.js";

/** What a target sees of a world state: the loop's snapshot, its batches' and its calls'. */
export interface ReachableState {
  loop: AnyMachineSnapshot;
  batches: readonly { key: string; snapshot: AnyMachineSnapshot }[];
  calls: readonly { callId: string; name: string; snapshot: AnyMachineSnapshot }[];
}

/**
 * A target: a state path that the loop, a batch or a call is in, written from the machine's
 * root (`"preparing.awaitingApproval"`) or as its last part (`"awaitingApproval"`), or a
 * predicate over the state.
 */
export type ReachTarget = string | ((state: ReachableState) => boolean);

/** Default depth bound of a search, in world events. */
export const DEFAULT_REACH_DEPTH = 60;
/** Default cap on the states one configuration's search visits. */
export const DEFAULT_REACH_STATE_LIMIT = 500_000;

/** Options of {@link canReach} and {@link explorePaths}. */
export interface ReachOptions {
  /** Turns a run may take (default 2), as in `checkAgentLoop`. */
  turns?: number;
  /** Largest batch of tool calls in one response (default 3). */
  maxCalls?: number;
  /** The machine inputs searched, in order (default: the checker's configurations). e.g. `[{ name: "approvals", input: { maxTurns: 1 }, approvals: true }]` */
  configurations?: ModelCheckConfiguration[];
  /** Most world events on a path (default 60). */
  maxDepth?: number;
  /** Most states visited per configuration (default 500,000); past it the search stops and says so. */
  limit?: number;
}

/** The answer of {@link canReach}. */
export interface Reachability {
  reachable: boolean;
  /** The world events from the start to the target, shortest first found (empty when unreachable). */
  path: string[];
  /** The configuration the witness was found in. */
  configuration?: string;
  /** States visited in all. */
  states: number;
  /** True when a bound (depth or state limit) cut the search: "unreachable" then means "not within the bound". */
  bounded: boolean;
}

/** The dotted paths of every active state in `value` (`{ preparing: "awaitingApproval" }` → `preparing`, `preparing.awaitingApproval`). */
function activePaths(value: unknown, prefix = ""): string[] {
  if (typeof value === "string") return [`${prefix}${value}`];
  if (typeof value !== "object" || value === null) return [];
  return Object.entries(value).flatMap(([key, sub]) => [`${prefix}${key}`, ...activePaths(sub, `${prefix}${key}.`)]);
}

/** True when `snapshot` is in `path`: from its root (`preparing.awaitingApproval`) or ending there (`awaitingApproval`). */
function isIn(snapshot: AnyMachineSnapshot, path: string): boolean {
  return activePaths(snapshot.value).some((active) => active === path || active.endsWith(`.${path}`));
}

function matcherOf(target: ReachTarget): (state: ReachableState) => boolean {
  if (typeof target === "function") return target;
  return (state) => isIn(state.loop, target) || state.batches.some((batch) => isIn(batch.snapshot, target)) || state.calls.some((call) => isIn(call.snapshot, target));
}

function viewOf(state: LoopWorldState): ReachableState {
  return { loop: state.loop, batches: state.batches, calls: state.calls };
}

/** One configuration's breadth-first search, advanced a layer at a time. */
interface Search {
  configuration: string;
  world: LoopWorld;
  seen: Set<string>;
  layer: { state: LoopWorldState; path: string[] }[];
}

/**
 * Advances `search` by one layer: returns the path to the first state of the current layer
 * that `matches`, else replaces the layer with the states one event further on (within
 * `limit` states; `bounded` notes a cut).
 */
function advance(search: Search, matches: (state: ReachableState) => boolean, turns: number, limit: number, bounded: { value: boolean }): string[] | undefined {
  const next: Search["layer"] = [];
  for (const { state, path } of search.layer) {
    if (matches(viewOf(state))) return path;
    if (state.status !== "active" || state.monitor.turns > turns) continue;
    for (const event of search.world.events(state)) {
      const after = search.world.next(state, event);
      // Tested before it is merged with a known state: the world's state key abstracts data
      // a target may read (an exit reason, a context field).
      if (matches(viewOf(after))) return [...path, event.type];
      const key = search.world.serialize(after);
      if (search.seen.has(key)) continue;
      if (search.seen.size >= limit) {
        bounded.value = true;
        break;
      }
      search.seen.add(key);
      next.push({ state: after, path: [...path, event.type] });
    }
  }
  search.layer = next;
  return undefined;
}

/**
 * Can a run of `machine` (an agent loop machine, e.g. `agentLoopMachine` or a `provide`d
 * variant) reach `target`? Searches every configuration breadth first, a layer of each in
 * turn, so the witness is a shortest one over all of them; answers `reachable: false` when
 * none reaches it within the bounds (`bounded` says whether a bound cut the search).
 * Throws when a configuration's machine cannot start.
 *
 * @example
 * const { reachable, path } = canReach(agentLoopMachine, "awaitingApproval");
 * const maxTurns = canReach(agentLoopMachine, (s) => s.loop.status === "done" && s.loop.output?.exitReason === "maxTurns");
 */
export function canReach(machine: AnyStateMachine, target: ReachTarget, options: ReachOptions = {}): Reachability {
  const turns = options.turns ?? DEFAULT_MODEL_CHECK_TURNS;
  const maxCalls = options.maxCalls ?? DEFAULT_MODEL_CHECK_MAX_CALLS;
  const maxDepth = options.maxDepth ?? DEFAULT_REACH_DEPTH;
  const limit = options.limit ?? DEFAULT_REACH_STATE_LIMIT;
  const configurations = options.configurations ?? defaultModelCheckConfigurations(turns, maxCalls);
  const matches = matcherOf(target);
  const searches: Search[] = [...createConfiguredWorlds(machine, { configurations, maxCalls }).each()].map(({ configuration, world }) => ({
    configuration: configuration.name,
    world,
    seen: new Set([world.serialize(world.initial)]),
    layer: [{ state: world.initial, path: [] }],
  }));
  const bounded = { value: false };
  const states = () => searches.reduce((sum, search) => sum + search.seen.size, 0);
  for (let depth = 0; searches.some((search) => search.layer.length > 0); depth += 1) {
    if (depth > maxDepth) {
      bounded.value = true;
      break;
    }
    for (const search of searches) {
      const found = advance(search, matches, turns, limit, bounded);
      if (found) return { reachable: true, path: found, configuration: search.configuration, states: states(), bounded: bounded.value };
    }
  }
  return { reachable: false, path: [], states: states(), bounded: bounded.value };
}

/** Options of {@link explorePaths}. */
export interface ExplorePathsOptions extends ReachOptions {
  /** Keeps a path when its last state passes (default: paths that end the run, or reach `maxDepth`). */
  filter?: (state: ReachableState, path: readonly string[]) => boolean;
  /** Most paths returned (default 1,000). */
  maxPaths?: number;
}

/** A path of {@link explorePaths}: its configuration and its world events. */
export interface ExploredPath {
  configuration: string;
  events: string[];
  /** The loop's state value at the path's end. */
  value: unknown;
}

/**
 * Lists the paths of `machine`'s worlds, depth first, without revisiting a state on one
 * path: by default each maximal path (one that ends the run or reaches `maxDepth`), or
 * every path whose end passes `filter`. Stops at `maxPaths`.
 */
export function explorePaths(machine: AnyStateMachine, options: ExplorePathsOptions = {}): ExploredPath[] {
  const turns = options.turns ?? DEFAULT_MODEL_CHECK_TURNS;
  const maxCalls = options.maxCalls ?? DEFAULT_MODEL_CHECK_MAX_CALLS;
  const maxDepth = options.maxDepth ?? DEFAULT_REACH_DEPTH;
  const maxPaths = options.maxPaths ?? 1_000;
  const configurations = options.configurations ?? defaultModelCheckConfigurations(turns, maxCalls);
  const paths: ExploredPath[] = [];
  for (const { configuration, world } of createConfiguredWorlds(machine, { configurations, maxCalls }).each()) {
    const onPath = new Set<string>();
    const walk = (state: LoopWorldState, events: string[]): void => {
      if (paths.length >= maxPaths) return;
      const ends = state.status !== "active" || state.monitor.turns > turns || events.length >= maxDepth;
      const moves = ends ? [] : world.events(state);
      const keep = options.filter ? options.filter(viewOf(state), events) : ends || moves.length === 0;
      if (keep && events.length > 0) paths.push({ configuration: configuration.name, events, value: state.loop.value });
      const key = world.serialize(state);
      onPath.add(key);
      for (const event of moves) {
        const after = world.next(state, event);
        if (!onPath.has(world.serialize(after))) walk(after, [...events, event.type]);
        if (paths.length >= maxPaths) break;
      }
      onPath.delete(key);
    };
    walk(world.initial, []);
    if (paths.length >= maxPaths) break;
  }
  return paths;
}
