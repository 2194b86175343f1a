import { mkdir, readdir, utimes } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { DEMO_DIR_MAX_AGE_MS, DEMO_DIR_PREFIX } from "../../src/cli/demo-command.js";
import { invokedAs } from "../../src/cli/invoked-as.js";
import { runCli } from "./spawn-cli.js";
import { tempDir } from "../support/temp-dir.js";

describe("the command a hint tells the user to run", () => {
  it("should be npx loopchart when run through npx or npm exec, where loopchart is not on PATH", () => {
    const script = "/p/node_modules/.bin/loopchart";
    expect(invokedAs({ script, env: { npm_command: "exec", npm_lifecycle_event: "npx" }, cwd: "/p" })).toBe("npx loopchart");
    expect(invokedAs({ script, env: { npm_command: "exec" }, cwd: "/p" })).toBe("npx loopchart");
  });

  it("should be loopchart through the bin link, node <path> for the built script and npx tsx for the source", () => {
    expect(invokedAs({ script: "/usr/bin/loopchart", env: {}, cwd: "/p" })).toBe("loopchart");
    expect(invokedAs({ script: "/p/dist/src/cli/main.js", env: { npm_command: "run" }, cwd: "/p" })).toBe("node dist/src/cli/main.js");
    expect(invokedAs({ script: "/p/src/cli/main.ts", env: {}, cwd: "/p" })).toBe("npx tsx src/cli/main.ts");
  });
});

describe("loopchart run with a scripted model", { timeout: 60_000 }, () => {
  it("should say the model plays a fixed script whatever the prompt", async () => {
    const cwd = await tempDir("loopchart-wording-");
    const result = await runCli(["run", "--model", "scripted/demo", "--max-turns", "1", "--cwd", cwd, "Write a poem"]);
    expect(result.stderr).toMatch(/^Note: scripted\/demo plays a fixed script whatever the prompt says/m);
    expect(result.stderr).toContain('--cwd "$(mktemp -d)"');
  });

  it("should say on stderr, not stdout, where the trace went with --json", async () => {
    const cwd = await tempDir("loopchart-wording-");
    const result = await runCli(["run", "--json", "--model", "scripted/demo", "--max-turns", "1", "--cwd", cwd, "--trace", join(cwd, "t.jsonl"), "x"]);
    expect(result.stderr).toContain(`Trace written to ${join(cwd, "t.jsonl")}`);
    expect(result.stdout).not.toContain("Trace written");
  });

  it("should name the option and the bound when --delay is negative", async () => {
    const result = await runCli(["demo", "--delay", "-5"]);
    expect(result.code).toBe(2);
    expect(result.stderr.trim()).toBe("loopchart: --delay must be a number ≥ 0; got -5.");
  });

  it("should not double the loopchart prefix for an empty prompt on stdin", async () => {
    const result = await runCli(["run", "--model", "scripted/demo", "-"], { input: "  \n" });
    expect(result.code).toBe(2);
    expect(result.stderr).not.toMatch(/loopchart: loopchart/u);
  });
});

describe("loopchart demo's temporary directories", { timeout: 60_000 }, () => {
  it("should remove demo directories older than a day and keep newer ones and anything else", async () => {
    const tmp = await tempDir("loopchart-prune-");
    const old = new Date(Date.now() - DEMO_DIR_MAX_AGE_MS - 60_000);
    for (const name of [`${DEMO_DIR_PREFIX}old`, "unrelated-old", `${DEMO_DIR_PREFIX}fresh`]) await mkdir(join(tmp, name));
    await utimes(join(tmp, `${DEMO_DIR_PREFIX}old`), old, old);
    await utimes(join(tmp, "unrelated-old"), old, old);
    const result = await runCli(["demo", "--delay", "0"], { env: { TMPDIR: tmp } });
    expect(result.code, result.stderr).toBe(0);
    const left = await readdir(tmp);
    expect(left).not.toContain(`${DEMO_DIR_PREFIX}old`);
    expect(left).toEqual(expect.arrayContaining(["unrelated-old", `${DEMO_DIR_PREFIX}fresh`]));
    expect(left.filter((name) => name.startsWith(DEMO_DIR_PREFIX))).toHaveLength(2);
    expect(result.stderr).toMatch(/workspace .*\(kept for you to look at; demo workspaces older than a day are removed\)/u);
  });
});
