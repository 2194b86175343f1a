/**
 * The `loopchart fork` command for a checkpoint the viewer marks: plain functions, no DOM,
 * so they are tested against real traces in Node.
 */
import type { CheckpointMark } from "./run-index.js";

/** The durable session a run was stored in, as its trace header names it. */
export interface RunSession { id: string; store: string; turnsBefore: number }

/** A word as a POSIX shell reads it: bare when it is safe, else single-quoted. */
export function shellWord(word: string): string {
  return /^[\w@%+=:,./-]+$/.test(word) ? word : `'${word.replace(/'/g, `'\\''`)}'`;
}

/** The `--at` of a mark: the session-wide turn, and for a wait the call (`3:call_1`). */
export function checkpointAt(mark: CheckpointMark, session: RunSession | undefined): string {
  const turn = (session?.turnsBefore ?? 0) + mark.turn;
  return mark.kind === "turn" ? String(turn) : `${turn}:${mark.toolCallId ?? ""}`;
}

/** The command that forks the run's session at `mark`. */
export function forkCommand(mark: CheckpointMark, session: RunSession): string {
  return `loopchart fork ${shellWord(session.id)} --at ${shellWord(checkpointAt(mark, session))} --store ${shellWord(session.store)}`;
}
