/**
 * The file I/O every tool goes through. Pass another implementation in a tool's
 * `operations` option to run it against another filesystem (a container, SSH, memory).
 */
import { constants as fsConstants } from "node:fs";
import { access, appendFile, lstat, mkdir, open, readdir, readFile, realpath, rename, stat, unlink, writeFile, type FileHandle } from "node:fs/promises";

/** One directory entry. A symbolic link reports `isSymbolicLink` and neither file nor directory. */
export interface FileEntry {
  name: string;
  isFile: boolean;
  isDirectory: boolean;
  isSymbolicLink: boolean;
}

/** What a tool needs to know about a path (symbolic links followed). */
export interface FileStat {
  isFile: boolean;
  isDirectory: boolean;
  size: number;
  /** Permission bits, e.g. `0o644`. */
  mode: number;
  /** Last modification time (ms since the epoch), when the filesystem tells. */
  mtimeMs?: number;
}

/**
 * File operations on absolute paths. Every method rejects like `node:fs/promises`
 * (an error with `code` `ENOENT`, `ENOTDIR`, …) when the path cannot be used.
 */
export interface FileSystemOperations {
  readFile(path: string): Promise<Buffer>;
  /** Creates or replaces the file; `mode` applies to a new file. */
  writeFile(path: string, data: string | Buffer, mode?: number): Promise<void>;
  rename(from: string, to: string): Promise<void>;
  /** Creates the directory and its missing parents; no error when it exists. */
  mkdir(path: string): Promise<void>;
  stat(path: string): Promise<FileStat>;
  /** Like `stat` but does not follow a final symbolic link. */
  lstat(path: string): Promise<FileStat & { isSymbolicLink: boolean }>;
  readdir(path: string): Promise<FileEntry[]>;
  /** The canonical path, with every symbolic link resolved. */
  realpath(path: string): Promise<string>;
  unlink(path: string): Promise<void>;
  /** True when the path exists (a dangling symbolic link counts as absent). */
  exists(path: string): Promise<boolean>;
  /**
   * Optional: opens the file to read it in chunks. Without it, `read` loads a file whole
   * and `edit` cannot carry over lines appended while it replaced the file.
   */
  openRead?(path: string): Promise<FileReader>;
  /** Optional: appends `data` to an existing file (`edit` uses it to carry over lines appended during an edit). */
  appendFile?(path: string, data: Buffer): Promise<void>;
}

/** A file opened for reading in chunks (see {@link FileSystemOperations.openRead}). */
export interface FileReader {
  /** Reads into `buffer` from byte `position`; resolves with the bytes read, 0 at the end. */
  read(buffer: Buffer, position: number): Promise<number>;
  /** The file's current size in bytes. */
  size(): Promise<number>;
  close(): Promise<void>;
}

/** A {@link FileReader} over an open handle, which it closes. */
export function fileReader(handle: FileHandle): FileReader {
  return {
    read: async (buffer, position) => (await handle.read(buffer, 0, buffer.length, position)).bytesRead,
    size: async () => (await handle.stat()).size,
    close: () => handle.close(),
  };
}


/** {@link FileSystemOperations} on the local disk through `node:fs/promises`. */
export const localFileSystem: FileSystemOperations = {
  readFile: (path) => readFile(path),
  writeFile: (path, data, mode) => writeFile(path, data, mode === undefined ? {} : { mode }),
  rename: (from, to) => rename(from, to),
  mkdir: async (path) => {
    await mkdir(path, { recursive: true });
  },
  stat: async (path) => {
    const s = await stat(path);
    return { isFile: s.isFile(), isDirectory: s.isDirectory(), size: s.size, mode: s.mode & 0o7777, mtimeMs: s.mtimeMs };
  },
  lstat: async (path) => {
    const s = await lstat(path);
    return { isFile: s.isFile(), isDirectory: s.isDirectory(), isSymbolicLink: s.isSymbolicLink(), size: s.size, mode: s.mode & 0o7777, mtimeMs: s.mtimeMs };
  },
  readdir: async (path) => {
    const entries = await readdir(path, { withFileTypes: true });
    return entries.map((e) => ({ name: e.name, isFile: e.isFile(), isDirectory: e.isDirectory(), isSymbolicLink: e.isSymbolicLink() }));
  },
  realpath: (path) => realpath(path),
  unlink: (path) => unlink(path),
  openRead: async (path) => fileReader(await open(path, "r")),
  appendFile: (path, data) => appendFile(path, data, { flag: "a" }),
  exists: async (path) => {
    try {
      await access(path, fsConstants.F_OK);
      return true;
    } catch {
      return false;
    }
  },
};

/** True when `error` is a Node system error with the given `code`. */
export function hasErrorCode(error: unknown, code: string): boolean {
  return typeof error === "object" && error !== null && (error as { code?: unknown }).code === code;
}

/** Bytes read from a {@link FileReader} at a time by {@link readAllFrom}. */
const READ_ALL_CHUNK_BYTES = 1024 * 1024;

/** The whole content of an open file, from its first byte to its end. */
export async function readAllFrom(reader: FileReader): Promise<Buffer> {
  const parts: Buffer[] = [];
  for (let position = 0; ; ) {
    const chunk = Buffer.alloc(READ_ALL_CHUNK_BYTES);
    const read = await reader.read(chunk, position);
    if (read === 0) return Buffer.concat(parts);
    parts.push(chunk.subarray(0, read));
    position += read;
  }
}
