import { writeFile } from "node:fs/promises";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { spawnCli, type CliResult, type SpawnCliOptions } from "./spawn-cli.js";
import { tempDir as makeTempDir } from "../support/temp-dir.js";

/** A child that hangs is killed after this long, so a hang fails the test (signal SIGKILL) instead of blocking it. */
const CHILD_DEADLINE_MS = 30_000;

async function runWithDeadline(args: string[], options: SpawnCliOptions = {}): Promise<CliResult> {
  const { child, done } = spawnCli(args, options);
  const timer = setTimeout(() => child.kill("SIGKILL"), CHILD_DEADLINE_MS);
  try {
    return await done;
  } finally {
    clearTimeout(timer);
  }
}

async function tempDir(): Promise<string> {
  return makeTempDir("loopchart-output-path-");
}

describe("unwritable --trace paths", () => {
  it("should exit 2 at once, naming the path, when the trace's parent cannot be created under /proc", async () => {
    const workspace = await tempDir();
    const result = await runWithDeadline(["run", "--model", "scripted/demo", "--cwd", workspace, "--trace", "/proc/nope/t.jsonl", "x"]);
    expect(result.signal).toBeNull();
    expect(result.code).toBe(2);
    expect(result.stderr).toContain("/proc/nope/t.jsonl");
    expect(result.stdout).toBe("");
    // Nothing ran: the scripted demo would have created summary.md.
    expect(existsSync(join(workspace, "summary.md"))).toBe(false);
  });

  it("should say which ancestor is a file when the trace's parent is a file", async () => {
    const dir = await tempDir();
    await writeFile(join(dir, "plain"), "x");
    const result = await runWithDeadline(["run", "--model", "scripted/demo", "--cwd", dir, "--trace", join(dir, "plain/t.jsonl"), "x"]);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain(`${join(dir, "plain")} exists and is not a directory`);
    expect(result.stderr).not.toContain("EEXIST");
  });

  it("should fail the demo before it prints its header", async () => {
    const result = await runWithDeadline(["demo", "--delay", "0", "--trace", "/proc/nope/t.jsonl"]);
    expect(result.signal).toBeNull();
    expect(result.code).toBe(2);
    expect(result.stderr).toContain("/proc/nope/t.jsonl");
    expect(result.stderr).not.toContain("loopchart demo ·");
  });
});

describe("a trace device that refuses writes", () => {
  it.skipIf(!existsSync("/dev/full"))("should exit 2 before any work, naming /dev/full and why (needs /dev/full)", async () => {
    const workspace = await tempDir();
    const result = await runWithDeadline(["run", "--model", "scripted/demo", "--cwd", workspace, "--trace", "/dev/full", "x"]);
    expect(result.signal).toBeNull();
    expect(result.code).toBe(2);
    expect(result.stderr.trim()).toBe("loopchart: --trace: cannot write /dev/full: ENOSPC (no space left on device).");
    expect(result.stdout).toBe("");
    expect(existsSync(join(workspace, "summary.md"))).toBe(false);
  });

  it.skipIf(!existsSync("/dev/full"))("should fail the demo before its header too (needs /dev/full)", async () => {
    const result = await runWithDeadline(["demo", "--delay", "0", "--trace", "/dev/full"]);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain("cannot write /dev/full: ENOSPC");
    expect(result.stdout).toBe("");
    expect(result.stderr).not.toContain("loopchart demo ·");
  });

  it.skipIf(!existsSync("/bin/bash"))("should exit 1 naming the error, not 'Trace written', when trace writes fail mid-run (needs bash for ulimit)", async () => {
    // The header fits under the cap; the 200 KB answer's lines do not (EFBIG, as a disk filling up mid-run).
    const workspace = await tempDir();
    await writeFile(join(workspace, "big.json"), JSON.stringify({ responses: [{ content: [{ type: "text", text: "x".repeat(200_000) }] }] }));
    const trace = join(workspace, "t.jsonl");
    const result = await runWithDeadline(["run", "--model", "scripted/./big.json", "--cwd", workspace, "--trace", trace, "hi"], { cwd: workspace, fileSizeLimitKiB: 64 });
    expect(result.signal).toBeNull();
    expect(result.code).toBe(1);
    expect(result.stderr).toContain(`loopchart: --trace: writing ${trace} failed: EFBIG`);
    expect(result.stderr).not.toContain("Trace written");
    // The run itself completed; only the trace failed.
    expect(result.stderr).toContain("completed");
  });

  it.skipIf(!existsSync("/bin/bash"))("should exit 1 with one line, not a stack trace, when stdout is a file that cannot grow (needs bash for ulimit)", async () => {
    const workspace = await tempDir();
    await writeFile(join(workspace, "big.json"), JSON.stringify({ responses: [{ content: [{ type: "text", text: "x".repeat(200_000) }] }] }));
    const result = await runWithDeadline(["run", "--model", "scripted/./big.json", "--cwd", workspace, "--json", "hi"], {
      cwd: workspace,
      fileSizeLimitKiB: 64,
      stdoutFile: join(workspace, "out.jsonl"),
    });
    expect(result.signal).toBeNull();
    expect(result.code).toBe(1);
    expect(result.stderr).toContain("loopchart: cannot write stdout: EFBIG");
    expect(result.stderr).not.toMatch(/\n\s+at /);
  });

  it("should still write a trace to a device that takes writes (/dev/null)", async () => {
    const workspace = await tempDir();
    const result = await runWithDeadline(["run", "--model", "scripted/demo", "--cwd", workspace, "--trace", "/dev/null", "x"]);
    expect(result.code).toBe(0);
    expect(result.stderr).toContain("Trace written to /dev/null");
  });
});

describe("--json and the trace", () => {
  it("should say on stderr where the trace went", async () => {
    const dir = await tempDir();
    const trace = join(dir, "t.jsonl");
    const result = await runWithDeadline(["run", "--json", "--model", "scripted/demo", "--cwd", dir, "--trace", trace, "x"]);
    expect(result.code).toBe(0);
    expect(result.stderr).toContain(`Trace written to ${trace}`);
  });
});
