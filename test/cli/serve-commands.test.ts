/**
 * `loopchart inspect` and `loopchart view` as a user starts them: real CLI processes, real
 * sockets on loopback. The servers bind 127.0.0.1 unless `--host` says otherwise, print
 * their URL, list the runs they have seen; `view` opens the browser unless `--no-open`, and
 * a corrupted trace makes it name file and line and exit non-zero.
 */
import { execFileSync } from "node:child_process";
import { chmod, readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { afterEach, beforeAll, describe, expect, it } from "vitest";
import { REPO_ROOT, runCli, spawnCli, waitForOutput } from "./spawn-cli.js";
import { recordSampleRun } from "../support/sample-trace-run.js";
import { tempDir } from "../support/temp-dir.js";

const started: ReturnType<typeof spawnCli>[] = [];
/** Starts a serving command and resolves with its viewer URL once it printed it. */
async function serve(args: string[], env: Record<string, string> = {}) {
  const cli = spawnCli(args, { env });
  started.push(cli);
  let output = "";
  cli.child.stdout?.on("data", (chunk: string) => (output += chunk));
  await waitForOutput(cli.child, (text) => /Viewer: http:\/\/\S+\n/.test(text));
  // The printed URL carries the server's token (?token=…); every request needs it.
  const url = new URL(/Viewer: (http:\/\/\S+)\n/.exec(output)?.[1] ?? "");
  return { ...cli, url, output: () => output };
}
/** An API URL of a server whose printed page URL is `url`: the path, with the printed token. */
const api = (url: URL, path: string) => `${url.origin}/${path}?token=${url.searchParams.get("token") ?? ""}`;
async function stop(cli: ReturnType<typeof spawnCli>) {
  cli.child.kill("SIGINT");
  return cli.done;
}
const reachable = async (url: string) =>
  fetch(url).then(
    () => true,
    () => false,
  );

beforeAll(() => {
  execFileSync(process.execPath, ["--import", "tsx", "scripts/build-viewer.ts"], { cwd: REPO_ROOT });
}, 60_000);
afterEach(async () => {
  for (const cli of started.splice(0)) if (cli.child.exitCode === null) await stop(cli);
});

describe("loopchart inspect", { timeout: 60_000 }, () => {
  it("binds 127.0.0.1 only, prints the viewer URL and where to send runs, lists a run sent with loopchart run --inspect, exits 0 on Ctrl-C", async () => {
    const inspect = await serve(["inspect", "--port", "0"]);
    expect(inspect.url.hostname).toBe("127.0.0.1");
    expect(inspect.url.searchParams.get("token")).toMatch(/^[\w-]{32}$/);
    expect(inspect.output()).toContain(`Send runs to: ws://127.0.0.1:${inspect.url.port}/?token=${inspect.url.searchParams.get("token")}`);
    // Another loopback address of this machine: nothing listens there.
    expect(await reachable(`http://127.0.0.2:${inspect.url.port}/`)).toBe(false);
    expect(await reachable(inspect.url.href)).toBe(true);

    const cwd = await tempDir("loopchart-inspect-run-");
    const run = await runCli(["run", "--inspect", `ws://127.0.0.1:${inspect.url.port}/?token=${inspect.url.searchParams.get("token")}`, "--model", "scripted/demo", "--cwd", cwd, "Tidy up notes.txt"]);
    expect(run.code, run.stderr).toBe(0);
    let runs: { id: string; label: string }[] = [];
    while (runs.length === 0) runs = (await (await fetch(api(inspect.url, "api/runs"))).json()) as typeof runs;
    expect(runs).toHaveLength(1);
    expect(runs[0]?.label).toContain("loopchart run");
    const held = (await (await fetch(api(inspect.url, `api/runs/${encodeURIComponent(runs[0]?.id ?? "")}`))).json()) as { records: { event?: { type: string } }[] };
    // The run's records arrive over the socket; the last is agent_end.
    let records = held.records;
    while (!records.some((r) => r.event?.type === "agent_end")) {
      await new Promise((resolve) => setTimeout(resolve, 50));
      records = ((await (await fetch(api(inspect.url, `api/runs/${encodeURIComponent(runs[0]?.id ?? "")}`))).json()) as typeof held).records;
    }
    expect(records.some((r) => r.event?.type === "agent_start")).toBe(true);
    const result = await stop(inspect);
    expect(result.code).toBe(0);
  });

  it("binds another address only when --host names it", async () => {
    const inspect = await serve(["inspect", "--host", "127.0.0.2"]);
    expect(inspect.url.hostname).toBe("127.0.0.2");
    expect(await reachable(inspect.url.href)).toBe(true);
    expect(await reachable(`http://127.0.0.1:${inspect.url.port}/`)).toBe(false);
  });

  it("says in one line that a busy port is in use and exits 2", async () => {
    const first = await serve(["inspect", "--port", "0"]);
    const result = await runCli(["inspect", "--port", first.url.port]);
    expect(result.code).toBe(2);
    expect(result.stderr).toBe(`loopchart inspect: cannot listen on 127.0.0.1:${first.url.port}: the port is in use (pick another with --port, or --port 0 for a free one)\n`);
    const file = join(await tempDir("loopchart-view-busy-"), "run.jsonl");
    await recordSampleRun(file);
    const view = await runCli(["view", file, "--no-open", "--port", first.url.port]);
    expect(view.code).toBe(2);
    expect(view.stderr.trim().split("\n")).toEqual([`loopchart view: cannot listen on 127.0.0.1:${first.url.port}: the port is in use (pick another with --port, or --port 0 for a free one)`]);
  });

  it("run --inspect without the token is refused (403), says so, and the run still ends normally", async () => {
    const inspect = await serve(["inspect", "--port", "0"]);
    const cwd = await tempDir("loopchart-inspect-notoken-");
    const run = await runCli(["run", "--inspect", `ws://127.0.0.1:${inspect.url.port}`, "--model", "scripted/demo", "--cwd", cwd, "Tidy up notes.txt"]);
    expect(run.code, run.stderr).toBe(0);
    expect(run.stderr).toContain("refused the connection (403): use the URL loopchart inspect printed, with its ?token=…");
    expect(await (await fetch(api(inspect.url, "api/runs"))).json()).toEqual([]);
  });

  it("rejects a port that is not a number with a usage error", async () => {
    const result = await runCli(["inspect", "--port", "eighty"]);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('--port expects a port number 0-65535, got "eighty"');
  });
});

describe("loopchart view", { timeout: 60_000 }, () => {
  it("names the file and line of a corrupted trace and exits 1, serving nothing", async () => {
    const file = join(await tempDir("loopchart-view-bad-"), "bad.jsonl");
    await writeFile(file, '{"type":"trace_header","version":2,"startedAt":""}\n{"t":1,"event":{"type":"agent_start"}}\n{oops\n');
    const result = await runCli(["view", file, "--no-open"]);
    expect(result.code).toBe(1);
    expect(result.stderr).toContain(`${file}:line 3: not valid JSON`);
    expect(result.stdout).not.toContain("Viewer:");
  });

  it("serves a recorded trace on 127.0.0.1, lists it, and opens the browser unless --no-open", async () => {
    const dir = await tempDir("loopchart-view-");
    const file = join(dir, "run.jsonl");
    await recordSampleRun(file);
    // A stand-in for the desktop's opener that notes the URL it was asked to open.
    const bin = join(dir, "bin");
    execFileSync("mkdir", [bin]);
    const opened = join(dir, "opened.txt");
    await writeFile(join(bin, "xdg-open"), `#!/bin/sh\necho "$1" > "${opened}"\n`);
    await chmod(join(bin, "xdg-open"), 0o755);
    const env = { PATH: `${bin}:${process.env.PATH ?? ""}` };

    const view = await serve(["view", file], env);
    expect(view.url.hostname).toBe("127.0.0.1");
    const runs = (await (await fetch(api(view.url, "api/runs"))).json()) as { label: string }[];
    expect(runs.map((r) => r.label)).toEqual([file]);
    let text = "";
    while (text === "") text = await readFile(opened, "utf8").catch(() => "");
    expect(text.trim()).toBe(view.url.href);
    expect((await stop(view)).code).toBe(0);

    await writeFile(opened, "");
    const quiet = await serve(["view", file, "--no-open"], env);
    expect(await reachable(quiet.url.href)).toBe(true);
    await stop(quiet);
    expect(await readFile(opened, "utf8")).toBe("");
  });
});
