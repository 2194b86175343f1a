/**
 * Snapshots across the change to the hierarchical chart: a persisted snapshot the
 * flat chart wrote (test/fixtures/flat-chart-snapshots.json, taken from three runs
 * of loopchart at 7ee439c) is restored with its state mapped, and the run ends as
 * the uninterrupted run does; a session record of format version 1 is read as a
 * version-2 record with its snapshot mapped.
 */
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { Type } from "typebox";
import { createAgentLoopActor } from "../../src/xstate/index.js";
import { FLAT_STATE_PATHS, isFlatChartSnapshot, upgradeFlatChartSnapshot } from "../../src/flat-chart-snapshot.js";
import { checkRecord } from "../../src/sessions/session-record.js";
import { SESSION_FORMAT_VERSION } from "../../src/sessions/session-store.js";
import type { AgentLoopConfig, AgentMessage, AgentTool, StreamFn } from "../../src/types.js";
import { baseConfig, mockStream, type MockResponse } from "../helpers/mock-stream.js";
import { sampleRecord } from "../sessions/store-fixtures.js";

interface FlatRun {
  scenario: string;
  exitReason: string;
  snapshots: { value: string; status: string }[];
}

const fixture = JSON.parse(readFileSync(new URL("../fixtures/flat-chart-snapshots.json", import.meta.url), "utf8")) as { runs: FlatRun[] };

const parameters = Type.Object({ text: Type.String(), delayMs: Type.Optional(Type.Number()) });
const echo: AgentTool<typeof parameters> = {
  name: "echo",
  label: "Echo",
  description: "Echoes text",
  parameters,
  async execute(_id, args) {
    if (args.delayMs) await new Promise((resolve) => setTimeout(resolve, args.delayMs));
    return { content: [{ type: "text", text: `echo: ${args.text}` }], details: { length: args.text.length } };
  },
};

/** Answers by how many assistant messages the request holds, so a restored run is asked what the original was. */
function turnStream(responses: MockResponse[]): StreamFn {
  return (model, context, options) => {
    const turn = context.messages.filter((message) => message.role === "assistant").length;
    return mockStream([responses[turn] ?? { text: "(script exhausted)" }])(model, context, options);
  };
}

const call = (id: string, text: string, delayMs = 0) => ({ id, name: "echo", arguments: { text, ...(delayMs ? { delayMs } : {}) } });
const later = async <T,>(value: T): Promise<T> => {
  await new Promise((resolve) => setTimeout(resolve, 1));
  return value;
};

/** The runs the fixture's snapshots were taken from (the same scripts and hooks). */
const SCENARIOS: Record<string, { responses: MockResponse[]; config?: Partial<AgentLoopConfig> }> = {
  parallel: { responses: [{ calls: [call("p1", "one", 3), call("p2", "two"), call("p3", "three", 1)] }, { text: "done" }] },
  sequential: { responses: [{ calls: [call("s1", "one", 2), call("s2", "two")] }, { calls: [call("s3", "three")] }, { text: "done" }], config: { toolExecution: "sequential" } },
  hooks: {
    responses: [{ calls: [call("h1", "one", 1)] }, { text: "done" }],
    config: {
      getSteeringMessages: () => later([]),
      getFollowUpMessages: () => later([]),
      shouldStopAfterTurn: () => later(false),
      prepareNextTurn: () => later(undefined),
    } as Partial<AgentLoopConfig>,
  },
};

const comparable = (messages: AgentMessage[]): unknown =>
  JSON.parse(JSON.stringify(messages, (key, value: unknown) => (key === "timestamp" || key === "durationMs" ? undefined : value)));

async function run(name: string, snapshot?: unknown): Promise<{ exitReason: string; messages: AgentMessage[] }> {
  const scenario = SCENARIOS[name] as (typeof SCENARIOS)[string];
  const actor = createAgentLoopActor({
    prompts: [{ role: "user", content: "go", timestamp: 1 }],
    context: { systemPrompt: "test", messages: [], tools: [echo] },
    config: baseConfig(scenario.config),
    streamFn: turnStream(scenario.responses),
    ...(snapshot ? { snapshot: snapshot as never } : {}),
  });
  return new Promise((resolve, reject) => {
    actor.subscribe({ complete: () => resolve(actor.getSnapshot().output as { exitReason: string; messages: AgentMessage[] }), error: reject });
    actor.start();
  });
}

describe("snapshots the flat chart wrote", () => {
  it("holds flat snapshots of the states a run rests in", () => {
    const values = new Set(fixture.runs.flatMap((flatRun) => flatRun.snapshots.map((snapshot) => snapshot.value)));
    expect([...values].sort()).toEqual(["checkingStop", "pollingFollowUp", "pollingInitialSteering", "pollingSteering", "preparingNextTurn", "requesting", "toolBatch"]);
    for (const snapshot of fixture.runs.flatMap((flatRun) => flatRun.snapshots)) expect(isFlatChartSnapshot(snapshot)).toBe(true);
  });

  it("maps a flat state value to its path and leaves a hierarchical snapshot as it is", () => {
    const flatSnapshot = { status: "active", value: "pollingFollowUp", context: { turn: 2 } };
    expect(upgradeFlatChartSnapshot(flatSnapshot)).toEqual({ status: "active", value: { betweenTurns: "pollingFollowUp" }, context: { turn: 2 } });
    expect(flatSnapshot.value).toBe("pollingFollowUp");
    expect(upgradeFlatChartSnapshot({ value: "toolBatch" }).value).toEqual({ dispatching: "batch" });
    expect(upgradeFlatChartSnapshot({ value: "requesting" }).value).toEqual({ requesting: "awaitingResponse" });
    const hierarchical = { value: { requesting: "awaitingResponse" } };
    expect(upgradeFlatChartSnapshot(hierarchical)).toBe(hierarchical);
    expect(upgradeFlatChartSnapshot({ value: "done" }).value).toBe("done");
    expect(Object.keys(FLAT_STATE_PATHS)).toHaveLength(21);
  });

  for (const flatRun of fixture.runs) {
    it(`${flatRun.scenario}: a run restored from each flat snapshot ends as the uninterrupted run does`, async () => {
      const uninterrupted = await run(flatRun.scenario);
      expect(uninterrupted.exitReason).toBe(flatRun.exitReason);
      for (const snapshot of flatRun.snapshots) {
        const restored = await run(flatRun.scenario, snapshot);
        expect({ state: snapshot.value, exitReason: restored.exitReason }).toEqual({ state: snapshot.value, exitReason: flatRun.exitReason });
        expect(comparable(restored.messages)).toEqual(comparable(uninterrupted.messages));
      }
    });
  }

  it("reads a version-1 session record as version 2 with its snapshot mapped", () => {
    const flatSnapshot = (fixture.runs[0] as FlatRun).snapshots.find((snapshot) => snapshot.value === "toolBatch");
    const stored = { ...sampleRecord("s1", { snapshot: flatSnapshot as never }), version: 1 };
    const record = checkRecord(JSON.parse(JSON.stringify(stored)), { path: "s1.json" }, "s1");
    expect(SESSION_FORMAT_VERSION).toBe(2);
    expect(record.version).toBe(SESSION_FORMAT_VERSION);
    expect((record.snapshot as { value: unknown }).value).toEqual({ dispatching: "batch" });
    const current = checkRecord(JSON.parse(JSON.stringify({ ...stored, version: 2, snapshot: record.snapshot })), { path: "s1.json" }, "s1");
    expect((current.snapshot as { value: unknown }).value).toEqual({ dispatching: "batch" });
  });
});
