/**
 * Durable sessions survive SIGKILL: a child process runs an agent on a real store
 * and is killed mid-stream, mid-tool, or between two results; a second process
 * resumes from the store and finishes. One result per call in source order, no
 * message lost, a `replay: "never"` tool never ran twice, a `"safe"` one re-ran.
 * Both stores.
 */
import { spawn } from "node:child_process";
import { readFileSync, existsSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { describe, expect, it } from "vitest";
import { transcriptMessages, type Transcript } from "../../machines/transcript.js";
import { openSessionStore } from "../../src/sessions/open-session-store.js";
import type { StoredSession } from "../../src/sessions/session-store.js";
import type { AgentMessage } from "../../src/types.js";
import { REPO_ROOT } from "../cli/spawn-cli.js";
import type { ChildOptions } from "./crash-child.js";
import { STORE_KINDS } from "./store-fixtures.js";
import { tempDirSync } from "../support/temp-dir.js";

const CHILD = fileURLToPath(new URL("./crash-child.ts", import.meta.url));
const TSX_LOADER = pathToFileURL(join(REPO_ROOT, "node_modules/tsx/dist/loader.mjs")).href;

/** Runs the child; resolves with its stdout lines once it printed `untilHold` (then SIGKILLs it) or exited. */
function runChild(options: ChildOptions, until?: { holds: string[]; storeReady: () => Promise<boolean> }): Promise<{ lines: string[]; killed: boolean }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ["--import", TSX_LOADER, CHILD, JSON.stringify(options)], { cwd: REPO_ROOT, stdio: ["ignore", "pipe", "pipe"] });
    let out = "";
    let err = "";
    let killing = false;
    const seen = new Set<string>();
    child.stdout.on("data", (chunk: Buffer) => {
      out += chunk.toString();
      for (const line of out.split("\n")) if (line.startsWith("HOLD ")) seen.add(line.slice(5));
      if (until && !killing && until.holds.every((hold) => seen.has(hold))) {
        killing = true;
        // Kill once what the test needs is durable in the store (the child cannot say when a save landed).
        const poll = async (): Promise<void> => {
          if (await until.storeReady()) child.kill("SIGKILL");
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

/** Loads the session read-only (a fresh store instance, as another process would). */
async function loadSession(spec: string, id: string): Promise<StoredSession | undefined> {
  const store = await openSessionStore(spec);
  try {
    return await store.load(id);
  } finally {
    await store.close();
  }
}

interface LoopView {
  context?: { messages?: Transcript; slots?: ({ toolCallId: string }[] | null)[]; ordered?: Transcript };
  children?: Record<string, { snapshot: LoopView }>;
}

/** Ids of the calls whose results the stored snapshot holds (in the transcript or the batch). */
async function settledInStore(spec: string, id: string): Promise<Set<string>> {
  const snapshot = (await loadSession(spec, id).catch(() => undefined))?.record.snapshot as LoopView | undefined;
  const ids = new Set<string>();
  if (!snapshot) return ids;
  if (snapshot.context?.messages) for (const message of transcriptMessages(snapshot.context.messages)) if (message.role === "toolResult") ids.add(message.toolCallId);
  // The tool batch (and its slices) that is running holds the results settled so far.
  const visit = (node: LoopView) => {
    for (const slot of node.context?.slots ?? []) for (const result of slot ?? []) ids.add(result.toolCallId);
    if (node.context?.ordered) for (const result of transcriptMessages(node.context.ordered)) if (result.role === "toolResult") ids.add(result.toolCallId);
    for (const child of Object.values(node.children ?? {})) visit(child.snapshot);
  };
  visit(snapshot);
  return ids;
}

const counts = (workDir: string, ids: string[]) =>
  Object.fromEntries(ids.map((id) => [id, existsSync(join(workDir, `${id}.count`)) ? readFileSync(join(workDir, `${id}.count`), "utf8").length : 0]));

function transcriptOf(lines: string[]): AgentMessage[] {
  const line = lines.find((candidate) => candidate.startsWith("RESULT "));
  if (!line) throw new Error(`no RESULT line in ${lines.join("\n")}`);
  return JSON.parse(line.slice(7)) as AgentMessage[];
}

/** The transcript as role/call summaries: what "one result per call, in source order, nothing lost" checks. */
function shape(messages: AgentMessage[]): string[] {
  return messages.map((message) => {
    if (message.role === "user") return "user";
    if (message.role === "toolResult") {
      const text = message.content.map((block) => (block.type === "text" ? block.text : "")).join("");
      return `result ${message.toolCallId}${message.isError ? ` error: ${text}` : `: ${text}`}`;
    }
    if (message.role === "assistant") {
      const calls = message.content.filter((block) => block.type === "toolCall").map((block) => (block as { id: string }).id);
      const text = message.content.map((block) => (block.type === "text" ? block.text : "")).join("");
      return calls.length > 0 ? `assistant ${text} [${calls.join(", ")}]` : `assistant ${text}`;
    }
    return "other";
  });
}

const INTERRUPTED = "Tool call interrupted by a restart and not re-run; its side effects, if any, are unknown.";

for (const kind of STORE_KINDS) {
  describe(`a durable session in the ${kind.name} store, killed with SIGKILL`, () => {
    const setup = (scenario: ChildOptions["scenario"]) => {
      const spec = kind.cliSpec(kind.freshLocation());
      const workDir = tempDirSync("loopchart-crash-work-");
      return { base: { store: spec, sessionId: "crash-1", workDir, scenario } satisfies Omit<ChildOptions, "resume">, spec, workDir };
    };

    it("mid-stream: the resumed process requests the response again and runs every tool once", async () => {
      const { base, spec, workDir } = setup("parallel");
      const first = await runChild({ ...base, resume: false, holdAt: "stream" }, { holds: ["stream"], storeReady: async () => (await loadSession(spec, "crash-1").catch(() => undefined)) !== undefined });
      expect(first.killed).toBe(true);
      expect(counts(workDir, ["c1", "c2", "c3"])).toEqual({ c1: 0, c2: 0, c3: 0 });
      const second = await runChild({ ...base, resume: true });
      const messages = transcriptOf(second.lines);
      expect(shape(messages)).toEqual([
        "user",
        "assistant Charging and looking up. [c1, c2, c3]",
        "result c1: charge one: ok",
        "result c2: lookup two: ok",
        "result c3: charge three: ok",
        "assistant All done.",
      ]);
      expect(counts(workDir, ["c1", "c2", "c3"])).toEqual({ c1: 1, c2: 1, c3: 1 });
      const stored = await loadSession(spec, "crash-1");
      expect(stored?.record.state).toBe("done");
      expect(stored?.messages).toEqual(messages);
    }, 60_000);

    it("mid-tool: a settled call stays settled, the safe call re-runs, the never call gets the interrupted result", async () => {
      const { base, spec, workDir } = setup("parallel");
      const first = await runChild(
        { ...base, resume: false, holdAt: "tool" },
        { holds: ["tool c2", "tool c3"], storeReady: async () => (await settledInStore(spec, "crash-1")).has("c1") },
      );
      expect(first.killed).toBe(true);
      expect(counts(workDir, ["c1", "c2", "c3"])).toEqual({ c1: 1, c2: 1, c3: 1 });
      const second = await runChild({ ...base, resume: true });
      const messages = transcriptOf(second.lines);
      expect(shape(messages)).toEqual([
        "user",
        "assistant Charging and looking up. [c1, c2, c3]",
        "result c1: charge one: ok",
        "result c2: lookup two: ok",
        `result c3 error: ${INTERRUPTED}`,
        "assistant All done.",
      ]);
      expect(counts(workDir, ["c1", "c2", "c3"])).toEqual({ c1: 1, c2: 2, c3: 1 });
      expect((await loadSession(spec, "crash-1"))?.messages).toEqual(messages);
    }, 60_000);

    // Skipped after merging the batch machine: a sequential batch now holds its results until it ends, and a run resumed between two results loses the first (the session log/restore path reads the loop context, not the batch) — to fix in src/sessions.
    it("between two results: the first result is kept, the second call runs once after the restart", async () => {
      const { base, spec, workDir } = setup("sequential");
      const first = await runChild(
        { ...base, resume: false, holdAt: "between" },
        { holds: ["between c2"], storeReady: async () => (await settledInStore(spec, "crash-1")).has("c1") },
      );
      expect(first.killed).toBe(true);
      expect(counts(workDir, ["c1", "c2"])).toEqual({ c1: 1, c2: 0 });
      const second = await runChild({ ...base, resume: true });
      const messages = transcriptOf(second.lines);
      expect(shape(messages)).toEqual([
        "user",
        "assistant One after the other. [c1, c2]",
        "result c1: charge one: ok",
        "result c2: charge two: ok",
        "assistant All done.",
      ]);
      expect(counts(workDir, ["c1", "c2"])).toEqual({ c1: 1, c2: 1 });
      expect((await loadSession(spec, "crash-1"))?.messages).toEqual(messages);
    }, 60_000);
  });
}
