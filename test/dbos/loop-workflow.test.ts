import { readFileSync, rmSync } from "node:fs";
import { join } from "node:path";
import { DBOS } from "@dbos-inc/dbos-sdk";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { agentLoop } from "../../src/agent-loop.js";
import { EVENTS_STREAM_KEY, registerLoopWorkflow, type DbosLoop, type DbosRunInput, type DbosStreamedEvent } from "../../src/dbos/index.js";
import type { AgentMessage } from "../../src/types.js";
import { fixtureRun } from "../support/dbos-fixture.js";
import { hasPostgres, startPostgres, type TestPostgres } from "../support/postgres.js";
import { tempDirSync } from "../support/temp-dir.js";

/** The transcript without wall-clock fields (timestamps, tool durations). */
export function comparable(messages: AgentMessage[]): unknown {
  return JSON.parse(JSON.stringify(messages, (key, value: unknown) => (key === "timestamp" || key === "durationMs" ? 0 : value)));
}

describe.skipIf(!hasPostgres())("a run as a DBOS workflow (skipped when Debian's postgresql is not installed)", () => {
  let pg: TestPostgres;
  let loop: DbosLoop;
  let dir: string;

  beforeAll(async () => {
    pg = await startPostgres("dbos_loop");
    dir = tempDirSync("loopchart-dbos-");
    DBOS.setConfig({ name: "loopchart-test", systemDatabaseUrl: pg.url, logLevel: "error" });
    loop = registerLoopWorkflow({ createRun: fixtureRun });
    await DBOS.launch();
  }, 60_000);

  afterAll(async () => {
    await DBOS.shutdown();
    pg?.stop();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it("should produce the same transcript as the plain loop, one checkpointed step per request and per call", async () => {
    const input: DbosRunInput = { prompt: [{ role: "user", content: "t1", timestamp: 1 }], meta: { counterDir: dir, slowMs: "20" } };
    const plainSetup = fixtureRun({ ...input, meta: { counterDir: tempDirSync("loopchart-plain-"), slowMs: "20" } });
    const plain = agentLoop(input.prompt as AgentMessage[], { systemPrompt: "", messages: [], tools: plainSetup.tools ?? [] }, plainSetup.config, undefined, plainSetup.streamFn);
    const plainMessages = await plain.result();

    const handle = await loop.start(input, { workflowID: "same-transcript" });
    const output = await handle.getResult();
    expect(comparable(output.messages)).toEqual(comparable(plainMessages));
    expect(output.messages.filter((m) => m.role === "toolResult").map((m) => (m as { toolCallId: string }).toolCallId)).toEqual(["t1-a", "t1-b", "t1-c"]);

    const steps = (await DBOS.listWorkflowSteps("same-transcript")) ?? [];
    expect(steps.map((s) => s.name)).toEqual([
      "loopchart.model",
      "loopchart.tool.start",
      "loopchart.tool.slow_write",
      "loopchart.tool.quick_read",
      "loopchart.tool.start",
      "loopchart.tool.slow_write",
      "loopchart.model",
      "loopchart.events.close",
    ]);
    // Each slow call ran exactly once; the two run in parallel, so the file holds them in completion order.
    expect(readFileSync(join(dir, "slow_write.count"), "utf8").trim().split("\n").sort()).toEqual(["t1-a", "t1-c"]);
  });

  it("should stream the run's events to a reader in another context, ending with agent_end", async () => {
    const handle = await loop.start({ prompt: [{ role: "user", content: "t2", timestamp: 1 }], meta: { counterDir: dir, slowMs: "5" } });
    const seen: DbosStreamedEvent[] = [];
    for await (const item of DBOS.readStream<DbosStreamedEvent>(handle.workflowID, EVENTS_STREAM_KEY)) seen.push(item);
    await handle.getResult();
    const types = seen.map((s) => s.event.type);
    expect(types[0]).toBe("agent_start");
    expect(types.at(-1)).toBe("agent_end");
    expect(types.filter((t) => t === "tool_execution_end")).toHaveLength(3);
    expect(seen.map((s) => s.seq)).toEqual(seen.map((_, i) => i));
  });
});
