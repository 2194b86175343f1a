/**
 * Issue 32, defect 9 (read part): `read` with offset/limit streams lines, so any file
 * size can be read and memory holds only what is returned. The RSS figure is measured by
 * scripts/measure-read-rss.ts, not asserted here.
 */
import { closeSync, openSync, truncateSync, writeSync } from "node:fs";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { createReadTool, localFileSystem, type ReadOperations } from "../../../tools/index.js";
import { createTempWorkspace, type TempWorkspace } from "../../helpers/temp-workspace.js";

let ws: TempWorkspace;
beforeEach(() => {
  ws = createTempWorkspace();
});
afterEach(() => ws.cleanup());

const GIB = 1024 ** 3;
const text = (r: { content: { type: string; text?: string }[] }): string => r.content.map((c) => c.text ?? "").join("");

describe("read of a file larger than 2 GiB", () => {
  it(
    "returns the first lines, the line count and the size of a 2.1 GiB line, holding none of it",
    async () => {
      // Ten short lines, a 16 KB line (past the binary sniff), a 2.1 GiB sparse run of zero
      // bytes, then "last line\n": 12 lines.
      const path = ws.write("huge.log", `${Array.from({ length: 10 }, (_, i) => `line ${i + 1}\n`).join("")}${"x".repeat(16_000)}\n`);
      truncateSync(path, Math.round(2.1 * GIB));
      const fd = openSync(path, "a");
      writeSync(fd, "last line\n");
      closeSync(fd);
      const read = createReadTool(ws.dir);
      expect(text(await read.execute("t", { path: "huge.log", limit: 5 }))).toBe("line 1\nline 2\nline 3\nline 4\nline 5\n\n[7 more lines in file. Use offset=6 to continue.]");
      expect(text(await read.execute("t", { path: "huge.log", offset: 12 }))).toBe("[Line 12 is 2150.4MB, exceeds 50.0KB limit. Use bash: sed -n '12p' huge.log | head -c 51200]");
    },
    120_000,
  );
});

describe("streamed pages equal the pages of the whole text", () => {
  /** The same local files read without `openRead`, i.e. loaded whole. */
  const whole: ReadOperations = { readFile: localFileSystem.readFile, stat: localFileSystem.stat, realpath: localFileSystem.realpath };
  const long = "é".repeat(600_000); // 1.2 MB: crosses the 1 MiB chunk (mid-character) and the 50 KB page
  const files: Record<string, string> = {
    empty: "",
    newline: "\n",
    noFinalNewline: "a\nb",
    crlf: "one\r\ntwo\r\n",
    manyLines: Array.from({ length: 5000 }, (_, i) => `row ${i}`).join("\n"),
    wideLines: Array.from({ length: 300 }, (_, i) => `${i} ${"x".repeat(400)} ünïcødé 🙂`).join("\n") + "\n",
    longFirst: `${long}\nshort\n`,
    longMiddle: `a\n${long}\nb\n`,
  };
  const pages: { offset?: number; limit?: number }[] = [{}, { limit: 1 }, { offset: 2 }, { offset: 2, limit: 3 }, { offset: 1, limit: 2500 }, { offset: 4001, limit: 10 }];

  it("for every edge case of lines, chunks and limits", async () => {
    for (const [name, content] of Object.entries(files)) ws.write(name, content);
    const streamed = createReadTool(ws.dir);
    const loaded = createReadTool(ws.dir, { operations: whole });
    for (const name of Object.keys(files)) {
      for (const page of pages) {
        const a = await streamed.execute("t", { path: name, ...page }).then(text, (e: Error) => `error: ${e.message}`);
        const b = await loaded.execute("t", { path: name, ...page }).then(text, (e: Error) => `error: ${e.message}`);
        expect(a, `${name} ${JSON.stringify(page)}`).toBe(b);
      }
    }
  });
});
