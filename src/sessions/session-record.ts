/**
 * Reading a stored session record and its log entries back: the checks both stores
 * share, so a corrupted, foreign or newer-version session fails the same way in each.
 */
import { SessionFileError } from "../errors/session-file-error.js";
import { SessionVersionError } from "../errors/session-version-error.js";
import type { AgentMessage } from "../types.js";
import { upgradeFlatChartSnapshot } from "../flat-chart-snapshot.js";
import { CHECKPOINT_POLICIES, type CheckpointPolicy } from "./session-checkpoint.js";
import { SESSION_FORMAT, SESSION_FORMAT_VERSION, SUPPORTED_SESSION_VERSIONS, type SessionRecord, type SessionState } from "./session-store.js";

const STATES: readonly SessionState[] = ["running", "awaiting approval", "done", "failed"];

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === "object" && value !== null && !Array.isArray(value);

/** Parses JSON text, throwing `SessionFileError` naming `path` (and `line`) when it is not JSON. */
export function parseStoredJson(text: string, where: { path: string; line?: number }): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch (error) {
    const truncated = text.trim() === "" ? "empty" : "not valid JSON (truncated or corrupted)";
    throw new SessionFileError({ ...where, problem: `${truncated}: ${(error as Error).message}` });
  }
}

/**
 * Checks a parsed record: the loopchart marker (else "not a loopchart session"), a
 * version this loopchart reads (else `SessionVersionError`), and the fields a store
 * and `Agent.resume` rely on. Returns it typed; never changes it. A version-1
 * record (written by the flat loop chart) comes back as a version-2 copy whose
 * snapshot's state is mapped to the hierarchical chart's (`FLAT_STATE_PATHS`).
 */
export function checkRecord(value: unknown, where: { path: string; line?: number }, id?: string): SessionRecord {
  if (!isObject(value) || value.format !== SESSION_FORMAT) {
    throw new SessionFileError({ ...where, problem: `not a loopchart session (no "format": "${SESSION_FORMAT}" marker)` });
  }
  if (typeof value.version !== "number" || !SUPPORTED_SESSION_VERSIONS.includes(value.version)) {
    throw new SessionVersionError({ path: where.path, found: value.version, supported: SUPPORTED_SESSION_VERSIONS });
  }
  const problems: string[] = [];
  if (typeof value.id !== "string" || (id !== undefined && value.id !== id)) problems.push(`"id" is not ${JSON.stringify(id ?? "a string")}`);
  if (!STATES.includes(value.state as SessionState)) problems.push(`"state" is not one of ${STATES.join(", ")}`);
  for (const key of ["turns", "runs"]) if (!Number.isInteger(value[key])) problems.push(`"${key}" is not a whole number`);
  for (const key of ["createdAt", "updatedAt"]) if (typeof value[key] !== "string") problems.push(`"${key}" is not a timestamp`);
  const agent = value.agent;
  if (!isObject(agent) || typeof agent.systemPrompt !== "string" || !isObject(agent.model) || typeof agent.thinkingLevel !== "string") {
    problems.push(`"agent" lacks systemPrompt, model or thinkingLevel`);
  }
  if (value.snapshot !== undefined && !isObject(value.snapshot)) problems.push(`"snapshot" is not an object`);
  if (value.checkpoints !== undefined && !CHECKPOINT_POLICIES.includes(value.checkpoints as CheckpointPolicy)) problems.push(`"checkpoints" is not one of ${CHECKPOINT_POLICIES.join(", ")}`);
  const fork = value.forkedFrom;
  if (fork !== undefined && (!isObject(fork) || typeof fork.session !== "string" || typeof fork.at !== "string" || !Number.isInteger(fork.turn))) {
    problems.push(`"forkedFrom" lacks session, at or turn`);
  }
  if (problems.length > 0) throw new SessionFileError({ ...where, problem: `not a readable session record: ${problems.join("; ")}` });
  const record = value as unknown as SessionRecord;
  return record.version === 1 ? { ...record, version: SESSION_FORMAT_VERSION, snapshot: upgradeFlatChartSnapshot(record.snapshot) } : record;
}

/** Checks one message log entry: its index is `expected`, and it holds a message with a role. */
export function checkLogEntry(value: unknown, expected: number, where: { path: string; line?: number }): AgentMessage {
  if (!isObject(value) || value.i !== expected || !isObject(value.message) || typeof value.message.role !== "string") {
    throw new SessionFileError({ ...where, problem: `expected message log entry ${expected} as {"i": ${expected}, "message": {"role": …}}` });
  }
  return value.message as unknown as AgentMessage;
}
