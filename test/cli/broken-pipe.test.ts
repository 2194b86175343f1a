/**
 * `loopchart run … | head -2`: when stdout's reader goes away the run is stopped (as by
 * Ctrl-C: running tools get the abort signal, the trace is flushed) instead of going on
 * with its tools, and the process exits 141 (128 + SIGPIPE), as the shell expects of a
 * writer whose pipe closed.
 */
import {  readFile, rm, access } from "node:fs/promises";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { EXIT_CODES } from "../../src/cli/exit-codes.js";
import { spawnCli } from "./spawn-cli.js";
import { tempDir } from "../support/temp-dir.js";

const dirs: string[] = [];
afterAll(() => Promise.all(dirs.map((dir) => rm(dir, { recursive: true, force: true }))));

describe("loopchart run with a stdout whose reader went away", { timeout: 60_000 }, () => {
  it("should abort the run, flush the trace and exit 141", async () => {
    const cwd = await tempDir("loopchart-epipe-");
    dirs.push(cwd);
    const { child, done } = spawnCli(["run", "--model", "scripted/demo", "--cwd", cwd, "--trace", join(cwd, "t.jsonl"), "Tidy the notes"]);
    // The reader is gone before the CLI writes anything: its first write to stdout fails with EPIPE.
    child.stdout?.destroy();
    const result = await done;
    expect(result.code, result.stderr).toBe(EXIT_CODES.brokenPipe);
    expect(result.stderr).toContain("Output closed (broken pipe): aborting the run…");
    expect(result.stderr).toMatch(/■ aborted · /);
    const trace = (await readFile(join(cwd, "t.jsonl"), "utf8")).trimEnd().split("\n");
    expect(JSON.parse(trace.at(-1) as string)).toMatchObject({ type: "trace_end", exitReason: "aborted", exitCode: EXIT_CODES.brokenPipe });
    // The run stopped long before its last call, which writes summary.md.
    await expect(access(join(cwd, "summary.md"))).rejects.toThrow();
  });

  it("should exit 141 at once from a command with nothing to stop (replay)", async () => {
    const cwd = await tempDir("loopchart-epipe-");
    dirs.push(cwd);
    const trace = join(cwd, "t.jsonl");
    const { done: recorded } = spawnCli(["run", "--model", "scripted/demo", "--cwd", cwd, "--trace", trace, "x"]);
    expect((await recorded).code).toBe(0);
    const { child, done } = spawnCli(["replay", trace]);
    child.stdout?.destroy();
    const result = await done;
    expect(result.code, result.stderr).toBe(EXIT_CODES.brokenPipe);
    expect(result.stderr).not.toContain("unexpected failure");
  });
});
