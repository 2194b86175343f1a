/**
 * Draws a machine definition as a Mermaid `stateDiagram-v2`: every state (compound
 * states as nested blocks), the initial state of each level, and every transition
 * of the definition — one edge per guarded branch, labelled `event [guard]` in plain words
 * (`done` / `error` for an invoked actor's done and error events, `after 5s`: see transition-label.ts)
 * (targetless transitions of the root, such as `run.abort`, are drawn as a self-loop on an
 * `(any state)` node: they are handled wherever the machine is).
 * Deterministic, so generated diagrams can be checked into the repository and
 * compared in tests.
 */
import type { AnyStateMachine, AnyStateNode } from "xstate";
import { machineTransitions } from "../model-check/machine-transitions.js";
import { plainEvent } from "./transition-label.js";

const idOf = (node: AnyStateNode): string => node.id.replace(/[^A-Za-z0-9_]/g, "_");

function children(node: AnyStateNode): AnyStateNode[] {
  return Object.values(node.states as Record<string, AnyStateNode>);
}

function declare(node: AnyStateNode, indent: string, lines: string[]): void {
  for (const child of children(node)) {
    const id = idOf(child);
    lines.push(`${indent}state "${child.key}" as ${id}`);
    if (children(child).length > 0) {
      lines.push(`${indent}state ${id} {`);
      declare(child, `${indent}  `, lines);
      lines.push(`${indent}}`);
    }
    if (child.type === "final") lines.push(`${indent}${id} --> [*]`);
  }
  const initial = node.initial?.target?.[0] as AnyStateNode | undefined;
  if (initial) lines.push(`${indent}[*] --> ${idOf(initial)}`);
}

/** The Mermaid source of `machine`'s statechart. */
export function toMermaid(machine: AnyStateMachine): string {
  const lines = ["stateDiagram-v2"];
  declare(machine.root, "  ", lines);
  const anyState = `${idOf(machine.root)}__any`;
  let anyDeclared = false;
  /** Source and event of the guarded branches seen so far: an unguarded branch after them reads `[else]`. */
  const guarded = new Set<string>();
  for (const { definition } of machineTransitions(machine)) {
    const guard = definition.guard as unknown;
    const branchKey = `${definition.source.id}\u0000${definition.eventType ?? ""}`;
    const fallback = guard === undefined && guarded.has(branchKey);
    if (guard !== undefined) guarded.add(branchKey);
    const guardText =
      guard === undefined
        ? ""
        : typeof guard === "string"
          ? guard
          : typeof guard === "object" && guard !== null && "type" in guard
            ? String((guard as { type: unknown }).type)
            : "inline guard";
    const event = plainEvent(definition.eventType ?? "");
    const label = [event, guardText ? `[${guardText}]` : fallback ? "[else]" : ""].filter(Boolean).join(" ");
    const targets = (definition.target as AnyStateNode[] | undefined) ?? [];
    if (definition.source === machine.root && targets.length === 0) {
      if (!anyDeclared) lines.push(`  state "(any state)" as ${anyState}`);
      anyDeclared = true;
      lines.push(`  ${anyState} --> ${anyState}${label ? `: ${label}` : ""}`);
      continue;
    }
    const source = idOf(definition.source);
    for (const target of targets.length > 0 ? targets : [definition.source]) {
      lines.push(`  ${source} --> ${idOf(target)}${label ? `: ${label}` : ""}`);
    }
  }
  return `${lines.join("\n")}\n`;
}
