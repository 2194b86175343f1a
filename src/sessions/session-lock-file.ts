/**
 * The JSONL store's lease: a lock file `owner.lock` in the session's directory,
 * holding the holder's pid, host, start time, heartbeat and fencing token as JSON,
 * and created whole: written to a draft, then hard-linked in (which, as O_EXCL
 * would, fails when the lock exists). The holder keeps the file open and rewrites
 * the heartbeat through that handle, so a holder that was taken over writes only
 * into its own unlinked file. Written here rather than taken from a library:
 * `proper-lockfile` locks with a directory and an mtime, so it records neither the
 * holder (for the "in use by pid … since …" message) nor a fencing token.
 *
 * A dead holder's lock is taken over under a second O_EXCL file
 * (`owner.lock.takeover`) and replaced in one step (the new lock is written to a
 * draft and renamed over the dead one), so two processes that both find the lock
 * dead cannot both take it, and the one that takes it is the one that says so: there
 * is no moment without a lock in which a third process could create one unaware.
 */
import { join } from "node:path";
import { SessionBusyError } from "../errors/session-busy-error.js";
import { SessionLeaseLostError } from "../errors/session-lease-lost-error.js";
import { readIfExists, SESSION_FILE_MODE, syncDirectory, writeAll, type SessionFileHandle, type SessionFileSystem } from "./durable-files.js";
import { asHolder, forgetHolder, newHolder, staleReason, type LeaseHolder, type LeaseTiming, type SessionLease } from "./session-lease.js";

/** The lock file's name in a session's directory. */
export const LOCK_FILE = "owner.lock";
const TAKEOVER_SUFFIX = ".takeover";
/** A lock being written, before it is linked in as the lock: `owner.lock.<token>.new`. */
const DRAFT_SUFFIX = ".new";
/** A lock file read while its creator is still writing it is read again this often… */
const UNREADABLE_RETRIES = 5;
/** …this many milliseconds apart. */
const UNREADABLE_RETRY_MS = 20;
/** Tries to take the lock: another process may be taking a dead holder's lock over at the same time… */
const ACQUIRE_ATTEMPTS = 50;
/** …in which case this one waits this many milliseconds and looks again. */
const TAKEOVER_WAIT_MS = 40;

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const isCode = (error: unknown, code: string) => (error as NodeJS.ErrnoException | null)?.code === code;

/** What the lock file says: its holder, undefined while unreadable; absent when there is no lock. */
type LockState = { present: false } | { present: true; holder: LeaseHolder | undefined; mtimeMs: number };

/** Reads the lock file at `path`, reading again a few times while it is being written. */
export async function readLock(fs: SessionFileSystem, path: string): Promise<LockState> {
  for (let attempt = 0; ; attempt++) {
    const text = await readIfExists(fs, path);
    if (text === undefined) return { present: false };
    let holder: LeaseHolder | undefined;
    try {
      holder = asHolder(JSON.parse(text));
    } catch {
      holder = undefined;
    }
    if (holder) return { present: true, holder, mtimeMs: Date.parse(holder.heartbeatAt) };
    if (attempt >= UNREADABLE_RETRIES) {
      const mtimeMs = await fs.stat(path).then((s) => s.mtimeMs, () => Date.now());
      return { present: true, holder, mtimeMs };
    }
    await sleep(UNREADABLE_RETRY_MS);
  }
}

/** Why the lock may be taken over, or undefined while its holder is alive. */
function lockStaleReason(state: LockState & { present: true }, timing: LeaseTiming): string | undefined {
  if (state.holder) return staleReason(state.holder, timing.staleMs);
  return Date.now() - state.mtimeMs > timing.staleMs ? "its lock file is unreadable and untouched for longer than the lease timeout" : undefined;
}

/** A lease held through a lock file; see the module comment. */
export class SessionLockFile implements SessionLease {
  readonly sessionId: string;
  readonly holder: LeaseHolder;
  readonly tookOver?: { holder: LeaseHolder; reason: string };
  private readonly fs: SessionFileSystem;
  private readonly path: string;
  private handle: SessionFileHandle | undefined;
  private timer: ReturnType<typeof setInterval> | undefined;
  private beating: Promise<void> = Promise.resolve();

