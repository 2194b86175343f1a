import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { loadTrace } from "../../src/cli/trace-reader.js";
import { recordTrace } from "../../src/inspection/record-trace.js";
import { SAMPLE_BATCH_IDS, recordSampleRun } from "../support/sample-trace-run.js";
import { tempDir } from "../support/temp-dir.js";

describe("recordTrace", () => {
  it("records the agent events and every actor of a run, loadable as a version 3 trace", async () => {
    const file = join(await tempDir("loopchart-trace-"), "run.jsonl");
    await recordSampleRun(file);
    const trace = await loadTrace(file);
    expect(trace.header.version).toBe(3);
    expect(trace.end?.exitReason).toBe("completed");
    const actors = trace.records.flatMap((r) => ("inspect" in r && r.inspect.type === "@xstate.actor" ? [r.inspect] : []));
    // A call's actor is recorded under its place in the batch, with the system id that names its tool call.
    for (const id of [...SAMPLE_BATCH_IDS, "call_d"]) expect(actors.some((a) => a.systemId === `toolCall:${id}` && /^call@\d+$/.test(a.actorId) && a.machineId === "toolCall")).toBe(true);
    const ends = trace.events.filter((l) => l.event.type === "tool_execution_end");
    expect(ends.filter((l) => l.event.type === "tool_execution_end" && l.event.isError).length).toBe(2);
    const states = trace.records.flatMap((r) =>
      "inspect" in r && r.inspect.type === "@xstate.snapshot" && (r.inspect.snapshot.context as { toolCallId?: string } | undefined)?.toolCallId === "call_a" ? [JSON.stringify(r.inspect.snapshot.value)] : [],
    );
    expect(states.some((s) => s.includes("executing"))).toBe(true);
    expect(trace.records.every((r, i, all) => i === 0 || r.t >= all[i - 1].t)).toBe(true);
  });

  it("rejects close() with a write error instead of throwing into the run", async () => {
    const recorder = recordTrace({ file: "/dev/full" });
    for (let i = 0; i < 2_000; i += 1) recorder.onEvent({ type: "turn_start" });
    await expect(recorder.close()).rejects.toThrow(/ENOSPC/);
  });

  it("names file and line of a bad record", async () => {
    const file = join(await tempDir("loopchart-trace-"), "bad.jsonl");
    await writeFile(file, '{"type":"trace_header","version":2,"startedAt":""}\n{"t":1,"inspect":{"type":"@xstate.snapshot","actorId":"x"}}\n');
    await expect(loadTrace(file)).rejects.toThrow(`${file}:line 2: bad inspection line`);
  });
});
