/**
 * The README's CLI example, `loopchart run --model scripted/demo --cwd "$(mktemp -d)" "…"`,
 * brings the demo's files into the empty --cwd as `loopchart demo` does, so its calls
 * succeed (all but the two the script gets wrong on purpose: an invalid call and a
 * truncated one, which it re-issues), and says it plays a fixed script whatever the prompt.
 */
import {  readFile, rm, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { DEMO_WORKSPACE_FILES } from "../../src/providers/demo-script.js";
import { runCli } from "./spawn-cli.js";
import { tempDir } from "../support/temp-dir.js";

const dirs: string[] = [];
afterAll(() => Promise.all(dirs.map((dir) => rm(dir, { recursive: true, force: true }))));

async function emptyDir(): Promise<string> {
  const dir = await tempDir("loopchart-scripted-run-");
  dirs.push(dir);
  return dir;
}

interface ToolEnd {
  type: "tool_execution_end";
  toolName: string;
  isError: boolean;
}

describe("loopchart run --model scripted/demo in an empty --cwd", { timeout: 60_000 }, () => {
  it("should write the demo's files there and end with its calls succeeding", async () => {
    const cwd = await emptyDir();
    const result = await runCli(["run", "--json", "--model", "scripted/demo", "--cwd", cwd, "Tidy the notes"]);
    expect(result.code, result.stderr).toBe(0);
    expect(result.stderr).toContain("plays a fixed script whatever the prompt says");
    expect(result.stderr).toContain("Wrote the demo's notes.txt and greet.sh into --cwd.");
    const ends = result.stdout.trim().split("\n").map((line) => JSON.parse(line) as { type: string }).filter((event): event is ToolEnd => event.type === "tool_execution_end");
    expect(ends).toHaveLength(7);
    // Only the script's deliberate mistakes fail: bash without `command`, and the write a length-truncated response cut off.
    expect(ends.filter((end) => end.isError).map((end) => end.toolName)).toEqual(["bash", "write"]);
    expect(ends.at(-1)).toMatchObject({ toolName: "write", isError: false });
    expect(await readFile(join(cwd, "notes.txt"), "utf8")).toContain("status: reviewed");
    expect(await readFile(join(cwd, "summary.md"), "utf8")).toMatch(/^# Summary/);
  });

  it("should never overwrite a file of --cwd, and not claim to have written it", async () => {
    const cwd = await emptyDir();
    await writeFile(join(cwd, "notes.txt"), "my own notes\n");
    const result = await runCli(["run", "--model", "scripted/demo", "--max-turns", "1", "--cwd", cwd, "Tidy the notes"]);
    expect(result.code, result.stderr).toBe(3);
    expect(result.stderr).toContain("Wrote the demo's greet.sh into --cwd.");
    expect(await readFile(join(cwd, "notes.txt"), "utf8")).toBe("my own notes\n");
    expect(await readFile(join(cwd, "greet.sh"), "utf8")).toBe(DEMO_WORKSPACE_FILES["greet.sh"]);
  });
});
