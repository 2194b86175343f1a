/**
 * `loopchart run --session`, `resume` and `sessions` as real processes: a stored run
 * is listed, continued with the next prompt, and — killed with SIGKILL mid-tool —
 * resumed by another process without running the interrupted bash call again.
 */
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { openSessionStore } from "../../src/sessions/open-session-store.js";
import { runCli, spawnCli } from "./spawn-cli.js";
import { STORE_KINDS } from "../sessions/store-fixtures.js";
import { tempDirSync } from "../support/temp-dir.js";

const INTERRUPTED = "Tool call interrupted by a restart and not re-run; its side effects, if any, are unknown.";

function scriptFile(dir: string, responses: unknown[]): string {
  const path = join(dir, "script.json");
  writeFileSync(path, JSON.stringify({ name: "session-test", responses }));
  return path;
}

const text = (value: string) => ({ content: [{ type: "text", text: value }] });

describe("loopchart run --session and sessions", () => {
  it("should store the run in .loopchart/sessions, list it, and go on with the next prompt after its transcript", async () => {
    const dir = tempDirSync("loopchart-cli-session-");
    writeFileSync(join(dir, "a.txt"), "alpha\n");
    const script = scriptFile(dir, [
      { content: [{ type: "toolCall", id: "r1", name: "read", arguments: { path: "a.txt" } }] },
      text("It says alpha."),
      text("Second answer."),
    ]);
    const first = await runCli(["run", "--model", `scripted/${script}`, "--cwd", dir, "--session", "notes", "Read a.txt"], { cwd: dir });
    expect(first.stderr).not.toContain("loopchart:");
    expect(first.code).toBe(0);
    expect(first.stdout).toContain("It says alpha.");
    const listed = await runCli(["sessions"], { cwd: dir });
    expect(listed.code).toBe(0);
    expect(listed.stdout).toMatch(/^ID\s+STATE\s+TURNS\s+LAST ACTIVITY\nnotes\s+done\s+2\s+\d{4}-\d\d-\d\dT/);
    const second = await runCli(["run", "--model", `scripted/${script}`, "--cwd", dir, "--session", "notes", "And now?"], { cwd: dir });
    expect(second.code).toBe(0);
    expect(second.stdout).toContain("Second answer.");
    const json = await runCli(["sessions", "--json"], { cwd: dir });
    expect(JSON.parse(json.stdout.trim())).toMatchObject({ id: "notes", state: "done", turns: 3 });
    const store = await openSessionStore(join(dir, ".loopchart/sessions"));
    const stored = await store.load("notes");
    expect(stored?.messages.map((message) => message.role)).toEqual(["user", "assistant", "toolResult", "assistant", "user", "assistant"]);
    const resumed = await runCli(["resume", "notes"], { cwd: dir });
    expect(resumed.code).toBe(0);
    expect(resumed.stderr).toContain('Session "notes" is done (completed): nothing to resume.');
  }, 60_000);

  it("should say what is wrong with a session id, a missing session, and a session file that is damaged", async () => {
    const dir = tempDirSync("loopchart-cli-session-");
    const badId = await runCli(["run", "--model", "scripted/demo", "--cwd", dir, "--session", "../x", "hi"], { cwd: dir });
    expect(badId.code).toBe(2);
    expect(badId.stderr).toContain('--session expects an id of 1–128 letters');
    const missing = await runCli(["resume", "ghost"], { cwd: dir });
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain(`No session "ghost" in ${join(dir, ".loopchart/sessions")}`);
    const storeOnly = await runCli(["run", "--model", "scripted/demo", "--cwd", dir, "--store", "x", "hi"], { cwd: dir });
    expect(storeOnly.code).toBe(2);
    expect(storeOnly.stderr).toContain("--store only applies with --session");
    const recordPath = join(dir, ".loopchart/sessions/broken/session.json");
    await (await openSessionStore(join(dir, ".loopchart/sessions"))).recordCallStart("broken", "1:1:x");
    writeFileSync(recordPath, "{ not json");
    const listed = await runCli(["sessions"], { cwd: dir });
    expect(listed.code).toBe(0);
    expect(listed.stdout).toMatch(/^broken\s+broken\s+-\s+-$/m);
    expect(listed.stderr).toContain(`loopchart: session "broken" cannot be read: ${recordPath}: not valid JSON (truncated or corrupted)`);
    expect(readFileSync(recordPath, "utf8")).toBe("{ not json");
  }, 60_000);
});

for (const kind of STORE_KINDS) {
  describe(`loopchart resume after SIGKILL mid-tool (${kind.name} store)`, () => {
    it("should finish the run in a new process, giving the interrupted bash call an error result instead of running it again", async () => {
      const dir = tempDirSync("loopchart-cli-crash-");
      const location = kind.freshLocation();
      const storeArgs = ["--store", kind.cliSpec(location)];
      const script = scriptFile(dir, [
        { content: [{ type: "text", text: "Counting." }, { type: "toolCall", id: "b1", name: "bash", arguments: { command: "echo ran >> ran.txt; sleep 30" } }] },
        text("The count was interrupted."),
      ]);
      const { child, done } = spawnCli(["run", "--model", `scripted/${script}`, "--cwd", dir, "--tools", "bash", "--session", "crash", ...storeArgs, "Count"], { cwd: dir });
      // The call's start is stored before its tool runs, so once ran.txt exists the store knows.
      await new Promise<void>((resolve) => {
        const poll = () => (existsSync(join(dir, "ran.txt")) ? resolve() : setTimeout(poll, 20));
        poll();
      });
      child.kill("SIGKILL");
      expect((await done).signal).toBe("SIGKILL");
      const listed = await runCli(["sessions", ...storeArgs], { cwd: dir });
      expect(listed.stdout).toMatch(/crash\s+running\s+1\s/);
      const again = await runCli(["run", "--model", `scripted/${script}`, "--cwd", dir, "--session", "crash", ...storeArgs, "Other"], { cwd: dir });
      expect(again.code).toBe(2);
      expect(again.stderr).toContain(`Session "crash" has an unfinished run (running); continue it with`);
      const resumed = await runCli(["resume", "crash", ...storeArgs], { cwd: dir });
      expect(resumed.stderr).not.toContain("loopchart:");
      expect(resumed.code).toBe(0);
      expect(resumed.stdout).toContain("The count was interrupted.");
      expect(readFileSync(join(dir, "ran.txt"), "utf8")).toBe("ran\n");
      const store = await openSessionStore(kind.cliSpec(location));
      const stored = await store.load("crash");
      await store.close();
      expect(stored?.record.state).toBe("done");
      const results = stored?.messages.filter((message) => message.role === "toolResult") ?? [];
      expect(results).toHaveLength(1);
      expect(results[0]).toMatchObject({ toolCallId: "b1", isError: true, content: [{ type: "text", text: INTERRUPTED }] });
      expect(stored?.messages.map((message) => message.role)).toEqual(["user", "assistant", "toolResult", "assistant"]);
    }, 60_000);
  });
}
