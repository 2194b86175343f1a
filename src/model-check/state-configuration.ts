/**
 * A statechart's configurations read off its definition alone: which state nodes a state
 * value makes active, what a transition of the definition does to them, and which
 * configurations one macrostep can reach when guards are not evaluated. Trace conformance
 * (`verify-trace.ts`) uses it to decide whether a recorded change of state value is a step
 * of the chart; nothing here runs an action, a guard or an actor.
 *
 * The rules follow XState v5's: a transition's domain is its source when every target is
 * the source or inside it and the transition does not re-enter, else the least common
 * ancestor of source and targets; leaving the domain's active descendants and entering
 * the targets (with their initial children, and every region of a parallel state).
 */
import type { AnyStateMachine, AnyStateNode, AnyTransitionDefinition, StateValue } from "xstate";

/** A set of active state nodes (always closed upwards: a node's parent is in it too). */
export type Configuration = ReadonlySet<AnyStateNode>;

function childrenOf(node: AnyStateNode): AnyStateNode[] {
  return Object.values(node.states as Record<string, AnyStateNode>);
}

function isDescendant(node: AnyStateNode, ancestor: AnyStateNode): boolean {
  for (let parent = node.parent; parent; parent = parent.parent) if (parent === ancestor) return true;
  return false;
}

/**
 * The active nodes of `value` in `machine`. Throws a `RangeError` naming the part of the
 * value that is no state of the definition.
 */
export function configurationOf(machine: AnyStateMachine, value: StateValue): Configuration {
  const active = new Set<AnyStateNode>();
  const visit = (node: AnyStateNode, part: StateValue | undefined): void => {
    active.add(node);
    if (node.type === "atomic" || node.type === "final" || node.type === "history") return;
    if (part === undefined) throw new RangeError(`state "${node.id}" is compound but the value names none of its children`);
    const entries: [string, StateValue | undefined][] = typeof part === "string" ? [[part, undefined]] : Object.entries(part);
    if (node.type === "compound" && entries.length !== 1) {
      throw new RangeError(`state "${node.id}" is compound but the value names ${entries.length} children`);
    }
    for (const [key, sub] of entries) {
      const child = (node.states as Record<string, AnyStateNode>)[key];
      if (!child) throw new RangeError(`"${key}" is not a child of state "${node.id}"`);
      visit(child, sub);
    }
    if (node.type === "parallel" && entries.length !== childrenOf(node).length) {
      throw new RangeError(`parallel state "${node.id}" needs a value for each of its regions`);
    }
  };
  visit(machine.root, value);
  return active;
}

/** The state value of a configuration (the inverse of {@link configurationOf}). */
export function valueOf(configuration: Configuration, root: AnyStateNode): StateValue {
  const build = (node: AnyStateNode): StateValue => {
    const active = childrenOf(node).filter((child) => configuration.has(child));
    if (node.type === "parallel") return Object.fromEntries(active.map((child) => [child.key, build(child)]));
    const [child] = active;
    if (!child) return {};
    const isLeaf = child.type === "atomic" || child.type === "final" || child.type === "history";
    return isLeaf ? child.key : { [child.key]: build(child) };
  };
  return build(root);
}

/** A canonical string for a state value (object keys sorted), for comparison and for sets. */
export function valueKey(value: StateValue): string {
  if (typeof value === "string") return JSON.stringify(value);
  const keys = Object.keys(value).sort();
  return `{${keys.map((key) => `${JSON.stringify(key)}:${valueKey((value as Record<string, StateValue>)[key] as StateValue)}`).join(",")}}`;
}

/** Adds `node`'s default entry: its initial child (compound) or every region (parallel), recursively. */
function enterDefault(node: AnyStateNode, into: Set<AnyStateNode>): void {
  into.add(node);
  if (node.type === "compound") {
    const initial = node.initial?.target?.[0] as AnyStateNode | undefined;
    const child = initial ?? childrenOf(node)[0];
    if (child) {
      // An initial target deeper than a child enters the path down to it.
      const path: AnyStateNode[] = [];
      for (let step: AnyStateNode | undefined = child; step && step !== node; step = step.parent) path.unshift(step);
      for (const step of path.slice(0, -1)) into.add(step);
      enterDefault(child, into);
    }
  } else if (node.type === "parallel") {
    for (const region of childrenOf(node)) if (![...into].some((n) => n === region || isDescendant(n, region))) enterDefault(region, into);
  }
}

/** The configuration a machine enters at start, before any eventless step: the root's default entry. */
export function initialConfiguration(machine: AnyStateMachine): Configuration {
  const active = new Set<AnyStateNode>();
  enterDefault(machine.root, active);
  complete(active);
  return active;
}

/** Completes a configuration: every active compound state has an active child, every active parallel state all its regions. */
function complete(active: Set<AnyStateNode>): void {
  for (const node of [...active]) {
    if (node.type !== "compound" && node.type !== "parallel") continue;
    for (const child of childrenOf(node)) {
      if (active.has(child)) continue;
      if (node.type === "parallel") {
        enterDefault(child, active);
        complete(active);
        return;
      }
    }
    if (node.type === "compound" && !childrenOf(node).some((child) => active.has(child))) {
      enterDefault(node, active);
      complete(active);
      return;
    }
  }
}

