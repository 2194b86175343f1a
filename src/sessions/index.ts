export {
  assertSessionId,
  callKey,
  SESSION_FORMAT,
  SESSION_FORMAT_VERSION,
  SESSION_ID_PATTERN,
  SUPPORTED_SESSION_VERSIONS,
  type SessionAgentSettings,
  type SessionForkOrigin,
  type SessionRecord,
  type SessionSave,
  type SessionState,
  type SessionStore,
  type SessionSummary,
  type StoredSession,
} from "./session-store.js";
export { JsonlSessionStore } from "./jsonl-session-store.js";
export { openSqliteSessionStore, SqliteSessionStore } from "./sqlite-session-store.js";
export { DEFAULT_SESSION_DIRECTORY, openSessionStore, SQLITE_STORE_PREFIX } from "./open-session-store.js";
export { hasUnfinishedRun, sessionTranscript } from "./session-transcript.js";
export { DEFAULT_LEASE_TIMING, type LeaseHolder, type LeaseTiming, type SessionLease } from "./session-lease.js";
export type { JsonlSessionStoreOptions } from "./jsonl-session-store.js";
export type { SqliteSessionStoreOptions } from "./sqlite-session-store.js";
export type { SessionFileHandle, SessionFileSystem } from "./durable-files.js";
export type { RecordRedactor } from "./record-redactor.js";
export type { OpenSessionStoreOptions } from "./open-session-store.js";
export {
  CHECKPOINT_POLICIES,
  checkpointLabel,
  checkpointMessages,
  DEFAULT_CHECKPOINT_POLICY,
  type CheckpointPolicy,
  type SessionCheckpoint,
} from "./session-checkpoint.js";
