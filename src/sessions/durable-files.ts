/**
 * Writing a session's files so that a crash or a full disk never costs the session:
 * every byte is written (short writes are continued, a write that makes no progress
 * fails), the file and its directory are fsynced, a record is replaced by renaming
 * a complete temp file (whose size is checked first) and the temp file is removed
 * on any failure, and an append that fails is cut back to where the file ended.
 * The file system is a parameter, so tests can inject one that writes short.
 */
import { constants } from "node:fs";
import { link, mkdir, open, readFile, rename, stat, truncate, unlink } from "node:fs/promises";
import { randomBytes } from "node:crypto";
import { dirname } from "node:path";

/** Session files are private to their user: they hold prompts, tool output and results. */
export const SESSION_FILE_MODE = 0o600;
/** Session directories likewise. */
export const SESSION_DIRECTORY_MODE = 0o700;

/** The part of a `FileHandle` the writes use. */
export interface SessionFileHandle {
  write(buffer: Uint8Array, offset: number, length: number, position: number | null): Promise<{ bytesWritten: number }>;
  sync(): Promise<void>;
  truncate(length: number): Promise<void>;
  stat(): Promise<{ size: number }>;
  close(): Promise<void>;
}

/** The file system the session files are written through (Node's by default). */
export interface SessionFileSystem {
  open(path: string, flags: string | number, mode?: number): Promise<SessionFileHandle>;
  rename(from: string, to: string): Promise<void>;
  unlink(path: string): Promise<void>;
  truncate(path: string, length: number): Promise<void>;
  stat(path: string): Promise<{ size: number; mtimeMs: number }>;
  readFile(path: string): Promise<Buffer>;
  mkdir(path: string, options: { recursive: true; mode: number }): Promise<unknown>;
  /**
   * Makes `newPath` a hard link to `existing`, failing with `EEXIST` when `newPath`
   * exists. Optional: with it, a lock file appears only with its whole content.
   */
  link?(existing: string, newPath: string): Promise<void>;
}

/** Node's file system. */
export const nodeSessionFileSystem: SessionFileSystem = { open, rename, unlink, truncate, stat, readFile, mkdir, link };

/** Thrown when a write makes no progress (a file system that accepts 0 bytes and reports no error). */
function noProgress(path: string, written: number, total: number): Error {
  return Object.assign(new Error(`${path}: the file system accepted 0 bytes after ${written} of ${total} (no space left?)`), { code: "ENOSPC" });
}

/** Writes all of `data` to `handle` from `position` (null: the file's end, for appends), continuing short writes. */
export async function writeAll(handle: SessionFileHandle, data: Uint8Array, position: number | null, path: string): Promise<void> {
  let written = 0;
  while (written < data.length) {
    const { bytesWritten } = await handle.write(data, written, data.length - written, position === null ? null : position + written);
    if (bytesWritten <= 0) throw noProgress(path, written, data.length);
    written += bytesWritten;
  }
}

/** Fsyncs a directory, so a rename or a new file in it is durable (best effort where directories cannot be fsynced). */
export async function syncDirectory(fs: SessionFileSystem, path: string): Promise<void> {
  let handle: SessionFileHandle | undefined;
  try {
    handle = await fs.open(path, constants.O_RDONLY);
    await handle.sync();
  } catch {
    // Some platforms cannot fsync a directory; the rename itself is still atomic.
  } finally {
    await handle?.close().catch(() => undefined);
  }
}

/**
 * Replaces `path` with `text` atomically: a new temp file beside it (mode 0600) gets
 * every byte and an fsync, its size is checked, then it is renamed over `path` and
 * the directory fsynced. On failure the temp file is removed, `path` keeps its
 * previous contents, and the error is rethrown.
 */
export async function replaceFile(fs: SessionFileSystem, path: string, text: string): Promise<void> {
  const data = Buffer.from(text, "utf8");
  const temporary = `${path}.${process.pid}.${randomBytes(4).toString("hex")}.tmp`;
  let handle: SessionFileHandle | undefined;
  try {
    handle = await fs.open(temporary, "wx", SESSION_FILE_MODE);
    await writeAll(handle, data, 0, temporary);
    await handle.sync();
    const { size } = await handle.stat();
    await handle.close();
    handle = undefined;
    if (size !== data.length) throw new Error(`${temporary}: holds ${size} of ${data.length} bytes after writing; not renamed over ${path}`);
    await fs.rename(temporary, path);
  } catch (error) {
    await handle?.close().catch(() => undefined);
    await fs.unlink(temporary).catch(() => undefined);
    throw error;
  }
  await syncDirectory(fs, dirname(path));
}

/**
 * Appends `text` to `path` (created 0600) and fsyncs it. When any part fails, the
 * file is cut back to its length before the append (so no torn line is left behind)
 * and the error is rethrown.
 */
export async function appendAll(fs: SessionFileSystem, path: string, text: string): Promise<void> {
  const data = Buffer.from(text, "utf8");
  const handle = await fs.open(path, "a", SESSION_FILE_MODE);
  let before: number | undefined;
  try {
    before = (await handle.stat()).size;
    await writeAll(handle, data, null, path);
    await handle.sync();
  } catch (error) {
    if (before !== undefined) {
      await handle.truncate(before).catch(() => undefined);
      await handle.sync().catch(() => undefined);
    }
    throw error;
  } finally {
    await handle.close().catch(() => undefined);
  }
}

/** Reads a file, or undefined when it does not exist. */
export async function readIfExists(fs: SessionFileSystem, path: string): Promise<string | undefined> {
  try {
    return (await fs.readFile(path)).toString("utf8");
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return undefined;
    throw error;
  }
}
