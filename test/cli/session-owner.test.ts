/**
 * One owner per durable run, as real processes: two `resume`s of a killed session
 * started at once, two `approve`s of one waiting call at once, and a `resume` while
 * the first process still runs. Exactly one process continues; the other exits with
 * code 7 naming the holder before any tool runs; every call's side effect happens
 * once; the session loads afterwards. Both stores.
 */
import {  writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { EXIT_CODES } from "../../src/cli/exit-codes.js";
import { STORE_KINDS } from "../sessions/store-fixtures.js";
import { descendantsOf, killAll, survivors } from "./process-tree.js";
import { runCli, spawnCli, type CliResult } from "./spawn-cli.js";
import { bashCall, gatedCommand, loadStored, scriptModel, sideEffects, sleepingCommand, text, waitForSideEffect } from "./session-owner-fixture.js";
import { tempDirSync } from "../support/temp-dir.js";

const INTERRUPTED = "Tool call interrupted by a restart and not re-run";

/** Waits for the first of two processes to exit; returns it and the other. */
async function firstToExit(a: Promise<CliResult>, b: Promise<CliResult>): Promise<{ loser: CliResult; winner: Promise<CliResult> }> {
  const tagged = await Promise.race([a.then((result) => ({ result, other: b })), b.then((result) => ({ result, other: a }))]);
  return { loser: tagged.result, winner: tagged.other };
}

for (const kind of STORE_KINDS) {
  describe(`one owner per session (${kind.name} store)`, () => {
    const setup = () => {
      const dir = tempDirSync("loopchart-owner-");
      const spec = kind.cliSpec(kind.freshLocation());
      return { dir, spec, store: ["--store", spec] };
    };

    it("should let exactly one of two concurrent resumes of a killed session continue, the other exiting 7 before any tool runs", async () => {
      const { dir, spec, store } = setup();
      const model = scriptModel(dir, [bashCall("b1", sleepingCommand("b1")), bashCall("b2", gatedCommand("b2")), text("Finished.")]);
      const first = spawnCli(["run", "--model", model, "--cwd", dir, "--tools", "bash", "--session", "s", ...store, "Go"], { cwd: dir });
      await waitForSideEffect(dir, "START-b1");
      // A crash takes the tool's processes with it: an orphaned b1 would log END-b1 once its sleep ends,
      // in the middle of the assertions below on a slow machine.
      const tools = descendantsOf(first.child.pid as number);
      first.child.kill("SIGKILL");
      killAll(tools, "SIGKILL");
      expect((await first.done).signal).toBe("SIGKILL");
      expect(await survivors(tools)).toEqual([]);

      const a = spawnCli(["resume", "s", ...store], { cwd: dir }).done;
      const b = spawnCli(["resume", "s", ...store], { cwd: dir }).done;
      const { loser, winner } = await firstToExit(a, b);
      expect(loser.code).toBe(EXIT_CODES.sessionBusy);
      expect(loser.stderr).toMatch(/loopchart: Session "s" is in use by pid \d+ on \S+ since \d{4}-/);
      expect(loser.stdout).not.toContain("bash");
      writeFileSync(join(dir, "go"), "");
      const won = await winner;
      expect(won.stderr).toContain('Session "s" was held by pid');
      expect(won.stderr).toContain("is gone: taking it over");
      expect(won.code).toBe(0);
      expect(won.stdout).toContain("Finished.");
      expect(sideEffects(dir)).toEqual(["START-b1", "START-b2", "END-b2"]);
      const stored = await loadStored(spec, "s");
      expect(stored?.record.state).toBe("done");
      expect(stored?.messages.map((message) => message.role)).toEqual(["user", "assistant", "toolResult", "assistant", "toolResult", "assistant"]);
      expect(JSON.stringify(stored?.messages[2])).toContain(INTERRUPTED);
    }, 90_000);

    it("should run an approved call once when two approves of it start at once", async () => {
      const { dir, spec, store } = setup();
      const model = scriptModel(dir, [bashCall("w1", gatedCommand("w1")), text("Finished.")]);
      const waiting = await runCli(["run", "--model", model, "--cwd", dir, "--tools", "bash", "--needs-approval", "bash", "--session", "s", ...store, "Go"], { cwd: dir });
      expect(waiting.code).toBe(EXIT_CODES.approvalPending);

      const a = spawnCli(["approve", "s", "w1", ...store], { cwd: dir }).done;
      const b = spawnCli(["approve", "s", "w1", ...store], { cwd: dir }).done;
      const { loser, winner } = await firstToExit(a, b);
      expect(loser.code).toBe(EXIT_CODES.sessionBusy);
      expect(loser.stderr).toMatch(/Session "s" is in use by pid \d+/);
      writeFileSync(join(dir, "go"), "");
      const won = await winner;
      expect(won.code).toBe(0);
      expect(won.stdout).toContain("Finished.");
      expect(sideEffects(dir)).toEqual(["START-w1", "END-w1"]);
      const stored = await loadStored(spec, "s");
      expect(stored?.record.state).toBe("done");
      expect(stored?.messages.filter((message) => message.role === "toolResult")).toMatchObject([{ toolCallId: "w1", isError: false }]);
      const again = await runCli(["approve", "s", "w1", ...store], { cwd: dir });
      expect(again.code).toBe(EXIT_CODES.usage);
      expect(again.stderr).toContain('Session "s" is not awaiting approval (state: done).');
    }, 90_000);

    it("should refuse to resume or run a session whose first process is still running, naming that process", async () => {
      const { dir, spec, store } = setup();
      const model = scriptModel(dir, [bashCall("b1", gatedCommand("b1")), text("Finished.")]);
      const first = spawnCli(["run", "--model", model, "--cwd", dir, "--tools", "bash", "--session", "s", ...store, "Go"], { cwd: dir });
      await waitForSideEffect(dir, "START-b1");
      const resumed = await runCli(["resume", "s", ...store], { cwd: dir });
      expect(resumed.code).toBe(EXIT_CODES.sessionBusy);
      expect(resumed.stderr).toContain(`Session "s" is in use by pid ${first.child.pid} on `);
      const again = await runCli(["run", "--model", model, "--cwd", dir, "--tools", "bash", "--session", "s", ...store, "Other"], { cwd: dir });
      expect(again.code).toBe(EXIT_CODES.sessionBusy);
      writeFileSync(join(dir, "go"), "");
      const done = await first.done;
      expect(done.code).toBe(0);
      expect(sideEffects(dir)).toEqual(["START-b1", "END-b1"]);
      const stored = await loadStored(spec, "s");
      expect(stored?.record.state).toBe("done");
      expect(stored?.messages.map((message) => message.role)).toEqual(["user", "assistant", "toolResult", "assistant"]);
    }, 90_000);
  });
}
