/**
 * SIGTERM and SIGHUP suspend a durable run: the process saves the session, exits
 * 143 (129), `sessions` shows it resumable, and `resume` finishes it by the crash
 * rules (the interrupted `bash` call, replay "never", is not run again). Without
 * `--session`, SIGTERM aborts the run and exits 143. Real processes, both stores.
 */
import { describe, expect, it } from "vitest";
import { EXIT_CODES } from "../../src/cli/exit-codes.js";
import { STORE_KINDS } from "../sessions/store-fixtures.js";
import { runCli, spawnCli } from "./spawn-cli.js";
import { bashCall, loadStored, scriptModel, sideEffects, sleepingCommand, text, waitForSideEffect } from "./session-owner-fixture.js";
import { tempDirSync } from "../support/temp-dir.js";

const INTERRUPTED = "Tool call interrupted by a restart and not re-run";

for (const kind of STORE_KINDS) {
  describe(`a stop signal to a durable run (${kind.name} store)`, () => {
    for (const [signal, code] of [["SIGTERM", EXIT_CODES.terminated], ["SIGHUP", EXIT_CODES.hangup]] as const) {
      it(`should save the session on ${signal}, exit ${code}, and let resume finish it without running the interrupted call again`, async () => {
        const dir = tempDirSync("loopchart-signal-");
        const spec = kind.cliSpec(kind.freshLocation());
        const model = scriptModel(dir, [bashCall("b1", sleepingCommand("b1")), text("Resumed and finished.")]);
        const first = spawnCli(["run", "--model", model, "--cwd", dir, "--tools", "bash", "--session", "s", "--store", spec, "Go"], { cwd: dir });
        await waitForSideEffect(dir, "START-b1");
        first.child.kill(signal);
        const stopped = await first.done;
        expect(stopped.code).toBe(code);
        expect(stopped.stderr).toContain(`The session "s" is saved; continue it with:`);
        expect(stopped.stderr).not.toContain("loopchart: the run failed");
        const listed = await runCli(["sessions", "--store", spec], { cwd: dir });
        expect(listed.stdout).toMatch(/^s\s+running\s+1\s/m);
        const resumed = await runCli(["resume", "s", "--store", spec], { cwd: dir });
        expect(resumed.stderr).not.toContain("loopchart:");
        expect(resumed.code).toBe(0);
        expect(resumed.stdout).toContain("Resumed and finished.");
        expect(sideEffects(dir)).toEqual(["START-b1"]);
        const stored = await loadStored(spec, "s");
        expect(stored?.record.state).toBe("done");
        expect(stored?.messages.map((message) => message.role)).toEqual(["user", "assistant", "toolResult", "assistant"]);
        expect(JSON.stringify(stored?.messages[2])).toContain(INTERRUPTED);
      }, 60_000);
    }
  });
}

describe("a stop signal to a run without --session", () => {
  it("should abort the run on SIGTERM and exit 143", async () => {
    const dir = tempDirSync("loopchart-signal-");
    const model = scriptModel(dir, [bashCall("b1", sleepingCommand("b1")), text("Never reached.")]);
    const run = spawnCli(["run", "--model", model, "--cwd", dir, "--tools", "bash", "Go"], { cwd: dir });
    await waitForSideEffect(dir, "START-b1");
    run.child.kill("SIGTERM");
    const done = await run.done;
    expect(done.code).toBe(EXIT_CODES.terminated);
    expect(done.stderr).toContain("SIGTERM: aborting the run");
    expect(done.stdout).not.toContain("Never reached.");
  }, 60_000);

  it("should still abort a durable run on Ctrl-C (SIGINT) and exit 130, leaving nothing to resume", async () => {
    const dir = tempDirSync("loopchart-signal-");
    const model = scriptModel(dir, [bashCall("b1", sleepingCommand("b1")), text("Never reached.")]);
    const run = spawnCli(["run", "--model", model, "--cwd", dir, "--tools", "bash", "--session", "s", "Go"], { cwd: dir });
    await waitForSideEffect(dir, "START-b1");
    run.child.kill("SIGINT");
    const done = await run.done;
    expect(done.code).toBe(EXIT_CODES.aborted);
    const resumed = await runCli(["resume", "s"], { cwd: dir });
    expect(resumed.code).toBe(0);
    expect(resumed.stderr).toContain('Session "s" is failed (aborted): nothing to resume.');
  }, 60_000);
});
