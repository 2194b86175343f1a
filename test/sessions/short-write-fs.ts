/**
 * A file system for the full-disk tests: Node's, except that every write accepts at
 * most `chunk` bytes (a short write, as on a nearly full disk) and, once `budget`
 * bytes have been written in all, fails with ENOSPC. Raising `budget` frees space.
 */
import { open } from "node:fs/promises";
import { nodeSessionFileSystem, type SessionFileHandle, type SessionFileSystem } from "../../src/sessions/durable-files.js";

export interface ShortWriteFileSystem extends SessionFileSystem {
  /** Bytes that may still be written before writes fail with ENOSPC. */
  budget: number;
  /** The most one write accepts. */
  chunk: number;
  /** Writes that accepted fewer bytes than asked. */
  shortWrites: number;
}

export function shortWriteFileSystem(options: { chunk: number; budget: number }): ShortWriteFileSystem {
  const fs: ShortWriteFileSystem = {
    ...nodeSessionFileSystem,
    budget: options.budget,
    chunk: options.chunk,
    shortWrites: 0,
    async open(path, flags, mode) {
      const handle = await open(path, flags, mode);
      const wrapped: SessionFileHandle = {
        async write(buffer, offset, length, position) {
          if (fs.budget <= 0) throw Object.assign(new Error(`ENOSPC: no space left on device, write`), { code: "ENOSPC" });
          const accepted = Math.min(length, fs.chunk, fs.budget);
          if (accepted < length) fs.shortWrites++;
          fs.budget -= accepted;
          return handle.write(buffer, offset, accepted, position);
        },
        sync: () => handle.sync(),
        truncate: (length) => handle.truncate(length),
        stat: () => handle.stat(),
        close: () => handle.close(),
      };
      return wrapped;
    },
  };
  return fs;
}
