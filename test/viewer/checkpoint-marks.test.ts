/**
 * The viewer's checkpoint marks, read off real traces of a durable session (no browser):
 * a wait for approval is marked with its call, a run restored by `approve` (which starts
 * no turn it had started already) numbers its turns as the session does, and the fork
 * command printed for the wait forks the session there: the fork waits again, and
 * another decision than the parent's is taken.
 */
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { loadTrace } from "../../src/cli/trace-reader.js";
import { openSessionStore } from "../../src/sessions/open-session-store.js";
import { checkpointAt, forkCommand, type RunSession } from "../../visualizations/viewer/fork-command.js";
import { emptyIndex, indexRecords, type ViewRecord } from "../../visualizations/viewer/run-index.js";
import { runCli } from "../cli/spawn-cli.js";
import { sessionBytes, STORE_KINDS, type StoreKind } from "../sessions/store-fixtures.js";
import { tempDirSync } from "../support/temp-dir.js";

async function marksOf(path: string): Promise<{ labels: string[]; session: RunSession | undefined; commands: string[] }> {
  const trace = await loadTrace(path);
  const index = emptyIndex();
  indexRecords(index, trace.records as unknown as ViewRecord[]);
  const session = trace.header.session;
  return { labels: index.checkpoints.map((mark) => checkpointAt(mark, session)), session, commands: session ? index.checkpoints.map((mark) => forkCommand(mark, session)) : [] };
}

describe("checkpoint marks of a session that waited for approval", () => {
  const kind = STORE_KINDS[0] as StoreKind;
  it("should mark the wait with its call, number a restored run's turns as the session does, and fork at the wait so it can be decided again", async () => {
    const dir = tempDirSync("loopchart-marks-");
    const location = kind.freshLocation();
    writeFileSync(join(dir, "a.txt"), "alpha\n");
    const script = join(dir, "script.json");
    writeFileSync(script, JSON.stringify({ name: "marks", responses: [{ content: [{ type: "toolCall", id: "r1", name: "read", arguments: { path: "a.txt" } }] }, { content: [{ type: "text", text: "Read it." }] }] }));
    const store = ["--store", location];
    const waited = await runCli(["run", "--model", `scripted/${script}`, "--cwd", dir, "--tools", "read", "--needs-approval", "read", "--session", "dep", ...store, "--trace", join(dir, "t1.jsonl"), "Read a.txt"], { cwd: dir });
    expect(waited.code).toBe(4);
    const first = await marksOf(join(dir, "t1.jsonl"));
    expect(first.labels).toEqual(["1:r1"]);
    expect(first.commands).toEqual([`loopchart fork dep --at 1:r1 --store ${location}`]);

    const approved = await runCli(["approve", "dep", "r1", ...store, "--trace", join(dir, "t2.jsonl")], { cwd: dir });
    expect(approved.code).toBe(0);
    // Restored mid-turn 1: its turn_end is turn 1's, the next turn is 2.
    const second = await marksOf(join(dir, "t2.jsonl"));
    expect(second.session).toEqual({ id: "dep", store: location, turnsBefore: 0 });
    expect(second.labels).toEqual(["1", "2"]);
    const before = sessionBytes(kind, location, "dep");

    // The command printed for the wait, run as printed: the fork waits again (no terminal: exit 4), and is rejected this time.
    const words = (first.commands[0] ?? "").split(" ").slice(1);
    const forked = await runCli([...words, "--session", "dep-no"], { cwd: dir, input: "" });
    expect(forked.stderr).toContain(`Forked session "dep" at turn 1's wait for approval of r1 into "dep-no".`);
    expect(forked.code).toBe(4);
    const rejected = await runCli(["reject", "dep-no", "r1", "--reason", "not now", ...store], { cwd: dir });
    expect(rejected.code).toBe(0);
    const opened = await openSessionStore(location);
    const parent = await opened.load("dep");
    const fork = await opened.load("dep-no");
    await opened.close();
    expect(parent?.messages.map((message) => message.role)).toEqual(["user", "assistant", "toolResult", "assistant"]);
    expect(parent?.messages[2]).toMatchObject({ isError: false });
    expect(fork?.messages.slice(0, 2)).toEqual(parent?.messages.slice(0, 2));
    expect(fork?.messages[2]).toMatchObject({ toolCallId: "r1", isError: true });
    expect(JSON.stringify(fork?.messages[2])).toContain("not now");
    expect(fork?.record.forkedFrom).toMatchObject({ session: "dep", at: "1:r1", kind: "approval", turn: 1 });
    expect(sessionBytes(kind, location, "dep")).toBe(before);
  }, 120_000);
});