  private constructor(options: { fs: SessionFileSystem; path: string; sessionId: string; holder: LeaseHolder; handle: SessionFileHandle; tookOver?: { holder: LeaseHolder; reason: string }; heartbeatMs: number }) {
    this.fs = options.fs;
    this.path = options.path;
    this.sessionId = options.sessionId;
    this.holder = options.holder;
    this.handle = options.handle;
    if (options.tookOver) this.tookOver = options.tookOver;
    this.timer = setInterval(() => {
      this.beating = this.beating.then(() => this.beat()).catch(() => undefined);
    }, options.heartbeatMs);
    this.timer.unref();
  }

  /**
   * Takes the lease of the session whose directory is `dir` (which must exist).
   * Throws `SessionBusyError` when a live process holds it; takes a dead holder's
   * lock over (the returned lease's `tookOver` says whose and why).
   */
  static async acquire(options: { fs: SessionFileSystem; dir: string; sessionId: string; timing: LeaseTiming }): Promise<SessionLockFile> {
    const { fs, dir, sessionId, timing } = options;
    const path = join(dir, LOCK_FILE);
    let lastHolder: LeaseHolder | undefined;
    for (let attempt = 0; attempt < ACQUIRE_ATTEMPTS; attempt++) {
      const holder = newHolder();
      const created = await createLock(fs, path, holder).catch((error: unknown) => {
        forgetHolder(holder);
        throw error;
      });
      if (!created) forgetHolder(holder);
      if (created) {
        await syncDirectory(fs, dir);
        return new SessionLockFile({ fs, path, sessionId, holder, handle: created, heartbeatMs: timing.heartbeatMs });
      }
      const state = await readLock(fs, path);
      if (!state.present) continue;
      lastHolder = state.holder;
      const reason = lockStaleReason(state, timing);
      if (reason === undefined) throw new SessionBusyError(sessionId, state.holder);
      const replacement = newHolder();
      const taken = await takeOverDeadLock(fs, path, state, timing, replacement).catch((error: unknown) => {
        forgetHolder(replacement);
        throw error;
      });
      if (taken === undefined) {
        forgetHolder(replacement);
        continue;
      }
      await syncDirectory(fs, dir);
      const tookOver = { holder: state.holder ?? unknownHolder(state.mtimeMs), reason };
      return new SessionLockFile({ fs, path, sessionId, holder: replacement, handle: taken, heartbeatMs: timing.heartbeatMs, tookOver });
    }
    throw new SessionBusyError(sessionId, lastHolder);
  }

  /** Throws `SessionLeaseLostError` unless the lock file still holds this lease's token. */
  async verify(): Promise<void> {
    if (!this.handle) throw new SessionLeaseLostError(this.sessionId, "it was released");
    const state = await readLock(this.fs, this.path);
    if (!state.present) throw new SessionLeaseLostError(this.sessionId, "its lock file is gone");
    if (state.holder?.token !== this.holder.token) {
      const by = state.holder ? `taken over by pid ${state.holder.pid} on ${state.holder.host} at ${state.holder.startedAt}` : "its lock file is another's";
      throw new SessionLeaseLostError(this.sessionId, by);
    }
  }

  async release(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    this.timer = undefined;
    await this.beating;
    const handle = this.handle;
    if (!handle) return;
    this.handle = undefined;
    forgetHolder(this.holder);
    try {
      const state = await readLock(this.fs, this.path);
      if (state.present && state.holder?.token === this.holder.token) await this.fs.unlink(this.path);
    } finally {
      await handle.close().catch(() => undefined);
    }
  }

  /** Rewrites the heartbeat through the open handle (same length: ISO times are fixed-width). */
  private async beat(): Promise<void> {
    if (!this.handle) return;
    this.holder.heartbeatAt = new Date().toISOString();
    const data = Buffer.from(JSON.stringify(this.holder), "utf8");
    await writeAll(this.handle, data, 0, this.path);
    await this.handle.truncate(data.length);
  }
}

