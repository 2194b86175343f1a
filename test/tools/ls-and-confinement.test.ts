import { mkdirSync, symlinkSync } from "node:fs";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import {
  PathOutsideRootError,
  createAllTools,
  createCodingTools,
  createEditTool,
  createLsTool,
  createReadOnlyTools,
  createReadTool,
  createWriteTool,
} from "../../tools/index.js";
import { createTempWorkspace, type TempWorkspace } from "../helpers/temp-workspace.js";

let ws: TempWorkspace;
beforeEach(() => {
  ws = createTempWorkspace();
});
afterEach(() => ws.cleanup());

const text = (r: { content: { type: string; text?: string }[] }): string => r.content.map((c) => c.text ?? "").join("");

describe("ls", () => {
  it("sorts case-insensitively, includes dotfiles and suffixes directories with /", async () => {
    ws.write("b.txt", "");
    ws.write("A.txt", "");
    ws.write(".env", "");
    ws.write("Zdir/x", "");
    ws.write("cdir/y", "");
    expect(text(await createLsTool(ws.dir).execute("t", {}))).toBe(".env\nA.txt\nb.txt\ncdir/\nZdir/");
  });

  it("says (empty directory), Path not found and Not a directory", async () => {
    mkdirSync(ws.path("empty"));
    ws.write("file.txt", "x");
    const ls = createLsTool(ws.dir);
    expect(text(await ls.execute("t", { path: "empty" }))).toBe("(empty directory)");
    await expect(ls.execute("t", { path: "missing" })).rejects.toThrow("Path not found: missing");
    await expect(ls.execute("t", { path: "file.txt" })).rejects.toThrow("Not a directory: file.txt");
  });

  it("says the entry limit was reached", async () => {
    for (const n of ["a", "b", "c"]) ws.write(n, "");
    expect(text(await createLsTool(ws.dir).execute("t", { limit: 2 }))).toBe("a\nb\n\n[2 entries limit reached. Use limit=4 for more]");
  });
});

describe("path confinement", () => {
  it("refuses ../ escapes with a clear error", async () => {
    const outside = createTempWorkspace({ "secret.txt": "secret" });
    try {
      const read = createReadTool(ws.dir, { confine: true });
      const error = await read.execute("t", { path: `../${outside.dir.split("/").pop()}/secret.txt` }).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(PathOutsideRootError);
      expect((error as Error).message).toMatch(/is outside the allowed directory .*Only paths inside/);
      await expect(read.execute("t", { path: outside.path("secret.txt") })).rejects.toThrow(PathOutsideRootError);
    } finally {
      outside.cleanup();
    }
  });

  it("refuses symlink escapes, for reading and for writing through a linked directory", async () => {
    const outside = createTempWorkspace({ "secret.txt": "secret" });
    try {
      symlinkSync(outside.path("secret.txt"), ws.path("link.txt"));
      symlinkSync(outside.dir, ws.path("linkdir"));
      await expect(createReadTool(ws.dir, { confine: true }).execute("t", { path: "link.txt" })).rejects.toThrow(/through a symbolic link/);
      await expect(createWriteTool(ws.dir, { confine: true }).execute("t", { path: "linkdir/new/file.txt", content: "x" })).rejects.toThrow(
        /through a symbolic link/,
      );
      await expect(createEditTool(ws.dir, { root: ws.dir }).execute("t", { path: "link.txt", edits: [{ oldText: "secret", newText: "x" }] })).rejects.toThrow(
        PathOutsideRootError,
      );
    } finally {
      outside.cleanup();
    }
  });

  it("allows paths inside the root, including symlinks that stay inside", async () => {
    ws.write("real.txt", "inside");
    symlinkSync(ws.path("real.txt"), ws.path("alias.txt"));
    expect(text(await createReadTool(ws.dir, { confine: true }).execute("t", { path: "alias.txt" }))).toBe("inside");
    expect(text(await createReadTool(ws.dir, { confine: true }).execute("t", { path: "sub/../real.txt" }))).toBe("inside");
  });

  it("applies to every tool of a confined set", async () => {
    for (const tool of createAllTools(ws.dir, { confine: true })) {
      const args: Record<string, unknown> = { path: "../x", command: "true", content: "", edits: [{ oldText: "a", newText: "b" }], pattern: "x" };
      if (tool.name === "bash") continue;
      await expect(tool.execute("t", args)).rejects.toThrow(PathOutsideRootError);
    }
  });
});

describe("tool sets", () => {
  it("name the default, full and read-only sets", () => {
    expect(createCodingTools(ws.dir).map((t) => t.name)).toEqual(["read", "bash", "edit", "write"]);
    expect(createAllTools(ws.dir).map((t) => t.name)).toEqual(["read", "bash", "edit", "write", "grep", "find", "ls"]);
    expect(createReadOnlyTools(ws.dir).map((t) => t.name)).toEqual(["read", "grep", "find", "ls"]);
  });
});
