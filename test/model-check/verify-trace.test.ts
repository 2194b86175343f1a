/**
 * Trace conformance (issue 36 item 4): traces that real runs write are paths of the chart,
 * for every exit reason; hand-tampered traces are not, and the first bad step is named by
 * its line.
 */
import {  readFile, rm, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Type } from "typebox";
import { setup } from "xstate";
import { agentLoopMachine } from "../../machines/index.js";
import { recordTrace } from "../../src/inspection/record-trace.js";
import { runAgentLoop } from "../../src/index.js";
import { formatTraceVerification, verifyTrace } from "../../src/model-check/verify-trace.js";
import type { AgentLoopConfig, AgentTool, ExitReason } from "../../src/types.js";
import { baseConfig, mockStream, user, type MockResponse } from "../helpers/mock-stream.js";
import { recordSampleRun } from "../support/sample-trace-run.js";
import { tempDir } from "../support/temp-dir.js";

const parameters = Type.Object({ text: Type.String() });
const echo = (terminate = false): AgentTool<typeof parameters> => ({
  name: "echo",
  label: "Echo",
  description: "Echoes",
  parameters,
  execute: async (_id, args) => ({ content: [{ type: "text", text: args.text }], details: {}, ...(terminate ? { terminate: true } : {}) }),
});
const call = (id: string, name = "echo") => ({ id, name, arguments: { text: id } });

interface Scenario {
  exit: ExitReason;
  responses: MockResponse[];
  config?: Partial<AgentLoopConfig>;
  tools?: AgentTool<typeof parameters>[];
  abortAfterMs?: number;
}

const SCENARIOS: Scenario[] = [
  { exit: "completed", responses: [{ calls: [call("a"), call("b")] }, { text: "done" }] },
  { exit: "terminated", responses: [{ calls: [call("a")] }], tools: [echo(true)] },
  { exit: "stopped", responses: [{ calls: [call("a")] }, { text: "never" }], config: { shouldStopAfterTurn: () => true } },
  { exit: "maxTurns", responses: [{ calls: [call("a")] }, { calls: [call("b")] }, { text: "never" }], config: { maxTurns: 1 } },
  { exit: "budget", responses: [{ calls: [call("a")], costUsd: 2 }, { text: "never" }], config: { budget: { costUsd: 1 } } },
  // The breaker counts the same invalid call (tool and arguments) made again.
  { exit: "invalidCalls", responses: [{ calls: ["a", "b", "c"].map((id) => ({ id, name: "nope", arguments: { text: "same" } })) }, { text: "never" }] },
  { exit: "error", responses: [{ stopReason: "error", errorMessage: "boom" }] },
  { exit: "aborted", responses: [{ hang: true }], abortAfterMs: 20 },
];