/**
 * Creates the lock file holding `holder`; undefined when it exists. Where the file
 * system can hard-link, the holder is written and synced to a file of its own first
 * and then linked in as the lock (which fails if the lock exists), so a process
 * killed while creating it leaves either no lock or a whole one naming its pid —
 * never an unreadable lock that looks busy until the lease times out.
 */
async function createLock(fs: SessionFileSystem, path: string, holder: LeaseHolder): Promise<SessionFileHandle | undefined> {
  if (!fs.link) return createLockInPlace(fs, path, holder);
  const draft = await writeDraft(fs, path, holder);
  try {
    await fs.link(draft, path);
  } catch (error) {
    if (isCode(error, "EEXIST")) return undefined;
    throw error;
  } finally {
    await fs.unlink(draft).catch(() => undefined);
  }
  try {
    return await fs.open(path, "r+");
  } catch (error) {
    await fs.unlink(path).catch(() => undefined);
    throw error;
  }
}

/** {@link createLock} without hard links: the lock is created with O_EXCL, then written. */
async function createLockInPlace(fs: SessionFileSystem, path: string, holder: LeaseHolder): Promise<SessionFileHandle | undefined> {
  let handle: SessionFileHandle;
  try {
    handle = await fs.open(path, "wx", SESSION_FILE_MODE);
  } catch (error) {
    if (isCode(error, "EEXIST")) return undefined;
    throw error;
  }
  try {
    await writeAll(handle, Buffer.from(JSON.stringify(holder), "utf8"), 0, path);
    await handle.sync();
    return handle;
  } catch (error) {
    await handle.close().catch(() => undefined);
    await fs.unlink(path).catch(() => undefined);
    throw error;
  }
}

/** The holder named for an unreadable lock: only its file's time is known. */
function unknownHolder(mtimeMs: number): LeaseHolder {
  const at = new Date(mtimeMs).toISOString();
  return { pid: 0, host: "unknown", startedAt: at, heartbeatAt: at, token: "" };
}

/** Writes `holder` whole to a draft file beside `path` and returns the draft's path. */
async function writeDraft(fs: SessionFileSystem, path: string, holder: LeaseHolder): Promise<string> {
  const draft = `${path}.${holder.token}${DRAFT_SUFFIX}`;
  const handle = await fs.open(draft, "wx", SESSION_FILE_MODE);
  try {
    await writeAll(handle, Buffer.from(JSON.stringify(holder), "utf8"), 0, draft);
    await handle.sync();
  } finally {
    await handle.close().catch(() => undefined);
  }
  return draft;
}

/**
 * Replaces a dead holder's lock with one holding `holder`, under the takeover guard
 * file, only if it is still the lock that was found dead; returns the new lock's
 * handle. Undefined when another process is taking it over (after a short wait),
 * already replaced it, or it is gone (the caller then looks again).
 */
async function takeOverDeadLock(fs: SessionFileSystem, path: string, dead: LockState & { present: true }, timing: LeaseTiming, holder: LeaseHolder): Promise<SessionFileHandle | undefined> {
  const guardPath = `${path}${TAKEOVER_SUFFIX}`;
  let guard: SessionFileHandle;
  try {
    guard = await fs.open(guardPath, "wx", SESSION_FILE_MODE);
  } catch (error) {
    if (!isCode(error, "EEXIST")) throw error;
    // A takeover under way, or one whose process died mid-way (its guard is old): clear that, wait, look again.
    const age = await fs.stat(guardPath).then((s) => Date.now() - s.mtimeMs, () => 0);
    if (age > timing.staleMs) await fs.unlink(guardPath).catch(() => undefined);
    else await sleep(TAKEOVER_WAIT_MS);
    return undefined;
  }
  try {
    const now = await readLock(fs, path);
    if (!now.present) return undefined;
    const same = now.holder && dead.holder ? now.holder.token === dead.holder.token : now.holder === undefined && dead.holder === undefined;
    if (!same) return undefined;
    const draft = await writeDraft(fs, path, holder);
    try {
      await fs.rename(draft, path);
    } catch (error) {
      await fs.unlink(draft).catch(() => undefined);
      throw error;
    }
    return await fs.open(path, "r+");
  } finally {
    await guard.close().catch(() => undefined);
    await fs.unlink(guardPath).catch(() => undefined);
  }
}
