/**
 * Compaction in durable sessions: recorded in the session (the summary, where the
 * live transcript starts, every compaction for audit) while the message log keeps
 * every message; a process SIGKILLed while compacting resumes by compacting again.
 */
import { spawn } from "node:child_process";
import { join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { describe, expect, it } from "vitest";
import { openSessionStore } from "../../src/sessions/open-session-store.js";
import type { StoredSession } from "../../src/sessions/session-store.js";
import { isSummaryMessage } from "../../src/compaction/summary-message.js";
import type { AgentMessage } from "../../src/types.js";
import { REPO_ROOT } from "../cli/spawn-cli.js";
import { STORE_KINDS } from "../sessions/store-fixtures.js";
import type { CompactionChildOptions } from "./compaction-crash-child.js";
import { orphanCalls } from "./transcripts.js";

const CHILD = fileURLToPath(new URL("./compaction-crash-child.ts", import.meta.url));
const TSX_LOADER = pathToFileURL(join(REPO_ROOT, "node_modules/tsx/dist/loader.mjs")).href;

async function loadSession(spec: string, id: string): Promise<StoredSession | undefined> {
  const store = await openSessionStore(spec);
  try {
    return await store.load(id);
  } finally {
    await store.close();
  }
}

/** Runs the child to its end, or (with `killWhen`) SIGKILLs it once it held and `killWhen` says the store is ready. */
function runChild(options: CompactionChildOptions, killWhen?: () => Promise<boolean>): Promise<{ lines: string[]; killed: boolean }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ["--import", TSX_LOADER, CHILD, JSON.stringify(options)], { cwd: REPO_ROOT, stdio: ["ignore", "pipe", "pipe"] });
    let out = "";
    let err = "";
    let killing = false;
    child.stdout.on("data", (chunk: Buffer) => {
      out += chunk.toString();
      if (killWhen && !killing && out.includes("HOLD summarizing")) {
        killing = true;
        const poll = async (): Promise<void> => {
          if (await killWhen()) child.kill("SIGKILL");
          else setTimeout(() => void poll().catch(reject), 10);
        };
        void poll().catch(reject);
      }
    });
    child.stderr.on("data", (chunk: Buffer) => (err += chunk.toString()));
    child.on("error", reject);
    // "close", not "exit": the RESULT line may still be unread in the pipe when the process has exited.
    child.on("close", (code, signal) => {
      if (signal === "SIGKILL" && killing) return resolve({ lines: out.split("\n"), killed: true });
      if (code !== 0) return reject(new Error(`child exited ${code ?? signal}: ${err}`));
      resolve({ lines: out.split("\n"), killed: false });
    });
  });
}

const resultOf = (lines: string[]) => JSON.parse(lines.find((line) => line.startsWith("RESULT "))!.slice(7)) as AgentMessage[];
const paths = (messages: readonly AgentMessage[]) =>
  messages.flatMap((message) => (message.role === "toolResult" ? [/src\/f\d+\.ts/.exec(JSON.stringify(message.content))?.[0]] : []));

describe.each(STORE_KINDS)("compaction in a durable session ($name store)", (kind) => {
  it("records the compaction, keeps every message in the log, and resumes the compacted transcript", async () => {
    const dir = kind.cliSpec(kind.freshLocation());
    const options = { store: dir, sessionId: "s1", resume: false, holdInSummary: false };
    const { lines } = await runChild(options);
    const stored = (await loadSession(dir, "s1"))!;
    expect(stored.record.state).toBe("done");
    expect(stored.record.compactions).toHaveLength(1);
    expect(stored.record.compactions![0]).toMatchObject({ run: 1, reason: "threshold", summary: "## Goal\nread every file" });
    expect(stored.record.compactions![0]!.tokensAfter).toBeLessThan(stored.record.compactions![0]!.tokensBefore);
    // The log keeps every message, the replaced ones too, each once and in order.
    expect(paths(stored.messages)).toEqual(Array.from({ length: 8 }, (_, index) => `src/f${index + 1}.ts`));
    expect(stored.messages.some((message) => isSummaryMessage(message))).toBe(false);
    // The agent's transcript is the live one: the summary, then the log from where it kept messages.
    const live = resultOf(lines);
    expect(isSummaryMessage(live[0])).toBe(true);
    expect(live.slice(1)).toEqual(stored.messages.slice(stored.record.compaction!.keptFrom));
    expect(orphanCalls(live)).toEqual([]);

    // The next run starts from the compacted transcript; the log gets exactly its new messages.
    const again = await runChild({ ...options, resume: true, promptAgain: "Anything else?" });
    const after = (await loadSession(dir, "s1"))!;
    expect(after.messages.slice(0, stored.messages.length)).toEqual(stored.messages);
    expect(after.messages.slice(stored.messages.length).map((message) => message.role)).toEqual(["user", "assistant"]);
    expect(after.record.compaction).toEqual(stored.record.compaction);
    expect(resultOf(again.lines)).toEqual([...live, ...after.messages.slice(stored.messages.length)]);
  }, 60_000);

  it("a process SIGKILLed while compacting resumes by compacting again; the log has one compaction", async () => {
    const dir = kind.cliSpec(kind.freshLocation());
    const first = await runChild({ store: dir, sessionId: "s1", resume: false, holdInSummary: true }, async () => {
      const value = (await loadSession(dir, "s1").catch(() => undefined))?.record.snapshot as { value?: unknown } | undefined;
      return JSON.stringify(value?.value) === JSON.stringify({ requesting: "compacting" });
    });
    expect(first.killed).toBe(true);
    const crashed = (await loadSession(dir, "s1"))!;
    expect(crashed.record.compactions ?? []).toHaveLength(0);

    const second = await runChild({ store: dir, sessionId: "s1", resume: true, holdInSummary: false });
    const stored = (await loadSession(dir, "s1"))!;
    expect(stored.record.state).toBe("done");
    expect(stored.record.compactions).toHaveLength(1);
    expect(paths(stored.messages)).toEqual(Array.from({ length: 8 }, (_, index) => `src/f${index + 1}.ts`));
    const live = resultOf(second.lines);
    expect(isSummaryMessage(live[0])).toBe(true);
    expect(live.at(-1)).toMatchObject({ role: "assistant", content: [{ type: "text", text: "All files read." }] });
    expect(orphanCalls(live)).toEqual([]);
  }, 60_000);
});