let dir: string;
beforeAll(async () => {
  dir = await tempDir("loopchart-verify-trace-");
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

async function recordScenario(scenario: Scenario): Promise<string> {
  const file = join(dir, `${scenario.exit}.jsonl`);
  const recorder = recordTrace({ file });
  const controller = new AbortController();
  if (scenario.abortAfterMs !== undefined) setTimeout(() => controller.abort(), scenario.abortAfterMs);
  await runAgentLoop(
    [user("go")],
    { systemPrompt: "", messages: [], tools: scenario.tools ?? [echo()] },
    baseConfig({ ...scenario.config, inspect: recorder.inspect }),
    recorder.onEvent,
    controller.signal,
    mockStream(scenario.responses),
  );
  await recorder.close();
  return file;
}

/** Rewrites line `line` (1-based) of a trace with `change`, or drops it when `change` returns undefined. */
async function tamper(source: string, name: string, pick: (record: Record<string, unknown>) => boolean, change: (record: Record<string, unknown>) => Record<string, unknown> | undefined) {
  const lines = (await readFile(source, "utf8")).split("\n").slice(0, -1);
  const index = lines.findIndex((line) => pick(JSON.parse(line) as Record<string, unknown>));
  expect(index).toBeGreaterThan(0);
  const changed = change(JSON.parse(lines[index] as string) as Record<string, unknown>);
  const out = changed === undefined ? [...lines.slice(0, index), ...lines.slice(index + 1)] : lines.map((line, i) => (i === index ? JSON.stringify(changed) : line));
  const file = join(dir, name);
  await writeFile(file, `${out.join("\n")}\n`);
  return { file, line: index + 1 };
}

type Inspect = { type?: string; sessionId?: string; machineId?: string; event?: { type?: string }; snapshot?: { value?: unknown; status?: string } };
const inspectOf = (record: Record<string, unknown>) => record.inspect as Inspect | undefined;

/** Picks the loop actor's snapshot lines: the first taken on `eventType`, or (`"last"`) its final one. */
async function loopSnapshot(source: string, which: { eventType: string } | "last") {
  const records = (await readFile(source, "utf8")).split("\n").slice(0, -1).map((line) => JSON.parse(line) as Record<string, unknown>);
  const loop = records.map(inspectOf).find((inspect) => inspect?.type === "@xstate.actor" && inspect.machineId === "agentLoop")?.sessionId;
  const snapshots = records.filter((record) => inspectOf(record)?.type === "@xstate.snapshot" && inspectOf(record)?.sessionId === loop);
  const chosen = which === "last" ? snapshots.at(-1) : snapshots.find((record) => inspectOf(record)?.event?.type === which.eventType);
  return (record: Record<string, unknown>) => record === chosen || JSON.stringify(record) === JSON.stringify(chosen);
}

describe("verifyTrace", () => {
  for (const scenario of SCENARIOS) {
    it(`should find a recorded run that ends ${scenario.exit} to be a path of the chart`, async () => {
      const file = await recordScenario(scenario);
      const text = await readFile(file, "utf8");
      expect(text).toContain(`"exitReason":"${scenario.exit}"`);
      const verification = await verifyTrace(file);
      expect(formatTraceVerification(verification, file)).toMatch(/^conforms: /);
      expect(verification.conforms).toBe(true);
      expect(verification.actors).toBeGreaterThanOrEqual(1);
      expect(verification.steps).toBeGreaterThanOrEqual(2);
    });
  }

  it("should check a run whose one-call turns take the direct path (the loop parents the call, no batch)", async () => {
    const file = await recordScenario({ exit: "completed", responses: [{ calls: [call("a")] }, { calls: [call("b")] }, { text: "done" }] });
    const records = (await readFile(file, "utf8")).split("\n").slice(0, -1).map((line) => inspectOf(JSON.parse(line) as Record<string, unknown>));
    const machines = records.filter((inspect) => inspect?.type === "@xstate.actor").map((inspect) => inspect?.machineId);
    expect(machines).toContain("toolCall");
    expect(machines).not.toContain("toolBatch");
    expect(records.some((inspect) => JSON.stringify(inspect?.snapshot?.value) === JSON.stringify({ dispatching: "alone" }))).toBe(true);
    const verification = await verifyTrace(file);
    expect(verification.failure).toBeUndefined();
    // the loop and the two lone calls
    expect(verification.actors).toBeGreaterThanOrEqual(3);
  });

  it("should fail a direct-path trace whose step into dispatching.alone was cut: the lone call's report cannot reach the loop outside it", async () => {
    const source = await recordScenario({ exit: "completed", responses: [{ calls: [call("a")] }, { text: "done" }] });
    const { file, line } = await tamper(source, "direct-cut.jsonl", await loopSnapshot(source, { eventType: "model.done" }), () => undefined);
    const verification = await verifyTrace(file);
    expect(verification.conforms).toBe(false);
    expect(verification.failure).toMatchObject({ machineId: "agentLoop", event: "tool.settled" });
    // The first loop step after the cut one: the lone call's settle.
    expect(verification.failure?.line).toBeGreaterThanOrEqual(line);
    expect(verification.failure?.reason).toMatch(/runs a tool call, so tool\.settled cannot arrive here/);
  });

  it("should check every actor of a parallel, length-truncated run (loop, batches and calls)", async () => {
    const file = join(dir, "sample.jsonl");
    await recordSampleRun(file);
    const verification = await verifyTrace(file);
    expect(verification.failure).toBeUndefined();
    // the loop, its batches and their calls
    expect(verification.actors).toBeGreaterThanOrEqual(5);
    expect(verification.unknownMachines).toEqual([]);
  });

  describe("a tampered trace", () => {
    let source: string;
    beforeAll(async () => {
      source = join(dir, "source.jsonl");
      await recordSampleRun(source);
    });

    it("should fail when a state is skipped (a step of the loop removed), naming the line where the chart breaks", async () => {
      const removed = await tamper(source, "skipped.jsonl", await loopSnapshot(source, { eventType: "model.done" }), () => undefined);
      const verification = await verifyTrace(removed.file);
      expect(verification.conforms).toBe(false);
      // The loop's next step (the first call's settle: the three parallel calls run on the direct path) now starts from the request state, which cannot take it.
      expect(verification.failure).toMatchObject({ machineId: "agentLoop" });
      expect(verification.failure?.event).toBe("tool.settled");
      const lines = (await readFile(removed.file, "utf8")).split("\n");
      const failing = JSON.parse(lines[(verification.failure?.line ?? 0) - 1] as string) as Record<string, unknown>;
      expect(inspectOf(failing)?.event?.type).toBe(verification.failure?.event);
      expect(verification.failure?.line).toBeGreaterThanOrEqual(removed.line);
      expect(formatTraceVerification(verification, removed.file)).toContain(`${removed.file}:${verification.failure?.line}: agentLoop actor`);
    });

    it("should fail when an event is renamed, naming that line", async () => {
      const renamed = await tamper(source, "renamed.jsonl", await loopSnapshot(source, { eventType: "model.done" }), (record) => {
        const inspect = inspectOf(record) as Inspect;
        return { ...record, inspect: { ...inspect, event: { type: "model.bogus" } } };
      });
      const verification = await verifyTrace(renamed.file);
      expect(verification.failure).toMatchObject({ line: renamed.line, event: "model.bogus", machineId: "agentLoop" });
      expect(verification.failure?.reason).toContain("no transition on model.bogus");
    });

    it("should fail when a finished run's loop never reaches a final state", async () => {
      const cut = await tamper(source, "unfinished.jsonl", await loopSnapshot(source, "last"), () => undefined);
      const verification = await verifyTrace(cut.file);
      expect(verification.failure).toMatchObject({ machineId: "agentLoop", event: "agent_end" });
      expect(verification.failure?.reason).toContain("not a final state");
    });

    it("should fail when a call is recorded in a state its chart does not have", async () => {
      const bogus = await tamper(
        source,
        "bogus-state.jsonl",
        (record) => inspectOf(record)?.type === "@xstate.snapshot" && JSON.stringify(inspectOf(record)?.snapshot?.value ?? "").includes("executing"),
        (record) => {
          const inspect = inspectOf(record) as Inspect;
          return { ...record, inspect: { ...inspect, snapshot: { ...inspect.snapshot, value: "daydreaming" } } };
        },
      );
      const verification = await verifyTrace(bogus.file);
      expect(verification.failure).toMatchObject({ line: bogus.line, machineId: "toolCall", to: "daydreaming" });
      expect(verification.failure?.reason).toContain("no configuration of toolCall");
    });
  });

  it("should check a trace against a machine given in place of the shipped one, by id", async () => {
    const file = join(dir, "other.jsonl");
    await recordSampleRun(file);
    // A loop chart with the same id whose one state takes no event: the run's first step is not its transition.
    const other = setup({}).createMachine({ id: "agentLoop", initial: "waiting", states: { waiting: {}, done: { type: "final" } } });
    const verification = await verifyTrace(file, { machines: [other] });
    expect(verification.failure).toMatchObject({ machineId: "agentLoop", event: "xstate.init" });
    // Given only the loop, the calls' and batches' actors are reported as not checked.
    const loopOnly = await verifyTrace(file, { machines: [agentLoopMachine] });
    expect(loopOnly.conforms).toBe(true);
    expect(loopOnly.unknownMachines.sort()).toEqual(["toolBatch", "toolCall"]);
    expect(formatTraceVerification(loopOnly)).toContain("not checked: actors of");
  });
});
