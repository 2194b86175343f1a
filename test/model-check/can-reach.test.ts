/**
 * Chart queries (issue 36 item 3): `canReach` answers with a witness — the world events from
 * the start — for approval and for every exit reason, and reports a state made unreachable
 * in a test machine as unreachable; `explorePaths` lists paths.
 */
import { describe, expect, it } from "vitest";
import { agentLoopMachine } from "../../machines/index.js";
import { canReach, explorePaths } from "../../src/model-check/can-reach.js";
import { defaultModelCheckConfigurations } from "../../src/model-check/check-agent-loop.js";
import type { ExitReason } from "../../src/types.js";

const exitIs = (reason: ExitReason) => (state: { loop: { status: string; output?: unknown } }) =>
  state.loop.status === "done" && (state.loop.output as { exitReason?: string } | undefined)?.exitReason === reason;

describe("canReach", { timeout: 120_000 }, () => {
  it("should find a witness for a call awaiting approval, in a configuration that asks for approval", () => {
    const answer = canReach(agentLoopMachine, "awaitingApproval");
    expect(answer.reachable).toBe(true);
    expect(answer.configuration).toContain("approvals");
    expect(answer.path.length).toBeGreaterThan(0);
    // The witness starts with the model answering with a tool call.
    expect(answer.path.some((event) => /call/i.test(event))).toBe(true);
  });

  const EXITS: ExitReason[] = ["completed", "terminated", "stopped", "maxTurns", "invalidCalls", "budget", "error", "aborted"];
  for (const reason of EXITS) {
    it(`should find a witness for a run that ends ${reason}`, () => {
      const answer = canReach(agentLoopMachine, exitIs(reason));
      expect(answer.reachable, `no witness for ${reason}`).toBe(true);
      expect(answer.path.length).toBeGreaterThan(0);
    });
  }

  it("should answer unreachable for a state a test machine cannot enter, and say the search was not cut by a bound", () => {
    // maxTurns is the only way to the maxTurns exit; with the guard never true it cannot be reached.
    const never = agentLoopMachine.provide({ guards: { reachedMaxTurns: () => false } } as never);
    const configurations = defaultModelCheckConfigurations(1).filter((configuration) => configuration.name.startsWith("no hooks"));
    expect(configurations).toHaveLength(1);
    const shipped = canReach(agentLoopMachine, exitIs("maxTurns"), { turns: 1, configurations });
    expect(shipped.reachable).toBe(true);
    const answer = canReach(never, exitIs("maxTurns"), { turns: 1, configurations });
    expect(answer).toMatchObject({ reachable: false, path: [], bounded: false });
    expect(answer.states).toBeGreaterThan(10);
  });

  it("should give the shortest witness: no path to the target is shorter", () => {
    const configurations = defaultModelCheckConfigurations(1).filter((configuration) => configuration.name.startsWith("no hooks"));
    const answer = canReach(agentLoopMachine, exitIs("completed"), { turns: 1, configurations });
    const paths = explorePaths(agentLoopMachine, { turns: 1, configurations, maxDepth: answer.path.length, filter: exitIs("completed") as never });
    expect(paths.length).toBeGreaterThan(0);
    expect(Math.min(...paths.map((path) => path.events.length))).toBe(answer.path.length);
  });
});

describe("explorePaths", () => {
  it("should list paths that end the run, each a sequence of world events", () => {
    const configurations = defaultModelCheckConfigurations(1).filter((configuration) => configuration.name.startsWith("no hooks"));
    const paths = explorePaths(agentLoopMachine, { turns: 1, configurations, maxPaths: 50 });
    expect(paths.length).toBeGreaterThan(1);
    expect(paths.length).toBeLessThanOrEqual(50);
    for (const path of paths) expect(path.events.length).toBeGreaterThan(0);
    expect(new Set(paths.map((path) => path.events.join(" "))).size).toBe(paths.length);
  });
});
