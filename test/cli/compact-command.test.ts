/**
 * `loopchart compact <id>` as real processes on real sessions made by
 * `loopchart run --session --model scripted/…`: it compacts with the session's
 * model, the log keeps every message, the next run starts from the summary; an
 * unknown session, one another process holds, one waiting for approval and one cut
 * off mid-run are refused with their exit codes, the session left as it was.
 */
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { isSummaryMessage, readSummaryMessage } from "../../src/compaction/summary-message.js";
import { sessionTranscript } from "../../src/sessions/session-transcript.js";
import { STORE_KINDS, sampleRecord } from "../sessions/store-fixtures.js";
import { tempDirSync } from "../support/temp-dir.js";
import { loadStored, scriptModel, text } from "./session-owner-fixture.js";
import { runCli } from "./spawn-cli.js";

const read = (id: string, path: string) => ({ content: [{ type: "toolCall", id, name: "read", arguments: { path } }] });
const SUMMARY = "## Goal\nRead the big files.\n## Files\na.txt, b.txt\n## Open problems\nnone";

describe.each(STORE_KINDS)("loopchart compact ($name store)", { timeout: 120_000 }, (kind) => {
  it("compacts a stored session with its model; the log keeps every message; the next run starts from the summary", async () => {
    const dir = tempDirSync("loopchart-compact-");
    const spec = kind.cliSpec(kind.freshLocation());
    writeFileSync(join(dir, "a.txt"), "alpha ".repeat(700));
    writeFileSync(join(dir, "b.txt"), "beta ".repeat(800));
    const model = scriptModel(dir, [read("r1", "a.txt"), read("r2", "b.txt"), text("Both read.")]);
    const run = await runCli(["run", "--model", model, "--cwd", dir, "--tools", "read", "--compact", "keep=200", "--session", "big", "--store", spec, "Read a.txt and b.txt"], { cwd: dir });
    expect(run.code, run.stderr).toBe(0);
    const before = (await loadStored(spec, "big"))!;
    expect(before.record.compactions).toBeUndefined();

    // A summarizer that fails leaves the session as it was (exit 1).
    scriptModel(dir, [{ content: [], stopReason: "error", errorMessage: "the provider is down" }]);
    const failed = await runCli(["compact", "big", "--store", spec], { cwd: dir });
    expect(failed.code).toBe(1);
    expect(failed.stderr).toContain('the summary of session "big" could not be written; the session is unchanged: the summary request failed: the provider is down');
    expect(await loadStored(spec, "big")).toEqual(before);

    // The compact process's scripted model answers the summarizer's request.
    scriptModel(dir, [text(SUMMARY)]);
    const compacted = await runCli(["compact", "big", "--store", spec, "--instructions", "keep the file names"], { cwd: dir });
    expect(compacted.code, compacted.stderr).toBe(0);
    expect(compacted.stdout).toMatch(/^Compacted session "big": \d+ messages summarized, ~[\d,]+ → ~[\d,]+ tokens\.\nSummary:\n {2}## Goal\n {2}Read the big files\.\n/);
    expect(compacted.stderr).toMatch(/Continue it with .* run --session big --store /);
    const after = (await loadStored(spec, "big"))!;
    expect(after.messages).toEqual(before.messages);
    expect(after.record.compactions).toEqual([expect.objectContaining({ reason: "manual", run: 1, summary: expect.stringContaining("Read the big files.") })]);
    const entry = after.record.compactions![0]!;
    expect(entry.tokensAfter).toBeLessThan(entry.tokensBefore);
    const live = sessionTranscript(after);
    expect(isSummaryMessage(live[0])).toBe(true);
    expect(readSummaryMessage(live[0]!)?.files.read).toEqual(expect.arrayContaining([expect.stringContaining("a.txt")]));
    expect(live.slice(1)).toEqual(before.messages.slice(entry.keptFrom));

    // Nothing unfinished: resume says so, and the next run goes on from the summary.
    const resumed = await runCli(["resume", "big", "--store", spec], { cwd: dir });
    expect(resumed.code, resumed.stderr).toBe(0);
    expect(resumed.stderr).toContain("nothing to resume");
    // The scripted model counts each assistant message of the transcript as a response played: those kept come first.
    const kept = live.filter((message) => message.role === "assistant").length;
    scriptModel(dir, [...Array.from({ length: kept }, () => text("(played before)")), text("Going on from the summary.")]);
    const next = await runCli(["run", "--model", model, "--cwd", dir, "--tools", "read", "--session", "big", "--store", spec, "What next?"], { cwd: dir });
    expect(next.code, next.stderr).toBe(0);
    expect(next.stdout).toContain("Going on from the summary.");
    const final = (await loadStored(spec, "big"))!;
    expect(final.messages.slice(0, before.messages.length)).toEqual(before.messages);
    expect(final.messages.slice(before.messages.length).map((message) => message.role)).toEqual(["user", "assistant"]);
    const transcript = sessionTranscript(final);
    expect(transcript.slice(0, live.length)).toEqual(live);
    expect(transcript).toHaveLength(live.length + 2);

    // --json: one object; a second compaction updates the summary.
    scriptModel(dir, [text("## Goal\nRead the big files, then go on.")]);
    const json = await runCli(["compact", "big", "--store", spec, "--json"], { cwd: dir });
    expect(json.code, json.stderr).toBe(0);
    const result = JSON.parse(json.stdout) as Record<string, unknown>;
    expect(result).toMatchObject({ session: "big", compacted: true, summary: "## Goal\nRead the big files, then go on." });
    expect((await loadStored(spec, "big"))!.record.compactions).toHaveLength(2);
  });

  it("refuses an unknown session (2), one another process holds (7), one waiting for approval (4) and one cut off mid-run (2)", async () => {
    const dir = tempDirSync("loopchart-compact-refusals-");
    const location = kind.freshLocation();
    const spec = kind.cliSpec(location);
    const unknown = await runCli(["compact", "nope", "--store", spec], { cwd: dir });
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toContain('No session "nope"');

    const model = scriptModel(dir, [{ content: [{ type: "toolCall", id: "w1", name: "write", arguments: { path: "x.txt", content: "x" } }] }, text("written")]);
    const waiting = await runCli(["run", "--model", model, "--cwd", dir, "--tools", "write", "--needs-approval", "write", "--session", "wait", "--store", spec, "Write x"], { cwd: dir });
    expect(waiting.code).toBe(4);
    const saved = await loadStored(spec, "wait");
    const refused = await runCli(["compact", "wait", "--store", spec], { cwd: dir });
    expect(refused.code).toBe(4);
    expect(refused.stderr).toContain('session "wait" waits for approval of w1: answer it first');
    expect(await loadStored(spec, "wait")).toEqual(saved);

    // This test process holds the session's lease, as a running loopchart would.
    const holder = await kind.open(location);
    try {
      await holder.acquire("wait");
      const busy = await runCli(["compact", "wait", "--store", spec], { cwd: dir });
      expect(busy.code).toBe(7);
      expect(busy.stderr).toMatch(/Session "wait" is in use by pid \d+/);

      // A session whose process died mid-run (its snapshot still active, no holder).
      await holder.save("cut", { record: sampleRecord("cut", { state: "running", snapshot: { status: "active", context: {} } }), firstIndex: 0, messages: [] });
    } finally {
      await holder.close();
    }
    const cut = await runCli(["compact", "cut", "--store", spec], { cwd: dir });
    expect(cut.code).toBe(2);
    expect(cut.stderr).toMatch(/Session "cut" has an unfinished run \(its process died mid-run\): continue it with .* resume cut --store /);

    const usage = await runCli(["compact", "--store", spec], { cwd: dir });
    expect(usage.code).toBe(2);
    const help = await runCli(["compact", "--help"], { cwd: dir });
    expect(help.code).toBe(0);
    expect(help.stdout).toContain("Usage: loopchart compact [options] <session-id>");
  });
});
