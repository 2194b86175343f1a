/**
 * docs/examples/run-setup.js, the `--setup` module docs/DBOS.md offers, run as a user
 * runs it: a real `loopchart worker` loads it from a project where `loopchart` is an
 * installed package, a real Postgres holds the queue, and the model is an
 * OpenAI-compatible server on 127.0.0.1 (`LOOPCHART_MODEL=openai-compatible/…`).
 * The package resolves to this repository's sources (symlinked, loaded by tsx), so the
 * example runs against the code under test without a build.
 */
import type { ChildProcess } from "node:child_process";
import { copyFileSync, existsSync, mkdirSync, readFileSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { REPO_ROOT, runCli, spawnCli, waitForOutput } from "../cli/spawn-cli.js";
import { hasPostgres, startPostgres, type TestPostgres } from "../support/postgres.js";
import { startScriptedServer, type ScriptedServer } from "../support/scripted-server.js";
import { tempDirSync } from "../support/temp-dir.js";

/** A project with `loopchart` "installed": its entry points are the repository's sources. */
function projectWithLoopchart(): string {
  const project = tempDirSync("loopchart-setup-example-");
  writeFileSync(join(project, "package.json"), JSON.stringify({ name: "worker-project", private: true, type: "module" }));
  const pkg = join(project, "node_modules", "loopchart");
  mkdirSync(pkg, { recursive: true });
  for (const dir of ["src", "machines", "tools"]) symlinkSync(join(REPO_ROOT, dir), join(pkg, dir));
  writeFileSync(
    join(pkg, "package.json"),
    JSON.stringify({
      name: "loopchart",
      type: "module",
      exports: { ".": "./src/index.ts", "./providers": "./src/providers/index.ts", "./tools": "./tools/index.ts", "./dbos": "./src/dbos/index.ts" },
    }),
  );
  copyFileSync(join(REPO_ROOT, "docs/examples/run-setup.js"), join(project, "run-setup.js"));
  return project;
}

describe.skipIf(!hasPostgres())("docs/examples/run-setup.js behind a real worker (skipped when Debian's postgresql is not installed)", () => {
  let pg: TestPostgres | undefined;
  let server: ScriptedServer | undefined;
  let worker: ChildProcess | undefined;
  let project = "";
  let workspace = "";

  beforeAll(async () => {
    project = projectWithLoopchart();
    workspace = join(project, "workspace");
    mkdirSync(join(workspace, "app"), { recursive: true });
    server = await startScriptedServer({
      responses: [
        { content: [{ type: "toolCall", id: "call_1", name: "write", arguments: { path: "hello.txt", content: "hello from the worker\n" } }] },
        { content: [{ type: "text", text: "Wrote hello.txt." }] },
      ],
    });
    pg = await startPostgres("dbos_setup_example");
    const spawned = spawnCli(["worker", "--database-url", pg.url, "--setup", "./run-setup.js", "--executor", "example-worker"], {
      cwd: project,
      env: { LOOPCHART_MODEL: "openai-compatible/llama3.2", LOOPCHART_BASE_URL: `${server.url}/v1`, LOOPCHART_WORKSPACE: workspace },
    });
    worker = spawned.child;
    await waitForOutput(worker, (out) => out.includes("serving queue"));
  }, 90_000);

  afterAll(async () => {
    if (worker && worker.exitCode === null && worker.signalCode === null) worker.kill("SIGKILL");
    pg?.stop();
    await server?.close();
  });

  it("should run a queued prompt with the model and coding tools it builds, in the --meta dir under the workspace", async () => {
    const result = await runCli(["run", "--remote", "--database-url", (pg as TestPostgres).url, "--meta", "dir=app", "Write hello.txt"], { cwd: project });
    expect(result.stderr).toContain("completed");
    expect(result.code).toBe(0);
    expect(result.stdout).toContain("Wrote hello.txt.");
    expect(readFileSync(join(workspace, "app", "hello.txt"), "utf8")).toBe("hello from the worker\n");
    expect(server?.requests.map((request) => request.body)).toMatchObject([{ model: "llama3.2" }, { model: "llama3.2" }]);
  }, 90_000);

  it("should refuse a --meta dir outside the workspace: the run fails and nothing is written there", async () => {
    const result = await runCli(["run", "--remote", "--database-url", (pg as TestPostgres).url, "--meta", "dir=../outside", "Write hello.txt"], { cwd: project });
    expect(result.code).not.toBe(0);
    expect(`${result.stdout}${result.stderr}`).toContain("is outside");
    expect(existsSync(join(project, "outside"))).toBe(false);
  }, 90_000);
});
