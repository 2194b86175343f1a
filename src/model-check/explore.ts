/**
 * Explores a world (a product of a machine and its environment) with
 * `xstate/graph`'s `getAdjacencyMap`, then analyses the graph: shortest
 * counterexample paths, states that cannot reach an end (I3), and the number of
 * complete paths.
 */
import { getAdjacencyMap } from "xstate/graph";
import type { ActorLogic, EventObject } from "xstate";
import type { InvariantId } from "./types.js";
import type { StepViolation } from "./protocol-monitor.js";

/** What the explorer needs of a world. */
export interface ExplorableWorld<S extends { status: string; violations: StepViolation[] }, E extends EventObject> {
  initial: S;
  events(state: S): E[];
  next(state: S, event: E): S;
  serialize(state: S): string;
  /** States past the bound: kept, not expanded, count as ends. */
  isFrontier?(state: S): boolean;
}

/** A violation with the readable path that reaches it. */
export interface FoundViolation {
  invariant: InvariantId;
  message: string;
  path: string[];
}

/** The figures and findings of one exploration. */
export interface Exploration {
  states: number;
  edges: number;
  paths: number;
  frontier: number;
  violations: FoundViolation[];
}

/** Explores `world`; `limit` caps the states (the traversal throws beyond it). */
export function explore<S extends { status: string; violations: StepViolation[] }, E extends EventObject>(
  world: ExplorableWorld<S, E>,
  limit: number,
): Exploration {
  const isEnd = (state: S) => state.status !== "active" || state.violations.length > 0 || world.isFrontier?.(state) === true;
  // Each abstract state is kept once: a step that reaches a known state returns the
  // stored object, so the adjacency map holds no duplicates and each state is serialized once.
  const keyOf = new WeakMap<S, string>();
  const canonical = new Map<string, S>();
  const intern = (state: S): S => {
    const key = world.serialize(state);
    const known = canonical.get(key);
    if (known) return known;
    canonical.set(key, state);
    keyOf.set(state, key);
    return state;
  };
  const serialize = (state: S): string => keyOf.get(state) ?? world.serialize(state);
  const initial = intern(world.initial);
  const logic = {
    transition: (state: S, event: E) => intern(world.next(state, event)),
    getInitialSnapshot: () => initial,
    getPersistedSnapshot: (state: S) => state,
  } as unknown as ActorLogic<S & { output: undefined; error: undefined; status: "active" }, E>;
  const adjacency = getAdjacencyMap(logic, {
    fromState: initial as never,
    serializeState: (state) => serialize(state as unknown as S),
    serializeEvent: (event) => event.type,
    events: (state) => (isEnd(state as unknown as S) ? [] : world.events(state as unknown as S)),
    stopWhen: (state) => isEnd(state as unknown as S),
    limit,
  });

  const keys = Object.keys(adjacency);
  const index = new Map(keys.map((key, position) => [key, position]));
  const nodes = keys.map((key) => adjacency[key as keyof typeof adjacency]!.state as unknown as S);
  const out: { event: string; to: number }[][] = keys.map((key) =>
    Object.values(adjacency[key as keyof typeof adjacency]!.transitions).map((transition) => ({
      event: (transition.event as EventObject).type,
      to: index.get(serialize(transition.state as unknown as S)) as number,
    })),
  );
  const start = index.get(serialize(initial)) as number;

  // Shortest paths (BFS parents) for counterexamples.
  const parent = new Array<{ from: number; event: string } | null>(keys.length).fill(null);
  const seen = new Uint8Array(keys.length);
  const order: number[] = [start];
  seen[start] = 1;
  for (let head = 0; head < order.length; head++) {
    const from = order[head] as number;
    for (const edge of out[from] as { event: string; to: number }[]) {
      if (seen[edge.to]) continue;
      seen[edge.to] = 1;
      parent[edge.to] = { from, event: edge.event };
      order.push(edge.to);
    }
  }
  const pathTo = (node: number): string[] => {
    const events: string[] = [];
    for (let at = parent[node]; at; at = parent[at.from]) events.push(at.event);
    return events.reverse();
  };

  const violations: FoundViolation[] = [];
  const reported = new Set<string>();
  const report = (node: number, violation: StepViolation) => {
    const key = `${violation.invariant}|${violation.message.replace(/call-\d+\.\d+/g, "call")}`;
    if (reported.has(key)) return;
    reported.add(key);
    violations.push({ ...violation, path: pathTo(node) });
  };
  for (const node of order) {
    for (const violation of (nodes[node] as S).violations) report(node, violation);
  }

  // I3: a state that cannot reach an end is a deadlock or a trap.
  const incoming: number[][] = keys.map(() => []);
  out.forEach((edges, from) => edges.forEach((edge) => incoming[edge.to]!.push(from)));
  const canEnd = new Uint8Array(keys.length);
  const stack: number[] = [];
  nodes.forEach((node, position) => {
    if (isEnd(node)) {
      canEnd[position] = 1;
      stack.push(position);
    }
  });
  while (stack.length) {
    for (const from of incoming[stack.pop() as number] as number[]) {
      if (!canEnd[from]) {
        canEnd[from] = 1;
        stack.push(from);
      }
    }
  }
  for (const node of order) {
    if (canEnd[node]) continue;
    const stuck = (out[node] as unknown[]).length === 0 ? "no event of the world moves it" : "no path from here reaches done";
    report(node, { invariant: "I3", message: `the run is stuck in ${JSON.stringify((nodes[node] as { loop?: { value?: unknown } }).loop?.value ?? "?")}: ${stuck}` });
  }

  return { states: keys.length, edges: out.reduce((sum, edges) => sum + edges.length, 0), paths: countPaths(out, nodes.map(isEnd), start), frontier: nodes.filter((node) => world.isFrontier?.(node) === true).length, violations };
}

/** Paths from `start` to an end, self-loops not repeated; a cycle's back edge counts no path. */
function countPaths(out: { to: number }[][], ends: boolean[], start: number): number {
  const memo = new Array<number>(out.length).fill(-1);
  const onStack = new Uint8Array(out.length);
  // Iterative post-order DFS.
  const stack: { node: number; next: number; sum: number }[] = [{ node: start, next: 0, sum: 0 }];
  onStack[start] = 1;
  while (stack.length) {
    const frame = stack[stack.length - 1] as { node: number; next: number; sum: number };
    const edges = out[frame.node] as { to: number }[];
    if (ends[frame.node]) {
      frame.sum = 1;
    } else if (frame.next < edges.length) {
      const to = (edges[frame.next++] as { to: number }).to;
      if (to === frame.node || onStack[to]) continue;
      if (memo[to] !== -1) {
        frame.sum += memo[to] as number;
        continue;
      }
      onStack[to] = 1;
      stack.push({ node: to, next: 0, sum: 0 });
      continue;
    }
    memo[frame.node] = frame.sum;
    onStack[frame.node] = 0;
    stack.pop();
    const caller = stack[stack.length - 1];
    if (caller) caller.sum += frame.sum;
  }
  return memo[start] as number;
}
