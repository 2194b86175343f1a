/**
 * Issue 30 made the tool-batch and tool-call charts hierarchical. Every
 * transition the flat charts had (captured, all covered by `npm run check:model`,
 * in fixtures/flat-batch-call-transitions.json) must still exist somewhere in the
 * hierarchy: the same event (or a wildcard on a parent that covers it), the same
 * guard, and targets at the state's new place (fixtures/transition-path-map.json)
 * or inside it — declared on the old source's new place or on an ancestor of it
 * (a transition its children shared, now declared once).
 */
import { describe, expect, it } from "vitest";
import type { AnyStateMachine, AnyStateNode } from "xstate";
import { singleCallMachine } from "../../machines/single-call.machine.js";
import { toolBatchMachine } from "../../machines/tool-batch.machine.js";
import { toolCallMachine } from "../../machines/tool-call.machine.js";
import { machineTransitions } from "../../src/model-check/machine-transitions.js";
import flat from "./fixtures/flat-batch-call-transitions.json" with { type: "json" };
import pathMap from "./fixtures/transition-path-map.json" with { type: "json" };

/** A transition as the fixture records it: state paths from the machine's root (`(root)` for the root). */
interface Transition {
  source: string;
  event: string;
  guard: string | null;
  targets: string[];
}

const ROOT = "(root)";
const pathOf = (node: AnyStateNode): string => node.path.join(".") || ROOT;

function transitionsOf(machine: AnyStateMachine): Transition[] {
  return machineTransitions(machine).map(({ definition }) => {
    const guard = definition.guard as unknown;
    return {
      source: pathOf(definition.source),
      event: definition.eventType || "(always)",
      guard: guard === undefined ? null : typeof guard === "string" ? guard : String((guard as { type: unknown }).type),
      targets: (definition.target ?? []).map(pathOf),
    };
  });
}

function statePaths(machine: AnyStateMachine): Set<string> {
  const paths = new Set<string>();
  const visit = (node: AnyStateNode) => {
    paths.add(pathOf(node));
    for (const child of Object.values(node.states as Record<string, AnyStateNode>)) visit(child);
  };
  visit(machine.root);
  return paths;
}

/** `path` is `ancestor` or lies inside it. */
const within = (path: string, ancestor: string) => ancestor === ROOT || path === ancestor || path.startsWith(`${ancestor}.`);

/** A delayed transition's event without the id of its source state (`xstate.after.<delay>.<state id>`): the source is compared on its own. */
const delayOf = (event: string) => (event.startsWith("xstate.after.") ? event.split(".").slice(0, 3).join(".") : event);

/** `descriptor` (an event type, or a wildcard such as `xstate.error.actor.*`) matches the event type `event`. */
const eventMatches = (descriptor: string, event: string) =>
  delayOf(descriptor) === delayOf(event) || (descriptor.endsWith(".*") && event.startsWith(descriptor.slice(0, -1)));

const machines = [
  { name: "toolBatch", machine: toolBatchMachine },
  { name: "toolCall", machine: toolCallMachine },
  { name: "singleCall", machine: singleCallMachine },
] as const;

describe("the hierarchical tool-batch and tool-call charts keep every flat transition", () => {
  for (const { name, machine } of machines) {
    const before = flat[name] as Transition[];
    const moved = pathMap[name] as Record<string, string>;
    const map = (path: string) => moved[path] ?? path;

    it(`${name}: every old state path maps to a state of the new chart`, () => {
      const paths = statePaths(machine);
      const old = new Set(before.flatMap((transition) => [transition.source, ...transition.targets]));
      expect([...old].map(map).filter((path) => !paths.has(path))).toEqual([]);
      expect(Object.values(moved).filter((path) => !paths.has(path))).toEqual([]);
    });

    it(`${name}: every old transition (event, guard, targets) exists at its new place or on an ancestor`, () => {
      const after = transitionsOf(machine);
      const missing = before.filter((old) => {
        const source = map(old.source);
        const targets = old.targets.map(map);
        return !after.some(
          (now) =>
            eventMatches(now.event, old.event) &&
            now.guard === old.guard &&
            within(source, now.source) &&
            now.targets.length === targets.length &&
            now.targets.every((target, index) => within(target, targets[index] as string)),
        );
      });
      expect(missing).toEqual([]);
    });
  }

  it("the fixture is the flat charts' full, covered transition list", () => {
    expect(flat.coverage).toEqual({ toolBatch: "43/43", toolCall: "43/43" });
    expect([flat.toolBatch.length, flat.toolCall.length, flat.singleCall.length]).toEqual([43, 43, 2]);
  });
});
