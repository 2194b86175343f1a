import { mkdtemp, writeFile } from "node:fs/promises";
import { existsSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { spawnCli, type CliResult } from "./spawn-cli.js";

/** A child that hangs is killed after this long, so a hang fails the test (signal SIGKILL) instead of blocking it. */
const CHILD_DEADLINE_MS = 30_000;

async function runWithDeadline(args: string[]): Promise<CliResult> {
  const { child, done } = spawnCli(args);
  const timer = setTimeout(() => child.kill("SIGKILL"), CHILD_DEADLINE_MS);
  try {
    return await done;
  } finally {
    clearTimeout(timer);
  }
}

async function tempDir(): Promise<string> {
  return mkdtemp(join(tmpdir(), "loopchart-output-path-"));
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
