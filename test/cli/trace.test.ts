import { readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { createRedactor, REDACTED } from "../../src/cli/redact.js";
import { TraceFormatError } from "../../src/cli/trace-format-error.js";
import { parseTrace } from "../../src/cli/trace-reader.js";
import { TraceWriter } from "../../src/cli/trace-writer.js";
import { sampleRun } from "./sample-events.js";
import { tempDir } from "../support/temp-dir.js";

async function tempPath(name: string): Promise<string> {
  return join(await tempDir("loopchart-trace-test-"), name);
}

describe("TraceWriter and parseTrace", () => {
  it("should write a header, one line per event and an end line that parse back to the same events", async () => {
    const path = await tempPath("nested/dir/run.jsonl");
    const writer = await TraceWriter.open({
      path,
      redactor: createRedactor(),
      header: { startedAt: "2025-01-01T00:00:00.000Z", model: "scripted/demo", cwd: "/w", argv: ["run", "x"] },
    });
    const events = sampleRun();
    events.forEach((event, index) => writer.write(event, 1000 + index));
    await writer.close({ exitReason: "completed", exitCode: 0 });

    const text = await readFile(path, "utf8");
    const lines = text.trimEnd().split("\n").map((line) => JSON.parse(line) as Record<string, unknown>);
    expect(lines[0]).toMatchObject({ type: "trace_header", version: 3, model: "scripted/demo", cwd: "/w" });
    expect(lines).toHaveLength(events.length + 2);
    expect(lines.at(-1)).toMatchObject({ type: "trace_end", exitReason: "completed", exitCode: 0 });

    const trace = parseTrace(text);
    expect(trace.events.map((line) => line.event)).toEqual(events);
    expect(trace.events.map((line) => line.t)).toEqual(events.map((_, index) => 1000 + index));
    expect(trace.end?.exitCode).toBe(0);
  });

  it("should leave the partial message out of message_update lines", async () => {
    const path = await tempPath("run.jsonl");
    const writer = await TraceWriter.open({ path, redactor: createRedactor(), header: { startedAt: "", model: "m/x", cwd: "/", argv: [] } });
    const update = sampleRun().find((event) => event.type === "message_update");
    if (update === undefined) throw new Error("sample has no message_update");
    writer.write(update, 1);
    await writer.close({ exitCode: 0 });
    const line = (await readFile(path, "utf8")).split("\n")[1];
    expect(line).not.toContain('"partial"');
  });

  it("should redact keys in events and argv", async () => {
    const path = await tempPath("run.jsonl");
    const redactor = createRedactor({ secrets: ["secret-key-0123456"] });
    const writer = await TraceWriter.open({ path, redactor, header: { startedAt: "", model: "m/x", cwd: "/", argv: ["--x", "secret-key-0123456"] } });
    writer.write({ type: "message_start", message: { role: "user", content: "my key is secret-key-0123456 or sk-abcdefghijklmnopqrstu", timestamp: 1 } }, 1);
    await writer.close({ exitCode: 0 });
    const text = await readFile(path, "utf8");
    expect(text).not.toContain("secret-key-0123456");
    expect(text).not.toContain("sk-abcdefghijklmnopqrstu");
    expect(text).toContain(REDACTED);
  });

  it("should read an approval_requested line, and name the line of one without its toolCallId", () => {
    const header = JSON.stringify({ type: "trace_header", version: 1, startedAt: "" });
    const event = { type: "approval_requested", toolCallId: "c1", toolName: "bash", args: { command: "ls" } };
    const trace = parseTrace(`${header}\n${JSON.stringify({ t: 1, event })}\n`);
    expect(trace.events.map((line) => line.event)).toEqual([event]);
    expect(() => parseTrace(`${header}\n{"t":1,"event":{"type":"approval_requested","toolName":"bash"}}\n`)).toThrow(/line 2: bad agent event: event\.toolCallId/);
  });

  it("should name the line of a malformed trace", async () => {
    expect(() => parseTrace('{"t":1,"event":{"type":"agent_start"}}\n')).toThrow(TraceFormatError);
    const header = JSON.stringify({ type: "trace_header", version: 1, startedAt: "", model: "m/x", cwd: "/", argv: [] });
    expect(() => parseTrace(`${header}\n{"t":1,"event":{"type":"agent_start"}}\nnot json\n`)).toThrow(/line 3: not valid JSON/);
    expect(() => parseTrace(`${header}\n{"t":1}\n`)).toThrow(/line 2/);
    expect(() => parseTrace(`${header}\n{"t":1,"event":{"type":"tool_execution_end","toolCallId":"a"}}\n`, "run.jsonl")).toThrow(
      /^run\.jsonl:line 2: bad agent event: event\.toolName/,
    );
    const v2 = JSON.stringify({ type: "trace_header", version: 2, startedAt: "" });
    expect(() => parseTrace(`${v2}\n{"t":1,"inspect":{"type":"@xstate.actor"}}\n`, "x.jsonl")).toThrow(/^x\.jsonl:line 2: bad inspection line: inspect\.actorId/);
    expect(() => parseTrace(`{"type":"trace_header","version":4,"startedAt":""}\n`)).toThrow(/unsupported trace version 4/);
  });

  it("should say a file that is not a trace is not one, even without a newline (not 'the file is empty')", () => {
    expect(() => parseTrace("hello", "notes.txt")).toThrow(/^notes\.txt:line 1: the first line is not JSON/);
    expect(() => parseTrace("hello\n")).toThrow(/the first line is not JSON/);
    expect(() => parseTrace('{"name":"pkg"}')).toThrow(/expected the first line to be \{"type":"trace_header",…\}, got an object without a type/);
    expect(() => parseTrace("[1,2]\n")).toThrow(/got an array/);
    expect(() => parseTrace("")).toThrow(/the file is empty/);
    expect(() => parseTrace("\n")).toThrow(/the file is empty/);
    const header = JSON.stringify({ type: "trace_header", version: 1, startedAt: "", model: "m/x", cwd: "/", argv: [] });
    expect(parseTrace(header).events).toEqual([]);
  });

  it("should accept a trace cut off mid-line and report it has no end", async () => {
    const header = JSON.stringify({ type: "trace_header", version: 1, startedAt: "", model: "m/x", cwd: "/", argv: [] });
    const trace = parseTrace(`${header}\n{"t":1,"event":{"type":"agent_start"}}\n{"t":2,"ev`);
    expect(trace.events).toHaveLength(1);
    expect(trace.end).toBeUndefined();
  });

  it("should refuse to open a trace in a place it cannot write", async () => {
    const dir = await tempPath("");
    const file = join(dir, "a-file");
    await writeFile(file, "");
    await expect(
      TraceWriter.open({ path: join(file, "run.jsonl"), redactor: createRedactor(), header: { startedAt: "", model: "m/x", cwd: "/", argv: [] } }),
    ).rejects.toThrow();
  });
});
