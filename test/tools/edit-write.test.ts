import { chmodSync, readdirSync, readFileSync, statSync } from "node:fs";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { createEditTool, createWriteTool, prepareEditArguments } from "../../tools/index.js";
import { createTempWorkspace, type TempWorkspace } from "../helpers/temp-workspace.js";

let ws: TempWorkspace;
beforeEach(() => {
  ws = createTempWorkspace();
});
afterEach(() => ws.cleanup());

const edit = (path: string, edits: { oldText: string; newText: string }[]) => createEditTool(ws.dir).execute("t", { path, edits });
const read = (rel: string): string => readFileSync(ws.path(rel), "utf8");

describe("edit", () => {
  it("applies several edits matched against the original and reports a diff", async () => {
    ws.write("a.ts", "one\ntwo\nthree\nfour\n");
    const r = await edit("a.ts", [
      { oldText: "two", newText: "TWO" },
      { oldText: "four", newText: "FOUR" },
    ]);
    expect(read("a.ts")).toBe("one\nTWO\nthree\nFOUR\n");
    expect(r.content).toEqual([{ type: "text", text: "Successfully replaced 2 blocks in a.ts." }]);
    expect(r.details.firstChangedLine).toBe(2);
    expect(r.details.diff).toContain("-two\n+TWO");
    expect(r.details.diff).toContain("-four\n+FOUR");
  });

  it("does nothing when one edit fails (all or nothing)", async () => {
    ws.write("a.ts", "alpha\nbeta\n");
    await expect(edit("a.ts", [{ oldText: "alpha", newText: "A" }, { oldText: "gamma", newText: "G" }])).rejects.toThrow("Could not find edits[1].oldText in a.ts");
    expect(read("a.ts")).toBe("alpha\nbeta\n");
  });

  it("hints at the closest lines when the text is not found", async () => {
    ws.write("a.ts", "function greet(name) {\n  return 'hi ' + name;\n}\n");
    const error = await edit("a.ts", [{ oldText: "function great(name) {", newText: "x" }]).catch((e: Error) => e);
    expect((error as Error).message).toContain("Closest matching lines:\n  1: function greet(name) {");
  });

  it("refuses an ambiguous oldText with the count", async () => {
    ws.write("a.ts", "x = 1\nx = 1\nx = 1\n");
    await expect(edit("a.ts", [{ oldText: "x = 1", newText: "x = 2" }])).rejects.toThrow(/^Found 3 occurrences of oldText in a\.ts/);
  });

  it("refuses overlapping edits, an empty oldText and a no-op", async () => {
    ws.write("a.ts", "abcdef\n");
    await expect(edit("a.ts", [{ oldText: "abcd", newText: "1" }, { oldText: "cdef", newText: "2" }])).rejects.toThrow("edits[0] and edits[1] overlap in a.ts");
    await expect(edit("a.ts", [{ oldText: "", newText: "1" }])).rejects.toThrow("oldText must not be empty");
    await expect(edit("a.ts", [{ oldText: "abc", newText: "abc" }])).rejects.toThrow("No changes made to a.ts");
    expect(read("a.ts")).toBe("abcdef\n");
  });

  it("matches tolerantly (trailing spaces, smart quotes, dashes, odd spaces) and leaves other lines byte for byte", async () => {
    const original = "keep  \t\nconst s = \u201Chello\u201D; // a \u2014 b   \nlet\u00A0x = 1;\ntail\u2019s  \n";
    ws.write("t.ts", original);
    await edit("t.ts", [
      { oldText: 'const s = "hello"; // a - b\n', newText: 'const s = "bye";\n' },
      { oldText: "let x = 1;", newText: "let x = 2;" },
    ]);
    expect(read("t.ts")).toBe("keep  \t\nconst s = \"bye\";\nlet x = 2;\ntail\u2019s  \n");
  });

  it("keeps a BOM and CRLF line endings", async () => {
    ws.write("w.txt", "\uFEFFfirst\r\nsecond\r\nthird\r\n");
    await edit("w.txt", [{ oldText: "second\nthird", newText: "2nd\nthird" }]);
    expect(readFileSync(ws.path("w.txt")).equals(Buffer.from("\uFEFFfirst\r\n2nd\r\nthird\r\n", "utf8"))).toBe(true);
  });

  it("applies two parallel edits of one file in one batch", async () => {
    ws.write("p.ts", "a = 1\nb = 2\n");
    const tool = createEditTool(ws.dir);
    await Promise.all([
      tool.execute("1", { path: "p.ts", edits: [{ oldText: "a = 1", newText: "a = 10" }] }),
      tool.execute("2", { path: "p.ts", edits: [{ oldText: "b = 2", newText: "b = 20" }] }),
    ]);
    expect(read("p.ts")).toBe("a = 10\nb = 20\n");
  });

  it("accepts the legacy single edit and edits sent as a JSON string", () => {
    expect(prepareEditArguments({ path: "f", oldText: "a", newText: "b" })).toEqual({ path: "f", edits: [{ oldText: "a", newText: "b" }] });
    expect(prepareEditArguments({ path: "f", edits: '[{"oldText":"a","newText":"b"}]' })).toEqual({ path: "f", edits: [{ oldText: "a", newText: "b" }] });
    expect(createEditTool(ws.dir).prepareArguments).toBe(prepareEditArguments);
  });

  it("reports a missing file", async () => {
    await expect(edit("missing.ts", [{ oldText: "a", newText: "b" }])).rejects.toThrow("File not found: missing.ts");
  });
});

describe("write", () => {
  it("creates parent directories and reports the bytes written", async () => {
    const r = await createWriteTool(ws.dir).execute("t", { path: "deep/er/file.txt", content: "héllo" });
    expect(r.content).toEqual([{ type: "text", text: "Successfully wrote 6 bytes to deep/er/file.txt" }]);
    expect(read("deep/er/file.txt")).toBe("héllo");
  });

  it("overwrites atomically, keeps the file mode and leaves no temp file", async () => {
    const path = ws.write("x.sh", "old");
    chmodSync(path, 0o755);
    await createWriteTool(ws.dir).execute("t", { path: "x.sh", content: "new" });
    expect(read("x.sh")).toBe("new");
    expect(statSync(path).mode & 0o777).toBe(0o755);
    expect(readdirSync(ws.dir)).toEqual(["x.sh"]);
  });

  it("shares edit's queue: a write then an edit of one path in one batch both land in order", async () => {
    const write = createWriteTool(ws.dir);
    const editTool = createEditTool(ws.dir);
    ws.write("q.txt", "start");
    await Promise.all([
      write.execute("1", { path: "q.txt", content: "written" }),
      editTool.execute("2", { path: "q.txt", edits: [{ oldText: "written", newText: "edited" }] }),
    ]);
    expect(read("q.txt")).toBe("edited");
  });
});
