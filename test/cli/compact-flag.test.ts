import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { parseCompactFlag } from "../../src/cli/compact-flag.js";
import { parseRunArgs } from "../../src/cli/parse-run-args.js";
import { closeServerAfterEach, compatible, currentServer, serve, workspace } from "./loopback-fixture.js";
import { runCli } from "./spawn-cli.js";

closeServerAfterEach();

const OVERFLOW = { httpError: { status: 400, message: "This model's maximum context length is 8192 tokens. However, your messages resulted in 9120 tokens.", code: "context_length_exceeded" } };
const readNotes = (id: string) => ({ content: [{ type: "toolCall" as const, id, name: "read", arguments: { path: "notes.txt" } }] });

describe("--compact", () => {
  it("parses off, on and reserve/keep/window settings, refusing anything else with an example", () => {
    expect(parseCompactFlag("off")).toBe(false);
    expect(parseCompactFlag("on")).toEqual({});
    expect(parseCompactFlag("reserve=16k,keep=20000,window=128k")).toEqual({ reserveTokens: 16_000, keepRecentTokens: 20_000, contextWindow: 128_000 });
    expect(() => parseCompactFlag("reserve=lots")).toThrow(/--compact reserve= expects a number of tokens \(16000 or 16k\), got "lots"; e\.g\./);
    expect(() => parseCompactFlag("size=3")).toThrow(/--compact expects off, on, or reserve=N, keep=N, window=N/);
    expect(() => parseRunArgs(["--compact", "on", "--no-compact", "hi"], process.cwd())).toThrow(/either --compact <setting> or --no-compact/);
    expect(parseRunArgs(["--no-compact", "hi"], process.cwd()).compaction).toBe(false);
    expect(parseRunArgs(["hi"], process.cwd()).compaction).toBeUndefined();
  });
});

// The real CLI against a real loopback OpenAI-compatible server on 127.0.0.1.
describe("loopchart run compacts by default", { timeout: 60_000 }, () => {
  it("a 400 context_length_exceeded is compacted, retried, and the run completes (exit 0); the trace records the compaction", async () => {
    const baseUrl = await serve(readNotes("r1"), readNotes("r2"), OVERFLOW, { content: [{ type: "text", text: "## Goal\nread the notes" }] }, { content: [{ type: "text", text: "The notes say: remember the milk." }] });
    const cwd = await workspace();
    const result = await runCli(compatible(baseUrl, "--tools", "read", "--trace", "t.jsonl", "What do my notes say?"), { cwd });
    expect(result.code, result.stderr).toBe(0);
    expect(result.stderr).toContain("⟲ compacting the context (the provider refused the request as too long");
    expect(result.stderr).toMatch(/⟲ compacted: \d+ messages summarized/);
    expect(currentServer()?.requests).toHaveLength(5);
    const trace = (await readFile(join(cwd, "t.jsonl"), "utf8")).trimEnd().split("\n").map((line) => JSON.parse(line) as { event?: { type: string; reason?: string; summary?: string } });
    expect(trace.find((line) => line.event?.type === "compaction_end")?.event).toMatchObject({ reason: "overflow", summary: "## Goal\nread the notes" });
    // The recorded run, compaction included, is a path of the chart.
    const checked = await runCli(["check-trace", "t.jsonl"], { cwd });
    expect(checked.code, checked.stderr + checked.stdout).toBe(0);
  });

  it("a second overflow after compacting exits 1 with an error that names it", async () => {
    const baseUrl = await serve(readNotes("r1"), readNotes("r2"), OVERFLOW, { content: [{ type: "text", text: "## Goal\nx" }] }, OVERFLOW);
    const result = await runCli(compatible(baseUrl, "--tools", "read", "What do my notes say?"), { cwd: await workspace() });
    expect(result.code, result.stderr).toBe(1);
    expect(result.stderr).toContain("context overflow: the request still did not fit the model's context window after compacting");
    expect(result.stderr).toContain("context_length_exceeded");
  });

  it("with --no-compact the provider's refusal ends the run as before", async () => {
    const baseUrl = await serve(OVERFLOW);
    const result = await runCli(compatible(baseUrl, "--no-compact", "hi"), { cwd: await workspace() });
    expect(result.code, result.stderr).toBe(1);
    expect(result.stderr).not.toContain("⟲");
    expect(result.stderr).toContain("context_length_exceeded");
    expect(currentServer()?.requests).toHaveLength(1);
  });
});
