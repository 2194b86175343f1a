/** A plain JSON description of a machine definition, for the viewer's charts. */
import type { AnyStateMachine, AnyStateNode } from "xstate";
import { machineTransitions } from "../model-check/machine-transitions.js";

/** One state of a {@link MachineDescription}; `path` is the dotted key path from the root ("" for the root). */
export interface StateDescription {
  key: string;
  path: string;
  type: string;
  initial?: string;
  states: StateDescription[];
}

/** A transition: from the state at `source`, on `event`, guarded by `guard`, to `targets` (paths; empty = targetless). */
export interface TransitionDescription {
  source: string;
  event: string;
  guard?: string;
  targets: string[];
}

/** What the viewer draws of one machine. */
export interface MachineDescription {
  id: string;
  root: StateDescription;
  transitions: TransitionDescription[];
}

const pathOf = (node: AnyStateNode): string => node.path.join(".");

function describeState(node: AnyStateNode): StateDescription {
  const initial = node.initial?.target?.[0] as AnyStateNode | undefined;
  return {
    key: node.key,
    path: pathOf(node),
    type: node.type,
    ...(initial ? { initial: initial.key } : {}),
    states: Object.values(node.states as Record<string, AnyStateNode>).map(describeState),
  };
}

function guardName(guard: unknown): string | undefined {
  if (guard === undefined) return undefined;
  if (typeof guard === "string") return guard;
  if (typeof guard === "object" && guard !== null && "type" in guard) return String((guard as { type: unknown }).type);
  return "inline guard";
}

/** Describes `machine`: its state tree with initial states and every transition of the definition. Deterministic. */
export function describeMachine(machine: AnyStateMachine): MachineDescription {
  return {
    id: machine.id,
    root: describeState(machine.root),
    transitions: machineTransitions(machine).map(({ definition }) => {
      const guard = guardName(definition.guard as unknown);
      return {
        source: pathOf(definition.source),
        event: definition.eventType ?? "",
        ...(guard ? { guard } : {}),
        targets: ((definition.target as AnyStateNode[] | undefined) ?? []).map(pathOf),
      };
    }),
  };
}
