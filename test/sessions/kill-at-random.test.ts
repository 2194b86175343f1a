/**
 * The kill-at-random-times trial: a durable run of three calls (two `replay:
 * "never"` charges, one `"safe"` lookup) is SIGKILLed at a random moment, then
 * resumed (or started again when nothing was saved yet) by another process, which
 * must finish it: one result per call in source order, a never-call's side effect
 * at most once (an `ok` result only when it ran), the message log equal to the
 * snapshot's transcript. `LOOPCHART_KILL_TRIALS` iterations per store (default 20);
 * the seed of a failing iteration is in its message.
 */
import { spawn } from "node:child_process";
import { existsSync,  readFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { describe, expect, it } from "vitest";
import { openSessionStore } from "../../src/sessions/open-session-store.js";
import { hasUnfinishedRun, sessionTranscript } from "../../src/sessions/session-transcript.js";
import type { StoredSession } from "../../src/sessions/session-store.js";
import { REPO_ROOT } from "../cli/spawn-cli.js";
import type { ChildOptions } from "./crash-child.js";
import { STORE_KINDS } from "./store-fixtures.js";
import { tempDirSync } from "../support/temp-dir.js";

const CHILD = fileURLToPath(new URL("./crash-child.ts", import.meta.url));
const TSX_LOADER = pathToFileURL(join(REPO_ROOT, "node_modules/tsx/dist/loader.mjs")).href;
const TRIALS = Number(process.env.LOOPCHART_KILL_TRIALS ?? 20);
/** Pause of each tool and streamed block in the child: the run takes a few hundred ms after boot. */
const STEP_MS = 30;
/** Kills land uniformly in this window after the child booted (the run ends inside it about half the time). */
const KILL_WINDOW_MS = 400;
const INTERRUPTED = "Tool call interrupted by a restart and not re-run; its side effects, if any, are unknown.";

/** A small deterministic generator (mulberry32), so a failing seed can be replayed. */
function random(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** Runs the child; with `killAfterMs`, SIGKILLs it that long after it booted. Resolves with whether it was killed. */
function runChild(options: ChildOptions, killAfterMs?: number): Promise<{ killed: boolean }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ["--import", TSX_LOADER, CHILD, JSON.stringify(options)], { cwd: REPO_ROOT, stdio: ["ignore", "pipe", "pipe"] });
    let err = "";
    let timer: ReturnType<typeof setTimeout> | undefined;
    child.stdout.on("data", (chunk: Buffer) => {
      if (killAfterMs !== undefined && timer === undefined && chunk.toString().includes("BOOTED")) timer = setTimeout(() => child.kill("SIGKILL"), killAfterMs);
    });
    child.stderr.on("data", (chunk: Buffer) => (err += chunk.toString()));
    child.on("error", reject);
    // "close", not "exit": so the error below carries all the stderr the child wrote.
    child.on("close", (code, signal) => {
      if (timer) clearTimeout(timer);
      if (signal === "SIGKILL") return resolve({ killed: true });
      if (code !== 0) return reject(new Error(`child exited ${code ?? signal}: ${err}`));
      resolve({ killed: false });
    });
  });
}

async function load(spec: string, id: string): Promise<StoredSession | undefined> {
  const store = await openSessionStore(spec);
  try {
    return await store.load(id);
  } finally {
    await store.close();
  }
}

const count = (workDir: string, id: string) => (existsSync(join(workDir, `${id}.count`)) ? readFileSync(join(workDir, `${id}.count`), "utf8").length : 0);

for (const kind of STORE_KINDS) {
  describe(`kill at a random time, then resume (${kind.name} store)`, () => {
    it(`should finish every one of ${TRIALS} killed runs correctly`, async () => {
      for (let trial = 0; trial < TRIALS; trial++) {
        const seed = 1000 * (kind.name === "jsonl" ? 1 : 2) + trial;
        const killAfter = Math.floor(random(seed)() * KILL_WINDOW_MS);
        const spec = kind.cliSpec(kind.freshLocation());
        const workDir = tempDirSync("loopchart-kill-work-");
        const base: ChildOptions = { store: spec, sessionId: "k", workDir, scenario: "parallel", resume: false, delayMs: STEP_MS };
        const context = `trial ${trial} (seed ${seed}, killed ${killAfter} ms after boot)`;
        await runChild(base, killAfter);
        const after = await load(spec, "k");
        if (!after) await runChild(base);
        else if (hasUnfinishedRun(after.record)) await runChild({ ...base, resume: true });
        const stored = await load(spec, "k");
        expect(stored?.record.state, context).toBe("done");
        const messages = stored?.messages ?? [];
        expect(sessionTranscript(stored as StoredSession), context).toEqual(messages);
        expect(messages.map((message) => message.role), context).toEqual(["user", "assistant", "toolResult", "toolResult", "toolResult", "assistant"]);
        const results = messages.flatMap((message) => (message.role === "toolResult" ? [message] : []));
        expect(results.map((result) => result.toolCallId), context).toEqual(["c1", "c2", "c3"]);
        const text = (index: number) => results[index]!.content.map((block) => (block.type === "text" ? block.text : "")).join("");
        for (const [index, id, item] of [[0, "c1", "one"], [2, "c3", "three"]] as const) {
          expect(count(workDir, id), `${context}: ${id} ran more than once`).toBeLessThanOrEqual(1);
          if (text(index) === `charge ${item}: ok`) expect(count(workDir, id), context).toBe(1);
          else expect(text(index), context).toBe(INTERRUPTED);
        }
        expect(text(1), context).toBe("lookup two: ok");
        expect(count(workDir, "c2"), context).toBeGreaterThanOrEqual(1);
      }
    }, 60_000 + TRIALS * 20_000);
  });
}
