/**
 * The loop chart reads as the seed's cycle: its top level is a handful of states
 * (requesting, dispatching, appending, betweenTurns, done), the hook plumbing is
 * nested, shared handling is declared once on the compound regions, and nothing
 * the flat chart did was lost: every transition of the flat chart (as the model
 * check covered it, test/fixtures/flat-loop-transitions.json) still exists
 * somewhere in the hierarchy.
 */
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import type { AnyStateNode, AnyTransitionDefinition } from "xstate";
import { agentLoopMachine } from "../../machines/agent-loop.machine.js";
import { FLAT_STATE_PATHS } from "../../src/flat-chart-snapshot.js";
import { machineTransitions } from "../../src/model-check/machine-transitions.js";

const MAX_TOP_LEVEL_STATES = 7;

interface Row {
  source: string;
  event: string;
  guard: string;
  target: string;
}

const flat = JSON.parse(readFileSync(new URL("../fixtures/flat-loop-transitions.json", import.meta.url), "utf8")) as { transitions: Row[] };

const guardName = (definition: AnyTransitionDefinition): string => {
  const guard = definition.guard as unknown;
  if (guard === undefined) return "";
  if (typeof guard === "string") return guard;
  if (typeof guard === "object" && guard !== null && "type" in guard) return String((guard as { type: unknown }).type);
  return "inline guard";
};

/** Every transition of the hierarchical chart, its source and target as dotted paths from the root ("" is the root). */
const hierarchical: Row[] = machineTransitions(agentLoopMachine).map(({ definition }) => ({
  source: definition.source.path.join("."),
  event: definition.eventType || "(always)",
  guard: guardName(definition),
  target: definition.target?.length ? definition.target.map((target: AnyStateNode) => target.path.join(".")).join(",") : "(self)",
}));

/** A flat state's path in the hierarchy (the flat machine's root is the root). */
const pathOf = (flatState: string): string => (flatState === "agentLoop" ? "" : (FLAT_STATE_PATHS[flatState] ?? `(no mapping for ${flatState})`));

/**
 * Flat transitions whose event moved, by the flat source and event: the batch's
 * done event now leads to `appending`, whose eventless branches make the choice
 * the done event's branches made.
 */
const MOVED: Readonly<Record<string, { source: string; event: string }>> = {
  "toolBatch xstate.done.actor.toolBatch": { source: "appending", event: "(always)" },
};

/** Whether a hierarchical transition declared on `source` with `event` handles the flat `row` (same source or an ancestor; the same event or a wildcard covering it). */
function handles(candidate: Row, source: string, event: string): boolean {
  const sourceCovers = candidate.source === source || candidate.source === "" || source.startsWith(`${candidate.source}.`);
  const eventCovers = candidate.event === event || (candidate.event.endsWith(".*") && event.startsWith(candidate.event.slice(0, -1)));
  return sourceCovers && eventCovers;
}

describe("the hierarchical loop chart", () => {
  it("has at most seven top-level states, reading as the seed's cycle", () => {
    const top = Object.keys(agentLoopMachine.root.states);
    expect(top.length).toBeLessThanOrEqual(MAX_TOP_LEVEL_STATES);
    expect(top).toEqual(expect.arrayContaining(["requesting", "dispatching", "appending", "betweenTurns", "done"]));
    expect(agentLoopMachine.root.states.done?.type).toBe("final");
    expect(agentLoopMachine.root.initial?.target[0]?.key).toBe("requesting");
    // The hook plumbing is nested, not at the top.
    for (const plumbing of ["pollingInitialSteering", "injectingPending", "checkingStop", "afterTurn", "pollingSteering", "wouldEnd", "pollingFollowUp", "nextTurn"]) {
      expect(top).not.toContain(plumbing);
    }
  });

  it("declares run.abandon and a failing hook's error once on each compound region; only children that differ override them", () => {
    const declaredOn = (event: string) =>
      hierarchical
        .filter((row) => row.event === event)
        .map((row) => row.source)
        .filter((source, index, all) => all.indexOf(source) === index)
        .sort();
    expect(declaredOn("run.abandon")).toEqual([
      "betweenTurns",
      // finishTurn runs before turn_end (it emits it), and the hint runs no user code (no warning).
      "betweenTurns.finishingTurn",
      "betweenTurns.hintingInvalidCall",
      // The batch (or the direct path's lone call) and the model request are told to give up instead of being left.
      "dispatching.alone",
      "dispatching.batch",
      "requesting",
      "requesting.awaitingResponse",
    ]);
    expect(declaredOn("xstate.error.actor.*")).toEqual(["betweenTurns", "requesting"]);
    // finishTurn's failure keeps its own branches (a failed response stays a hard exit).
    expect(hierarchical.filter((row) => row.event.startsWith("xstate.error.actor.") && row.event !== "xstate.error.actor.*").map((row) => row.source)).toEqual([
      "betweenTurns.finishingTurn",
      "betweenTurns.finishingTurn",
    ]);
    // run.abort is declared on the machine (and on dispatching's children, which pass it to the batch or the lone call), nowhere else.
    expect(declaredOn("run.abort")).toEqual(["", "dispatching.alone", "dispatching.batch"]);
  });

  it("maps every flat state to a state of the hierarchy", () => {
    const paths = new Set<string>();
    const visit = (node: AnyStateNode) => {
      paths.add(node.path.join("."));
      for (const child of Object.values(node.states as Record<string, AnyStateNode>)) visit(child);
    };
    visit(agentLoopMachine.root);
    const flatStates = new Set(flat.transitions.flatMap((row) => [row.source, ...row.target.split(",")]).filter((name) => name !== "agentLoop" && name !== "(self)"));
    for (const name of flatStates) expect(paths, name).toContain(pathOf(name));
  });

  it("keeps every transition of the flat chart somewhere in the hierarchy (event, guard and target; the source or an ancestor)", () => {
    expect(flat.transitions).toHaveLength(76);
    const missing = flat.transitions.filter((row) => {
      const moved = MOVED[`${row.source} ${row.event}`];
      const source = moved?.source ?? pathOf(row.source);
      const event = moved?.event ?? row.event;
      const target = row.target === "(self)" ? "(self)" : row.target.split(",").map(pathOf).join(",");
      return !hierarchical.some((candidate) => handles(candidate, source, event) && candidate.guard === row.guard && candidate.target === target);
    });
    expect(missing).toEqual([]);
  });
});
