/**
 * The transitions of a machine definition, one per guarded branch: event
 * transitions (`on`), invoke `onDone`/`onError`, state `onDone`, and eventless
 * (`always`) transitions. Transition objects are shared between the machine's
 * state nodes and the transitions a step takes, so coverage is a set lookup.
 */
import type { AnyStateMachine, AnyStateNode, AnyTransitionDefinition } from "xstate";
import type { CoverageReport } from "./types.js";

/** A transition of the definition with a readable key. */
export interface MachineTransition {
  definition: AnyTransitionDefinition;
  /** e.g. `agentLoop.requesting --model.done--> responseReceived`, `agentLoop.nextTurn --[isAborted]--> done`. */
  key: string;
}

function allStateNodes(node: AnyStateNode): AnyStateNode[] {
  return [node, ...Object.values(node.states as Record<string, AnyStateNode>).flatMap(allStateNodes)];
}

function guardName(definition: AnyTransitionDefinition): string {
  const guard = definition.guard as unknown;
  if (guard === undefined) return "";
  if (typeof guard === "string") return guard;
  if (typeof guard === "object" && guard !== null && "type" in guard) return String((guard as { type: unknown }).type);
  return "inline guard";
}

function describe(definition: AnyTransitionDefinition, branch: number): string {
  const source = definition.source.id;
  const event = definition.eventType ? `--${definition.eventType}-->` : "--(always)-->";
  const guard = guardName(definition);
  const targets = definition.target?.length
    ? definition.target.map((target: AnyStateNode) => target.key).join(",")
    : "(self)";
  return `${source} ${event} ${guard ? `[${guard}] ` : ""}${targets} #${branch}`;
}

/** Every transition of `machine`'s definition. */
export function machineTransitions(machine: AnyStateMachine): MachineTransition[] {
  const result: MachineTransition[] = [];
  for (const node of allStateNodes(machine.root)) {
    for (const branches of node.transitions.values()) {
      branches.forEach((definition: AnyTransitionDefinition, index: number) =>
        result.push({ definition, key: describe(definition, index) }),
      );
    }
    (node.always ?? []).forEach((definition: AnyTransitionDefinition, index: number) =>
      result.push({ definition, key: describe(definition, index) }),
    );
  }
  return result;
}

/** Coverage of `taken` over the transitions of `machine`'s definition. */
export function coverageOf(machine: AnyStateMachine, taken: Set<AnyTransitionDefinition>): CoverageReport {
  const all = machineTransitions(machine);
  const uncovered = all.filter((transition) => !taken.has(transition.definition)).map((transition) => transition.key);
  return { machine: machine.id, transitions: all.length, covered: all.length - uncovered.length, uncovered };
}

