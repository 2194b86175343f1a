/**
 * Every command answers --help / -h with its usage (exit 0); an unknown option is a usage
 * error (exit 2, one line); ordinary failures — a missing or throwing `--setup` module, a
 * corrupt SQLite session file, the SQLite store without better-sqlite3 — print one line
 * with their documented exit code, never "unexpected failure" and a stack.
 */
import { spawn } from "node:child_process";
import {  rmSync, writeFileSync } from "node:fs";
import { createServer, type AddressInfo } from "node:net";
import { join } from "node:path";
import { PassThrough } from "node:stream";
import { pathToFileURL } from "node:url";
import { afterAll, describe, expect, it } from "vitest";
import { COMMANDS, runCli } from "../../src/cli/cli.js";
import type { CliIo } from "../../src/cli/cli-io.js";
import { EXIT_CODES } from "../../src/cli/exit-codes.js";
import { CLI_ENTRY, REPO_ROOT } from "./spawn-cli.js";
import { tempDirSync } from "../support/temp-dir.js";

const dirs: string[] = [];
afterAll(() => dirs.forEach((dir) => rmSync(dir, { recursive: true, force: true })));

function scratch(): string {
  const dir = tempDirSync("loopchart-help-");
  dirs.push(dir);
  return dir;
}

/** Runs the CLI in this process with captured output. */
async function cli(args: string[], cwd: string = scratch()): Promise<{ code: number; out: string; err: string }> {
  let out = "";
  let err = "";
  const stdin = new PassThrough();
  stdin.end();
  const io: CliIo = {
    stdout: { write: (chunk: string) => (out += chunk) },
    stderr: { write: (chunk: string) => (err += chunk) },
    stdin,
    env: { NO_COLOR: "1" },
    cwd,
    invokedAs: "loopchart",
    onInterrupt: () => () => {},
  };
  const code = await runCli(args, io);
  return { code, out, err };
}

/** Each command, and each command that another one hands its arguments to, with the usage line its help starts with. */
const HELP_CASES: [string[], string][] = [
  ...Object.keys(COMMANDS).map((command): [string[], string] => [[command], `Usage: loopchart ${command} `]),
  [["run", "--remote"], "Usage: loopchart run "],
  [["sessions", "--database-url", "postgres://127.0.0.1:1/x"], "Usage: loopchart sessions "],
  [["approve", "--database-url", "postgres://127.0.0.1:1/x"], "Usage: loopchart approve "],
  [["reject", "--database-url", "postgres://127.0.0.1:1/x"], "Usage: loopchart reject "],
];

describe("loopchart <command> --help", () => {
  it.each(HELP_CASES)("should print the usage of %j for --help and -h, exit 0", async (command, usage) => {
    for (const flag of ["--help", "-h"]) {
      const result = await cli([...command, flag]);
      expect(result.err).toBe("");
      expect(result.code).toBe(EXIT_CODES.ok);
      expect(result.out.startsWith(usage)).toBe(true);
      expect(result.out).toContain("-h, --help");
    }
  });

  it.each(HELP_CASES)("should refuse an unknown option of %j in one line, exit 2", async (command) => {
    const result = await cli([...command, "--bogus", "x"]);
    expect(result.code).toBe(EXIT_CODES.usage);
    expect(result.out).toBe("");
    expect(result.err).toBe(`loopchart: Unknown option --bogus. Run "loopchart ${command[0] as string} --help" to see the options.\n`);
  });
});

