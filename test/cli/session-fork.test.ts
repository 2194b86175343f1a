/**
 * `loopchart fork` and `loopchart sessions --tree` as real processes, for both stores: a
 * five-turn session forked at turn 2 with a new prompt continues from exactly that
 * checkpoint's transcript, the parent stays byte-identical, the tree shows both; and
 * each refusal says why with exit code 2.
 */
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it, onTestFinished } from "vitest";
import { openSessionStore } from "../../src/sessions/open-session-store.js";
import type { AgentMessage } from "../../src/types.js";
import { sampleRecord, sessionBytes, STORE_KINDS } from "../sessions/store-fixtures.js";
import { tempDirSync } from "../support/temp-dir.js";
import { runCli, spawnCli, waitForOutput } from "./spawn-cli.js";

const text = (value: string) => ({ content: [{ type: "text", text: value }] });
const read = (id: string, path: string) => ({ content: [{ type: "toolCall", id, name: "read", arguments: { path } }] });
const textOf = (message: AgentMessage | undefined): string => {
  const content = (message as { content?: unknown } | undefined)?.content;
  if (typeof content === "string") return content;
  return Array.isArray(content) ? content.map((block: { text?: string }) => block.text ?? "").join("") : "";
};

for (const kind of STORE_KINDS) {
  describe(`loopchart fork (${kind.name} store)`, () => {
    it("should fork a five-turn session at turn 2 with a new prompt, leave the parent byte-identical, and show both in sessions --tree", async () => {
      const dir = tempDirSync("loopchart-cli-fork-");
      const location = kind.freshLocation();
      const store = ["--store", kind.cliSpec(location)];
      writeFileSync(join(dir, "a.txt"), "alpha\n");
      writeFileSync(join(dir, "b.txt"), "beta\n");
      const script = join(dir, "script.json");
      writeFileSync(script, JSON.stringify({ name: "fork-test", responses: [read("r1", "a.txt"), text("It says alpha."), read("r2", "b.txt"), read("r3", "a.txt"), text("Both read."), text("A new answer.")] }));
      const run = (prompt: string) => runCli(["run", "--model", `scripted/${script}`, "--cwd", dir, "--tools", "read", "--session", "main", ...store, prompt], { cwd: dir });
      expect((await run("Read a.txt")).code).toBe(0);
      expect((await run("Now b.txt and a.txt")).code).toBe(0);
      const before = sessionBytes(kind, location, "main");
      const parent = await (await openSessionStore(kind.cliSpec(location))).load("main");
      expect(parent?.record.turns).toBe(5);

      const fork = await runCli(["fork", "main", "--at", "2", "--session", "alt", "--prompt", "Something else?", ...store], { cwd: dir });
      expect(fork.stderr).toContain('Forked session "main" at the end of turn 2 into "alt".');
      expect(fork.stderr).not.toContain("loopchart:");
      expect(fork.code).toBe(0);
      expect(sessionBytes(kind, location, "main")).toBe(before);

      const opened = await openSessionStore(kind.cliSpec(location));
      const alt = await opened.load("alt");
      await opened.close();
      // Exactly the checkpoint's transcript (the first run's four messages), then the new prompt and its run.
      expect(alt?.messages.slice(0, 4)).toEqual(parent?.messages.slice(0, 4));
      expect(textOf(alt?.messages[4])).toBe("Something else?");
      expect(alt?.messages.slice(5).map((message) => message.role)).toEqual(["assistant", "toolResult", "assistant", "toolResult", "assistant"]);
      expect(alt?.record).toMatchObject({ state: "done", turns: 5, forkedFrom: { session: "main", at: "2", turn: 2 } });

      const tree = await runCli(["sessions", "--tree", ...store], { cwd: dir });
      expect(tree.code).toBe(0);
      expect(tree.stdout).toMatch(/^ID\s+STATE\s+TURNS\s+LAST ACTIVITY\n/);
      const lines = tree.stdout.trimEnd().split("\n").slice(1);
      const mainLine = lines.findIndex((line) => /^main\s+done\s+5\s/.test(line));
      expect(mainLine).toBeGreaterThanOrEqual(0);
      expect(lines[mainLine + 1]).toMatch(/^└─ alt \(at 2\)\s+done\s+5\s/);
      const flat = await runCli(["sessions", "--json", ...store], { cwd: dir });
      expect(flat.stdout.trim().split("\n").map((line) => JSON.parse(line) as { id: string; forkedFrom?: { session: string } }).find((s) => s.id === "alt")?.forkedFrom?.session).toBe("main");

      // Without a prompt, a fork mid-run goes on with that run: the next request is made again.
      const midRun = await runCli(["fork", "main", "--at", "3", ...store], { cwd: dir });
      expect(midRun.code).toBe(0);
      expect(midRun.stderr).toContain('into "main.at-3"');
      const again = await openSessionStore(kind.cliSpec(location));
      const mid = await again.load("main.at-3");
      const tree2 = await again.list();
      await again.close();
      expect(mid?.messages.slice(0, 7)).toEqual(parent?.messages.slice(0, 7));
      expect(mid?.record).toMatchObject({ state: "done", turns: 5, forkedFrom: { at: "3" } });
      expect(tree2.map((session) => session.id).sort()).toEqual(["alt", "main", "main.at-3"]);
      expect(sessionBytes(kind, location, "main")).toBe(before);
    }, 120_000);

    it("should fork a session while another process is running it, which goes on undisturbed", async () => {
      const dir = tempDirSync("loopchart-cli-fork-");
      const location = kind.freshLocation();
      const store = ["--store", kind.cliSpec(location)];
      writeFileSync(join(dir, "a.txt"), "alpha\n");
      const script = join(dir, "script.json");
      const bash = { content: [{ type: "toolCall", id: "b1", name: "bash", arguments: { command: "while [ ! -e go ]; do sleep 0.05; done; echo went" } }] };
      writeFileSync(script, JSON.stringify({ name: "fork-live", responses: [read("r1", "a.txt"), bash, text("All done."), text("Forked answer.")] }));
      const running = spawnCli(["run", "--model", `scripted/${script}`, "--cwd", dir, "--tools", "read,bash", "--session", "live", ...store, "Read, then wait"], { cwd: dir });
      // Whatever fails below, no process is left waiting for the go file.
      onTestFinished(() => {
        writeFileSync(join(dir, "go"), "");
        if (running.child.exitCode === null) running.child.kill("SIGKILL");
      });
      // Turn 1's checkpoint is on disk once turn 2's bash call is waiting for the go file.
      for (;;) {
        const probe = await openSessionStore(kind.cliSpec(location));
        const labels = ((await probe.loadCheckpoints?.("live")) ?? []).map((checkpoint) => checkpoint.turn);
        const startedCalls = (await probe.load("live"))?.startedCalls ?? [];
        await probe.close();
        if (labels.includes(1) && startedCalls.length === 2) break;
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
      // The fork's scripted model plays on from turn 1 too (the same bash call, waiting for the same file): both finish once it exists.
      const forking = spawnCli(["fork", "live", "--at", "1", "--session", "side", "--prompt", "Never mind", ...store], { cwd: dir });
      await waitForOutput(forking.child, (output) => output.includes("→ bash"));
      writeFileSync(join(dir, "go"), "");
      const fork = await forking.done;
      expect(fork.stderr).not.toContain("loopchart:");
      expect(fork.code).toBe(0);
      const parentRun = await running.done;
      expect(parentRun.stderr).not.toContain("loopchart:");
      expect(parentRun.code).toBe(0);
      const opened = await openSessionStore(kind.cliSpec(location));
      const live = await opened.load("live");
      const side = await opened.load("side");
      await opened.close();
      expect(live?.record).toMatchObject({ state: "done", turns: 3 });
      expect(live?.messages.map((message) => message.role)).toEqual(["user", "assistant", "toolResult", "assistant", "toolResult", "assistant"]);
      expect(side?.messages.slice(0, 3)).toEqual(live?.messages.slice(0, 3));
      expect(textOf(side?.messages[3])).toBe("Never mind");
    }, 120_000);

    it("should refuse, with exit code 2 and the reason, an unknown session, a turn out of range, a taken id, and sessions without checkpoints", async () => {
      const dir = tempDirSync("loopchart-cli-fork-");
      const location = kind.freshLocation();
      const store = ["--store", kind.cliSpec(location)];
      const script = join(dir, "script.json");
      writeFileSync(script, JSON.stringify({ name: "fork-errors", responses: [text("one"), text("two")] }));
      expect((await runCli(["run", "--model", `scripted/${script}`, "--cwd", dir, "--session", "main", ...store, "hi"], { cwd: dir })).code).toBe(0);
      const before = sessionBytes(kind, location, "main");

      const ghost = await runCli(["fork", "ghost", "--at", "1", ...store], { cwd: dir });
      expect(ghost.code).toBe(2);
      expect(ghost.stderr).toContain('No session "ghost" in');
      const range = await runCli(["fork", "main", "--at", "4", ...store], { cwd: dir });
      expect(range.code).toBe(2);
      expect(range.stderr).toContain('loopchart: Session "main" has no checkpoint 4; it has: turn 1.');
      const taken = await runCli(["fork", "main", "--at", "1", "--session", "main", ...store], { cwd: dir });
      expect(taken.code).toBe(2);
      expect(taken.stderr).toContain('Session "main" already exists in');
      const badAt = await runCli(["fork", "main", "--at", "two", ...store], { cwd: dir });
      expect(badAt.code).toBe(2);
      expect(badAt.stderr).toContain("--at expects a turn number");
      const noAt = await runCli(["fork", "main", ...store], { cwd: dir });
      expect(noAt.code).toBe(2);

      expect((await runCli(["run", "--model", `scripted/${script}`, "--cwd", dir, "--session", "small", "--checkpoints", "latest", ...store, "hi"], { cwd: dir })).code).toBe(0);
      const latest = await runCli(["fork", "small", "--at", "1", ...store], { cwd: dir });
      expect(latest.code).toBe(2);
      expect(latest.stderr).toContain('Session "small" keeps only its latest snapshot (checkpoints: "latest")');

      // A session as loopchart wrote it before it kept checkpoints.
      const opened = await openSessionStore(kind.cliSpec(location));
      await opened.save("old", { record: sampleRecord("old", { state: "done", turns: 1, meta: { cli: 1, model: `scripted/${script}`, tools: [], cwd: dir } }), firstIndex: 0, messages: [] });
      await opened.close();
      const old = await runCli(["fork", "old", "--at", "1", ...store], { cwd: dir });
      expect(old.code).toBe(2);
      expect(old.stderr).toContain('Session "old" has no checkpoints: it was written before loopchart kept them');
      const listed = await runCli(["sessions", "--tree", ...store], { cwd: dir });
      expect(listed.stdout).not.toContain("main.at-");
      expect(sessionBytes(kind, location, "main")).toBe(before);
    }, 120_000);
  });
}
