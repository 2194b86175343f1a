import { describe, expect, it } from "vitest";
import { createFindTool, createGrepTool, createReadTool, type FileEntry, type FileSystemOperations } from "../../tools/index.js";

/** A tiny in-memory filesystem: enough to show the tools run against something other than the disk. */
function memoryFs(files: Record<string, string>): FileSystemOperations {
  const missing = (path: string): Error => Object.assign(new Error(`ENOENT: ${path}`), { code: "ENOENT" });
  const isDir = (path: string): boolean => Object.keys(files).some((f) => f.startsWith(`${path}/`));
  const unsupported = (): Promise<never> => Promise.reject(new Error("read-only"));
  return {
    readFile: async (path) => {
      if (!(path in files)) throw missing(path);
      return Buffer.from(files[path], "utf8");
    },
    stat: async (path) => {
      if (path in files) return { isFile: true, isDirectory: false, size: files[path].length, mode: 0o644 };
      if (isDir(path)) return { isFile: false, isDirectory: true, size: 0, mode: 0o755 };
      throw missing(path);
    },
    lstat: async (path) => ({ ...(path in files ? { isFile: true, isDirectory: false } : { isFile: false, isDirectory: true }), isSymbolicLink: false, size: 0, mode: 0o644 }),
    readdir: async (dir) => {
      const names = new Map<string, FileEntry>();
      for (const f of Object.keys(files).filter((p) => p.startsWith(`${dir}/`))) {
        const [name, ...rest] = f.slice(dir.length + 1).split("/");
        names.set(name, { name, isFile: rest.length === 0, isDirectory: rest.length > 0, isSymbolicLink: false });
      }
      return [...names.values()];
    },
    realpath: async (path) => path,
    exists: async (path) => path in files || isDir(path),
    writeFile: unsupported,
    rename: unsupported,
    mkdir: unsupported,
    unlink: unsupported,
  };
}

describe("operations", () => {
  const fs = memoryFs({ "/mem/src/a.ts": "const a = 1;\n", "/mem/src/b.md": "a note\n", "/mem/.gitignore": "" });

  it("read, grep and find run against an in-memory filesystem", async () => {
    const read = await createReadTool("/mem", { operations: fs }).execute("t", { path: "src/a.ts" });
    expect(read.content).toEqual([{ type: "text", text: "const a = 1;" }]);
    const grep = await createGrepTool("/mem", { operations: fs }).execute("t", { pattern: "a" });
    expect(grep.details.backend).toBe("builtin");
    expect(grep.content).toEqual([{ type: "text", text: "src/a.ts:1: const a = 1;\nsrc/b.md:1: a note" }]);
    const find = await createFindTool("/mem", { operations: fs }).execute("t", { pattern: "*.ts" });
    expect(find.content).toEqual([{ type: "text", text: "src/a.ts" }]);
  });
});