describe("ordinary failures are one line with their exit code", () => {
  it("should call a --setup path that names no file a usage error", async () => {
    const result = await cli(["worker", "--database-url", "postgres://127.0.0.1:1/x", "--setup", "./missing.js"]);
    expect(result.code).toBe(EXIT_CODES.usage);
    expect(result.err).toMatch(/^loopchart: --setup \.\/missing\.js: no such file \(.*missing\.js\); it names a module exporting createRun\(input\)\.\n$/);
  });

  it("should report a --setup module that throws while loading, exit 1", async () => {
    const dir = scratch();
    writeFileSync(join(dir, "setup.mjs"), 'throw new Error("no model configured");\n');
    const result = await cli(["worker", "--database-url", "postgres://127.0.0.1:1/x", "--setup", "setup.mjs"], dir);
    expect(result.code).toBe(EXIT_CODES.error);
    expect(result.err).toBe("loopchart: --setup setup.mjs failed to load: no model configured\n");
  });

  it("should report a corrupt SQLite session file by name, exit 1, for sessions and for run --session", async () => {
    const dir = scratch();
    writeFileSync(join(dir, "sessions.db"), `SQLite format 3\0${"x".repeat(4096)}`);
    const listed = await cli(["sessions", "--store", "sqlite:sessions.db"], dir);
    const run = await cli(["run", "--model", "scripted/demo", "--cwd", dir, "--session", "s1", "--store", "sqlite:sessions.db", "hi"], dir);
    for (const result of [listed, run]) {
      expect(result.code).toBe(EXIT_CODES.error);
      expect(result.err).not.toContain("unexpected failure");
      expect(result.err).toContain(`loopchart: ${join(dir, "sessions.db")}: not a readable SQLite database`);
      expect(result.err.trimEnd().split("\n").at(-1)).toMatch(/^loopchart: .*sessions\.db: /);
    }
  });

  it("should say at once that a DBOS database cannot be reached, password hidden, exit 1 (the SDK would retry forever)", async () => {
    const server = createServer();
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    const { port } = server.address() as AddressInfo;
    await new Promise((resolve) => server.close(resolve));
    const url = `postgres://loopchart:s3cret@127.0.0.1:${port}/runs`;
    const setup = join(REPO_ROOT, "test/support/dbos-fixture.ts");
    for (const args of [
      ["sessions", "--database-url", url],
      ["enqueue", "--database-url", url, "Fix the tests"],
      ["recover", "--database-url", url, "--executor", "gone"],
      ["approve", "--database-url", url, "run-1", "call_1"],
      ["worker", "--database-url", url, "--setup", setup],
    ]) {
      const result = await cli(args);
      expect(result.code, args[0]).toBe(EXIT_CODES.error);
      expect(result.err).toBe(`loopchart: cannot connect to the database postgres://loopchart:***@127.0.0.1:${port}/runs: connect ECONNREFUSED 127.0.0.1:${port}\n`);
    }
  }, 60_000);

  it("should say how to install better-sqlite3 when --store sqlite: is used without it, exit 2", async () => {
    const dir = scratch();
    // A resolve hook that makes better-sqlite3 missing, as in an install without the optional peer.
    const hook = `export async function resolve(specifier, context, next) {
      if (specifier === "better-sqlite3") throw Object.assign(new Error("Cannot find package 'better-sqlite3'"), { code: "ERR_MODULE_NOT_FOUND" });
      return next(specifier, context);
    }`;
    writeFileSync(join(dir, "hide-sqlite.mjs"), `import { register } from "node:module";\nregister(${JSON.stringify(`data:text/javascript,${encodeURIComponent(hook)}`)});\n`);
    const tsx = pathToFileURL(join(REPO_ROOT, "node_modules/tsx/dist/loader.mjs")).href;
    const child = spawn(process.execPath, ["--import", tsx, "--import", pathToFileURL(join(dir, "hide-sqlite.mjs")).href, CLI_ENTRY, "sessions", "--store", "sqlite:s.db"], {
      cwd: dir,
      env: { PATH: process.env["PATH"] ?? "", NO_COLOR: "1" },
      stdio: ["ignore", "pipe", "pipe"],
    });
    let stderr = "";
    child.stderr.setEncoding("utf8").on("data", (chunk: string) => (stderr += chunk));
    const code = await new Promise<number | null>((resolve) => child.on("close", resolve));
    expect(code).toBe(EXIT_CODES.usage);
    expect(stderr).toBe("loopchart: The SQLite session store needs the optional dependency better-sqlite3 12.x: npm install better-sqlite3@12 (Cannot find package 'better-sqlite3')\n");
  }, 60_000);
});
