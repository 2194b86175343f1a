/**
 * `loopchart check-trace` (issue 36 item 4) on traces the CLI itself writes: the demo's and a
 * `run`'s conform; one edited by hand fails with exit 1 and names its line.
 */
import {  readFile, rm, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runCli } from "./spawn-cli.js";
import { tempDir } from "../support/temp-dir.js";

describe("loopchart check-trace", { timeout: 120_000 }, () => {
  let dir: string;
  beforeAll(async () => {
    dir = await tempDir("loopchart-check-trace-");
  });
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it("should pass the demo's trace with a one-line summary, exit 0", async () => {
    const trace = join(dir, "demo.jsonl");
    const demo = await runCli(["demo", "--delay", "0", "--trace", trace]);
    expect(demo.code, demo.stderr).toBe(0);
    const checked = await runCli(["check-trace", trace]);
    expect(checked.code, checked.stderr).toBe(0);
    expect(checked.stdout).toMatch(/^conforms: \d+ state changes of \d+ actors are transitions of the chart\n$/);

    // The same trace with one of the loop's steps cut out: exit 1, naming file and line.
    const lines = (await readFile(trace, "utf8")).split("\n").slice(0, -1);
    const loop = lines.map((line) => JSON.parse(line) as { inspect?: { type?: string; machineId?: string; sessionId?: string; event?: { type?: string } } })
      .find((record) => record.inspect?.type === "@xstate.actor" && record.inspect.machineId === "agentLoop")?.inspect?.sessionId;
    const cut = lines.findIndex((line) => {
      const record = JSON.parse(line) as { inspect?: { type?: string; sessionId?: string; event?: { type?: string } } };
      return record.inspect?.type === "@xstate.snapshot" && record.inspect.sessionId === loop && record.inspect.event?.type === "model.done";
    });
    expect(cut).toBeGreaterThan(0);
    const tampered = join(dir, "tampered.jsonl");
    await writeFile(tampered, `${[...lines.slice(0, cut), ...lines.slice(cut + 1)].join("\n")}\n`);
    const refused = await runCli(["check-trace", tampered]);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toMatch(new RegExp(`^loopchart check-trace: ${tampered.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}:\\d+: agentLoop actor `));
    expect(refused.stdout).toBe("");
  });

  it("should pass a run's trace and refuse a file that is not a trace", async () => {
    const trace = join(dir, "run.jsonl");
    const run = await runCli(["run", "--model", "scripted/demo", "--cwd", dir, "--trace", trace, "go"]);
    expect(run.stderr).not.toContain("unexpected failure");
    const checked = await runCli(["check-trace", trace]);
    expect(checked.code, checked.stderr).toBe(0);

    const junk = join(dir, "junk.jsonl");
    await writeFile(junk, "not a trace\n");
    const refused = await runCli(["check-trace", junk]);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain("is not a loopchart trace");
    const help = await runCli(["check-trace", "--help"]);
    expect(help.code).toBe(0);
    expect(help.stdout).toContain("Usage: loopchart check-trace");
  });
});

describe("loopchart check reach", { timeout: 180_000 }, () => {
  it("should print a witness for a state a call waits in, and for an exit reason", async () => {
    const approval = await runCli(["check", "reach", "awaitingApproval"]);
    expect(approval.code, approval.stderr).toBe(0);
    expect(approval.stdout).toMatch(/^state awaitingApproval is reachable in (\d+) steps \(configuration: [^)]*approvals[^)]*\):\n( {2}\d+\. .+\n)+$/);
    const steps = Number(/in (\d+) steps/.exec(approval.stdout)?.[1]);
    expect(approval.stdout.trim().split("\n")).toHaveLength(steps + 1);

    const maxTurns = await runCli(["check", "reach", "--exit", "maxTurns", "--turns", "1"]);
    expect(maxTurns.code, maxTurns.stderr).toBe(0);
    expect(maxTurns.stdout).toContain("a run that ends maxTurns is reachable");
  });

  it("should say a state that no chart has is not reachable (exit 1), and refuse a bad question (exit 2)", async () => {
    const none = await runCli(["check", "reach", "daydreaming", "--turns", "1", "--max-depth", "4"]);
    expect(none.code).toBe(1);
    expect(none.stdout).toMatch(/^state daydreaming is not reachable/);
    const bad = await runCli(["check", "reach", "--exit", "bored"]);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain("--exit expects one of");
    const help = await runCli(["check", "--help"]);
    expect(help.code).toBe(0);
    expect(help.stdout).toContain("Usage: loopchart check reach");
  });
});
