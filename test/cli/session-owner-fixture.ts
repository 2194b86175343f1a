/**
 * Helpers of the one-owner and signal tests: a scripted model whose bash calls log
 * their starts to `log.txt` and can wait for a `go` file, so a test decides when a
 * winning process may finish; and the session as another process would load it.
 */
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { openSessionStore } from "../../src/sessions/open-session-store.js";
import type { StoredSession } from "../../src/sessions/session-store.js";

/** A bash command that logs `START-<id>`, waits for `go` in the working directory, then logs `END-<id>`. */
export const gatedCommand = (id: string) => `echo START-${id} >> log.txt; while [ ! -f go ]; do sleep 0.05; done; echo END-${id} >> log.txt`;

/** A bash command that logs `START-<id>` and then sleeps (to be killed or suspended mid-call). */
export const sleepingCommand = (id: string) => `echo START-${id} >> log.txt; sleep 30; echo END-${id} >> log.txt`;

/** Writes a script of `responses` to `dir/script.json` and returns the `--model` value. */
export function scriptModel(dir: string, responses: unknown[]): string {
  const path = join(dir, "script.json");
  writeFileSync(path, JSON.stringify({ name: "owner-test", responses }));
  return `scripted/${path}`;
}

/** One response calling bash with `command` under the call id `id`. */
export const bashCall = (id: string, command: string) => ({ content: [{ type: "toolCall", id, name: "bash", arguments: { command } }] });
export const text = (value: string) => ({ content: [{ type: "text", text: value }] });

/** The lines of `log.txt` (the side-effect log). */
export const sideEffects = (dir: string): string[] => (existsSync(join(dir, "log.txt")) ? readFileSync(join(dir, "log.txt"), "utf8").split("\n").filter(Boolean) : []);

/** Resolves once `log.txt` holds `line`. */
export function waitForSideEffect(dir: string, line: string): Promise<void> {
  return new Promise((resolve) => {
    const poll = () => (sideEffects(dir).includes(line) ? resolve() : setTimeout(poll, 20));
    poll();
  });
}

/** Loads the session with a fresh store, as another process would. */
export async function loadStored(spec: string, id: string): Promise<StoredSession | undefined> {
  const store = await openSessionStore(spec);
  try {
    return await store.load(id);
  } finally {
    await store.close();
  }
}
