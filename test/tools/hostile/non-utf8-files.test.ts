/**
 * Issue 32, defect 6: `edit` and `write` never rewrite bytes they did not mean to touch.
 * A file that is not valid UTF-8 (binary, Latin-1) is refused and stays byte for byte.
 */
import { readFileSync } from "node:fs";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { createEditTool, createWriteTool } from "../../../tools/index.js";
import { createTempWorkspace, type TempWorkspace } from "../../helpers/temp-workspace.js";

let ws: TempWorkspace;
beforeEach(() => {
  ws = createTempWorkspace();
});
afterEach(() => ws.cleanup());

const BINARY = Buffer.from([0x00, 0x01, 0x02, 0xff, 0xfe, 0x00, 0x0a, 0x89, 0x50, 0x4e, 0x47]);
/** "café crème\n" in Latin-1: é and è are single bytes that are not UTF-8. */
const LATIN1 = Buffer.from("café crème\n", "latin1");

describe("edit on a file that is not UTF-8 text", () => {
  it("refuses a binary file and leaves every byte as it was", async () => {
    ws.write("blob.bin", BINARY);
    const error = await createEditTool(ws.dir)
      .execute("t", { path: "blob.bin", edits: [{ oldText: "\u0001", newText: "\u0003" }] })
      .catch((e: unknown) => e as Error);
    expect(error).toBeInstanceOf(Error);
    expect((error as Error).message).toMatch(/blob\.bin .* not valid UTF-8 .*left unchanged byte for byte/);
    expect(readFileSync(ws.path("blob.bin")).equals(BINARY)).toBe(true);
  });

  it("refuses a Latin-1 file instead of turning é and è into U+FFFD", async () => {
    ws.write("menu.txt", LATIN1);
    await expect(createEditTool(ws.dir).execute("t", { path: "menu.txt", edits: [{ oldText: "caf", newText: "CAF" }] })).rejects.toThrow(/not valid UTF-8/);
    expect(readFileSync(ws.path("menu.txt")).equals(LATIN1)).toBe(true);
  });

  it("refuses valid UTF-8 holding NUL bytes (a binary file read would not show)", async () => {
    const data = Buffer.from("head\u0000tail\n", "utf8");
    ws.write("nul.dat", data);
    await expect(createEditTool(ws.dir).execute("t", { path: "nul.dat", edits: [{ oldText: "head", newText: "HEAD" }] })).rejects.toThrow(/NUL bytes/);
    expect(readFileSync(ws.path("nul.dat")).equals(data)).toBe(true);
  });

  it("still edits UTF-8 text with a BOM and CRLF, byte for byte outside the edit", async () => {
    const before = Buffer.from("\uFEFFné\r\nzwei\r\n🙂 drei\r\n", "utf8");
    ws.write("u.txt", before);
    await createEditTool(ws.dir).execute("t", { path: "u.txt", edits: [{ oldText: "zwei", newText: "ZWEI" }] });
    expect(readFileSync(ws.path("u.txt")).equals(Buffer.from("\uFEFFné\r\nZWEI\r\n🙂 drei\r\n", "utf8"))).toBe(true);
  });
});

describe("write over a file that is not UTF-8 text", () => {
  it("refuses to replace a binary file and leaves it unchanged", async () => {
    ws.write("blob.bin", BINARY);
    await expect(createWriteTool(ws.dir).execute("t", { path: "blob.bin", content: "text" })).rejects.toThrow(/blob\.bin .*not valid UTF-8.*write replaces UTF-8 text files only/);
    expect(readFileSync(ws.path("blob.bin")).equals(BINARY)).toBe(true);
  });

  it("refuses a Latin-1 file, and still creates new files and replaces UTF-8 ones", async () => {
    ws.write("menu.txt", LATIN1);
    await expect(createWriteTool(ws.dir).execute("t", { path: "menu.txt", content: "x" })).rejects.toThrow(/not valid UTF-8/);
    expect(readFileSync(ws.path("menu.txt")).equals(LATIN1)).toBe(true);
    ws.write("plain.txt", "old\n");
    await createWriteTool(ws.dir).execute("t", { path: "plain.txt", content: "new\n" });
    await createWriteTool(ws.dir).execute("t", { path: "fresh/new.txt", content: "hi\n" });
    expect(readFileSync(ws.path("plain.txt"), "utf8")).toBe("new\n");
    expect(readFileSync(ws.path("fresh/new.txt"), "utf8")).toBe("hi\n");
  });
});
