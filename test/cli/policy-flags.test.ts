import { readFile, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { EXIT_CODES, exitCodeFor } from "../../src/cli/exit-codes.js";
import { parseRunArgs } from "../../src/cli/parse-run-args.js";
import { UsageError } from "../../src/cli/usage-error.js";
import { DEFAULT_WRAP_UP_PROMPT } from "../../src/index.js";
import { runCli } from "./spawn-cli.js";
import { tempDir } from "../support/temp-dir.js";

describe("the loop policies on the command line", () => {
  it("should read --wrap-up, --budget-usd and --tool-timeout", () => {
    expect(parseRunArgs(["--wrap-up", "--budget-usd", "0.5", "--tool-timeout", "30s", "hi"], tmpdir())).toMatchObject({
      wrapUp: true,
      budgetUsd: 0.5,
      toolTimeoutMs: 30_000,
    });
    expect(parseRunArgs(["--tool-timeout", "500ms", "hi"], tmpdir()).toolTimeoutMs).toBe(500);
    expect(parseRunArgs(["--tool-timeout", "2m", "hi"], tmpdir()).toolTimeoutMs).toBe(120_000);
    expect(parseRunArgs(["--tool-timeout", "1.5", "hi"], tmpdir()).toolTimeoutMs).toBe(1_500);
    expect(parseRunArgs(["hi"], tmpdir())).toMatchObject({ wrapUp: false });
  });

  it("should say what each expects when given a bad value, and that --max-turns must be at least 1", () => {
    expect(() => parseRunArgs(["--max-turns", "-1", "hi"], tmpdir())).toThrow(/--max-turns must be a whole number ≥ 1; got -1/);
    expect(() => parseRunArgs(["--budget-usd", "0", "hi"], tmpdir())).toThrow(/--budget-usd expects a number greater than 0, e.g. --budget-usd 0.50; got "0"/);
    expect(() => parseRunArgs(["--budget-usd", "$1", "hi"], tmpdir())).toThrow(UsageError);
    expect(() => parseRunArgs(["--tool-timeout", "soon", "hi"], tmpdir())).toThrow(/--tool-timeout expects a duration greater than 0, e.g. --tool-timeout 30s/);
    expect(() => parseRunArgs(["--tool-timeout", "-5", "hi"], tmpdir())).toThrow(/--tool-timeout must be a number ≥ 0; got -5/);
  });

  it("should map the new exit reasons to their exit codes", () => {
    expect(exitCodeFor("budget")).toBe(EXIT_CODES.budget);
    expect(exitCodeFor("invalidCalls")).toBe(EXIT_CODES.invalidCalls);
    expect([EXIT_CODES.approvalPending, EXIT_CODES.budget, EXIT_CODES.invalidCalls]).toEqual([4, 5, 6]);
  });

  it("should make the wrap-up request at --max-turns with --wrap-up, exit 3 and print the exit reason", async () => {
    const cwd = await tempDir("loopchart-cli-wrapup-");
    const script = {
      responses: [
        { content: [{ type: "toolCall", id: "call_1", name: "ls", arguments: { path: "." } }] },
        { content: [{ type: "text", text: "I listed the directory; that is all I could do." }], stopReason: "stop" },
      ],
    };
    await writeFile(join(cwd, "script.json"), JSON.stringify(script));
    const result = await runCli(["run", "--model", "scripted/./script.json", "--tools", "ls", "--max-turns", "1", "--wrap-up", "--trace", "t.jsonl", "go"], { cwd });
    expect(result.code, result.stderr).toBe(3);
    expect(result.stderr).toMatch(/■ max turns reached · 2 turns/);
    expect(result.stdout).toContain("that is all I could do");
    const lines = (await readFile(join(cwd, "t.jsonl"), "utf8")).trimEnd().split("\n").map((line) => JSON.parse(line) as { event?: { type: string; message?: { role: string; content: unknown } } });
    const users = lines.filter((line) => line.event?.type === "message_end" && line.event.message?.role === "user");
    expect(users.at(-1)?.event?.message?.content).toBe(DEFAULT_WRAP_UP_PROMPT);
    expect(lines.at(-1)).toMatchObject({ type: "trace_end", exitReason: "maxTurns", exitCode: 3 });
  });

  it("should abort a tool call past --tool-timeout and go on", async () => {
    const cwd = await tempDir("loopchart-cli-timeout-");
    const script = {
      responses: [
        { content: [{ type: "toolCall", id: "call_1", name: "bash", arguments: { command: "sleep 30" } }] },
        { content: [{ type: "text", text: "It took too long." }], stopReason: "stop" },
      ],
    };
    await writeFile(join(cwd, "script.json"), JSON.stringify(script));
    const result = await runCli(["run", "--model", "scripted/./script.json", "--tools", "bash", "--tool-timeout", "300ms", "--json", "go"], { cwd });
    expect(result.code, result.stderr).toBe(0);
    const ends = result.stdout
      .trim()
      .split("\n")
      .map((line) => JSON.parse(line) as { type: string; isError?: boolean; result?: { content: { text: string }[] } })
      .filter((event) => event.type === "tool_execution_end");
    expect(ends).toHaveLength(1);
    expect(ends[0]?.isError).toBe(true);
    expect(ends[0]?.result?.content[0]?.text).toBe("Tool bash timed out after 300 ms and was aborted");
  });
});