function domainOf(transition: AnyTransitionDefinition): AnyStateNode {
  const source = transition.source as AnyStateNode;
  const targets = (transition.target ?? []) as AnyStateNode[];
  if (!transition.reenter && targets.every((target) => target === source || isDescendant(target, source))) return source;
  for (let ancestor = source.parent; ancestor; ancestor = ancestor.parent) {
    if (targets.every((target) => isDescendant(target, ancestor as AnyStateNode))) return ancestor;
  }
  return source.machine.root;
}

/**
 * The configuration after `transition` is taken in `configuration`. A targetless
 * transition leaves it as it is.
 */
export function takeTransition(configuration: Configuration, transition: AnyTransitionDefinition): Configuration {
  const targets = (transition.target ?? []) as AnyStateNode[];
  if (targets.length === 0) return configuration;
  const domain = domainOf(transition);
  const next = new Set([...configuration].filter((node) => !isDescendant(node, domain)));
  next.add(domain);
  for (const target of targets) {
    for (let step: AnyStateNode | undefined = target; step && step !== domain; step = step.parent) next.add(step);
    enterDefault(target, next);
  }
  complete(next);
  return next;
}

/** The transitions the definition offers for `eventType` from the active nodes, guards not evaluated. */
export function transitionsOn(configuration: Configuration, eventType: string): AnyTransitionDefinition[] {
  const found: AnyTransitionDefinition[] = [];
  for (const node of configuration) {
    found.push(...((node.transitions.get(eventType) ?? []) as AnyTransitionDefinition[]));
    if (eventType !== "xstate.init") found.push(...((node.transitions.get("*") ?? []) as AnyTransitionDefinition[]));
  }
  return found;
}

/**
 * The internal steps a macrostep may take after its event: eventless transitions,
 * a compound or parallel state's `onDone` once it is done, and the events the
 * definition raises without a delay (`raisedEvents`).
 */
function internalSteps(configuration: Configuration, raisedEvents: ReadonlySet<string>): AnyTransitionDefinition[] {
  const steps: AnyTransitionDefinition[] = [];
  for (const node of configuration) {
    steps.push(...((node.always ?? []) as AnyTransitionDefinition[]));
    if (isDone(node, configuration)) steps.push(...((node.transitions.get(`xstate.done.state.${node.id}`) ?? []) as AnyTransitionDefinition[]));
  }
  for (const eventType of raisedEvents) steps.push(...transitionsOn(configuration, eventType));
  return steps;
}

function isDone(node: AnyStateNode, configuration: Configuration): boolean {
  if (node.type === "compound") return childrenOf(node).some((child) => child.type === "final" && configuration.has(child));
  if (node.type === "parallel") return childrenOf(node).every((region) => isDone(region, configuration));
  return false;
}

/** The most internal steps one macrostep is followed through (a bound against cycles of eventless transitions). */
export const MACROSTEP_DEPTH = 64;

/**
 * Every configuration a macrostep can end in: `eventType`'s transitions from
 * `configuration` (or none, for `xstate.init`, which starts from the configuration as
 * given), each followed by any chain of internal steps. Guards are not evaluated, so
 * this is every configuration some guard outcome could give. Keyed by state value.
 */
export function macrostepTargets(
  machine: AnyStateMachine,
  configuration: Configuration,
  eventType: string | undefined,
  raisedEvents: ReadonlySet<string>,
): Map<string, Configuration> {
  const start = eventType === undefined ? [configuration] : transitionsOn(configuration, eventType).map((t) => takeTransition(configuration, t));
  const seen = new Map<string, Configuration>();
  let frontier = start;
  for (let depth = 0; depth <= MACROSTEP_DEPTH && frontier.length > 0; depth += 1) {
    const next: Configuration[] = [];
    for (const current of frontier) {
      const key = valueKey(valueOf(current, machine.root));
      if (seen.has(key)) continue;
      seen.set(key, current);
      for (const step of internalSteps(current, raisedEvents)) next.push(takeTransition(current, step));
    }
    frontier = next;
  }
  return seen;
}

/** The event types the definition raises without a delay (delayed ones arrive as their own macrostep). */
export function raisedEventTypes(machine: AnyStateMachine): Set<string> {
  const found = new Set<string>();
  const visitAction = (action: unknown): void => {
    if (typeof action !== "function" && (typeof action !== "object" || action === null)) return;
    const candidate = action as { type?: unknown; event?: unknown; delay?: unknown };
    if (candidate.type === "xstate.raise" && candidate.delay === undefined && typeof candidate.event === "object" && candidate.event !== null) {
      const type = (candidate.event as { type?: unknown }).type;
      if (typeof type === "string") found.add(type);
    }
  };
  const visit = (node: AnyStateNode): void => {
    for (const action of [...(node.entry ?? []), ...(node.exit ?? [])]) visitAction(action);
    for (const branches of node.transitions.values()) for (const t of branches as AnyTransitionDefinition[]) for (const action of t.actions ?? []) visitAction(action);
    for (const t of (node.always ?? []) as AnyTransitionDefinition[]) for (const action of t.actions ?? []) visitAction(action);
    childrenOf(node).forEach(visit);
  };
  visit(machine.root);
  // Named actions resolve through the implementations.
  for (const action of Object.values((machine.implementations?.actions ?? {}) as Record<string, unknown>)) visitAction(action);
  return found;
}
