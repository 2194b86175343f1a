import { existsSync } from "node:fs";
import { readFile, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { DEMO_WORKSPACE_FILES } from "../../src/providers/demo-script.js";
import { REPO_ROOT, runCli, type CliResult } from "./spawn-cli.js";
import { tempDir } from "../support/temp-dir.js";

// Each case spawns the real CLI; the timeout allows for a loaded machine.
describe("loopchart demo (the job of npm start)", { timeout: 60_000 }, () => {
  let demo: CliResult;
  let tracePath: string;

  beforeAll(async () => {
    demo = await runCli(["demo"]);
    tracePath = /^Trace: +(.+)$/m.exec(demo.stderr)?.[1] ?? "";
  }, 60_000);

  it("is what npm start runs, after the build (when a build input changed: scripts/build-if-stale.ts)", async () => {
    const pkg = JSON.parse(await readFile(join(REPO_ROOT, "package.json"), "utf8")) as { scripts: Record<string, string>; bin: Record<string, string> };
    expect(pkg.scripts.start).toBe("tsx scripts/build-if-stale.ts && node dist/src/cli/main.js demo");
    expect(pkg.bin.loopchart).toBe("dist/src/cli/main.js");
  });

  it("should exit 0 after showing each tool call, the two refused calls and the streamed final answer", () => {
    expect(demo.code, demo.stderr).toBe(0);
    const err = demo.stderr;
    expect(err).toContain("→ read notes.txt");
    expect(err).toMatch(/✓ read notes\.txt · \d+(ms|\.\ds) · 4 lines: # Project notes/);
    expect(err).toMatch(/✓ bash sh greet\.sh loopchart · .* · Hello, loopchart! The loop is a statechart now\./);
    expect(err).toMatch(/✓ edit notes\.txt edits=\[2 items\]/);
    expect(err).toMatch(/✗ bash cmd="ls -1" · .*Validation failed for tool "bash"/);
    expect(err).toContain("⚠ the response hit the output token limit");
    expect(err).toMatch(/✗ write summary\.md .*output token limit/);
    expect(err).toMatch(/✓ write summary\.md .* · Successfully wrote/);
    expect(err).toMatch(/■ completed · 8 turns · 7 tool calls \(2 failed\) · [\d,]+ tokens/);
    expect(demo.stdout).toContain("I'll start by reading the notes.");
    expect(demo.stdout).toContain("All done. Here is what I did:");
    expect(err).toMatch(/Replay it: .*replay /);
  });

  it("should change the files of the fresh temp workspace it created", async () => {
    const workspace = /^Workspace: +(.+)$/m.exec(demo.stderr)?.[1] ?? "";
    expect(workspace.startsWith(tmpdir())).toBe(true);
    expect(await readFile(join(workspace, "notes.txt"), "utf8")).toContain("status: reviewed");
    expect(await readFile(join(workspace, "summary.md"), "utf8")).toContain("# Summary");
    expect(dirname(tracePath)).toBe(dirname(workspace));
  });

  it("should write a trace whose every line parses, header first and end line last", async () => {
    expect(existsSync(tracePath)).toBe(true);
    const lines = (await readFile(tracePath, "utf8")).trimEnd().split("\n").map((line) => JSON.parse(line) as Record<string, unknown>);
    expect(lines[0]).toMatchObject({ type: "trace_header", version: 3, model: "scripted/demo", argv: ["demo"], tools: ["read", "bash", "edit", "write"] });
    expect(lines.at(-1)).toMatchObject({ type: "trace_end", exitReason: "completed", exitCode: 0 });
    const body = lines.slice(1, -1);
    expect(body.some((line) => "inspect" in line)).toBe(true);
    const events = body.filter((line) => "event" in line) as { t: number; event: { type: string; exitReason?: string } }[];
    expect(events.every((line) => typeof line.t === "number" && typeof line.event.type === "string")).toBe(true);
    expect(events[0].event.type).toBe("agent_start");
    expect(events.at(-1)?.event).toMatchObject({ type: "agent_end", exitReason: "completed" });
    expect(events.filter((line) => line.event.type === "tool_execution_end")).toHaveLength(7);
  });

  it("should replay the trace through the same renderer", async () => {
    const replay = await runCli(["replay", tracePath]);
    expect(replay.code, replay.stderr).toBe(0);
    expect(replay.stdout).toContain("model scripted/demo");
    expect(replay.stdout).toContain("All done. Here is what I did:");
    expect(replay.stdout).toMatch(/✓ read notes\.txt · \d+(ms|\.\ds) · 4 lines/);
    expect(replay.stdout).toMatch(/■ completed · 8 turns · 7 tool calls \(2 failed\)/);
  });

  it("should print every event as a JSON line with --json", async () => {
    const result = await runCli(["demo", "--json", "--delay", "0"]);
    expect(result.code, result.stderr).toBe(0);
    const events = result.stdout.trimEnd().split("\n").map((line) => JSON.parse(line) as { type: string });
    expect(events[0].type).toBe("agent_start");
    expect(events.at(-1)).toMatchObject({ type: "agent_end", exitReason: "completed" });
    expect(events.some((event) => event.type === "message_update")).toBe(true);
  });
});

describe("loopchart run with the scripted model", { timeout: 60_000 }, () => {
  async function demoWorkspace(): Promise<string> {
    const dir = await tempDir("loopchart-cli-run-");
    for (const [name, content] of Object.entries(DEMO_WORKSPACE_FILES)) await writeFile(join(dir, name), content);
    return dir;
  }

  it("should exit 3 when --max-turns stops the run, and record it in the trace", async () => {
    const cwd = await demoWorkspace();
    const result = await runCli(["run", "--model", "scripted/demo", "--max-turns", "2", "--trace", "t.jsonl", "Tidy up"], { cwd });
    expect(result.code, result.stderr).toBe(3);
    expect(result.stderr).toMatch(/■ max turns reached · 2 turns/);
    const last = JSON.parse((await readFile(join(cwd, "t.jsonl"), "utf8")).trimEnd().split("\n").at(-1) ?? "{}") as unknown;
    expect(last).toMatchObject({ type: "trace_end", exitReason: "maxTurns", exitCode: 3 });
  });

  it("should exit 1 saying a file that is not a trace is not one", async () => {
    const dir = await tempDir("loopchart-cli-replay-");
    await writeFile(join(dir, "notes.txt"), "remember the milk");
    const result = await runCli(["replay", "notes.txt"], { cwd: dir });
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/notes\.txt is not a loopchart trace: line 1: the first line is not JSON \(.*\); a trace starts with a \{"type":"trace_header",…\} line/);
    expect(result.stderr).not.toContain("empty");
  });

  it("should exit 1 naming the line of a malformed trace given to replay", async () => {
    const dir = await tempDir("loopchart-cli-replay-");
    const header = JSON.stringify({ type: "trace_header", version: 1, startedAt: "", model: "m/x", cwd: "/", argv: [] });
    await writeFile(join(dir, "bad.jsonl"), `${header}\n{"t":1,"event":{"type":"agent_start"}}\n{oops\n`);
    const result = await runCli(["replay", "bad.jsonl"], { cwd: dir });
    expect(result.code).toBe(1);
    expect(result.stderr).toContain("line 3: not valid JSON");
  });
});
