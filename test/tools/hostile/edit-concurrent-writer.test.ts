/**
 * Issue 32, defect 8: `edit` notices a file changed since it read it. A real process
 * appends lines while 50 edits run: every edit lands and no appended line is lost. A
 * rewrite in the middle of an edit makes it write nothing and say to read the file again.
 */
import { spawn } from "node:child_process";
import { existsSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { createEditTool, localFileSystem, type EditOperations } from "../../../tools/index.js";
import { createTempWorkspace, type TempWorkspace } from "../../helpers/temp-workspace.js";

const EDITS = 50;

let ws: TempWorkspace;
beforeEach(() => {
  ws = createTempWorkspace();
});
afterEach(() => ws.cleanup());

/** Most lines the appender writes: the file (which every edit reads and diffs whole) stays small enough for 50 quick edits. */
const MAX_APPENDED = 20_000;

/** Starts bash appending "appended N" lines to `file` (one open per line, as `>>` does) until `stop` exists or it wrote {@link MAX_APPENDED}. */
function startAppender(file: string, stop: string): { appended: Promise<number> } {
  const script = `i=0; while [ ! -e "$2" ] && [ $i -lt ${MAX_APPENDED} ]; do echo "appended $((i+1))" >> "$1"; i=$((i+1)); done; echo $i`;
  const child = spawn("bash", ["-c", script, "appender", file, stop], { stdio: ["ignore", "pipe", "inherit"] });
  let out = "";
  child.stdout.setEncoding("utf8");
  child.stdout.on("data", (chunk: string) => {
    out += chunk;
  });
  // "close", not "exit": the count may still be unread in the pipe when bash has exited.
  return { appended: new Promise((resolve) => child.on("close", () => resolve(Number(out.trim())))) };
}

describe("edit while another process appends", () => {
  it(`applies ${EDITS} edits and keeps every appended line`, async () => {
    const file = ws.write("log.txt", Array.from({ length: EDITS }, (_, i) => `slot ${i}: old\n`).join(""));
    const appender = startAppender(file, ws.path("stop"));
    // Let the appender get going before the edits start.
    while (readFileSync(file, "utf8").split("\n").length < EDITS + 100) await new Promise((r) => setTimeout(r, 5));
    const edit = createEditTool(ws.dir);
    const results = await Promise.allSettled(
      Array.from({ length: EDITS }, (_, i) => edit.execute(`e${i}`, { path: "log.txt", edits: [{ oldText: `slot ${i}: old`, newText: `slot ${i}: new` }] })),
    );
    writeFileSync(ws.path("stop"), "");
    const count = await appender.appended;

    expect(results.filter((r) => r.status === "rejected")).toEqual([]);
    const lines = readFileSync(file, "utf8").split("\n").filter((l) => l !== "");
    expect(lines.slice(0, EDITS)).toEqual(Array.from({ length: EDITS }, (_, i) => `slot ${i}: new`));
    const appended = lines.slice(EDITS);
    const numbers = appended.map((l) => Number(/^appended (\d+)$/.exec(l)?.[1]));
    expect(count).toBeGreaterThan(100);
    expect(new Set(numbers).size).toBe(numbers.length);
    const missing = Array.from({ length: count }, (_, i) => i + 1).filter((n) => !numbers.includes(n));
    expect({ appended: count, missing: missing.length }).toEqual({ appended: count, missing: 0 });
    expect(readdirSync(ws.dir).filter((name) => name.endsWith(".tmp"))).toEqual([]);
  }, 60_000);
});

describe("edit when the file is rewritten between its read and its write", () => {
  it("writes nothing and tells the model to read the file again", async () => {
    const file = ws.write("a.txt", "alpha\nbeta\n");
    let rewritten = false;
    // Another program rewrites the file right after edit wrote its temp file.
    const racing: EditOperations = {
      ...localFileSystem,
      writeFile: async (path, data, mode) => {
        await localFileSystem.writeFile(path, data, mode);
        if (!rewritten && path.endsWith(".tmp")) {
          rewritten = true;
          writeFileSync(file, "alpha\nBETA from elsewhere\n");
        }
      },
    };
    const error = await createEditTool(ws.dir, { operations: racing })
      .execute("t", { path: "a.txt", edits: [{ oldText: "alpha", newText: "ALPHA" }] })
      .catch((e: unknown) => e as Error);
    expect((error as Error).message).toBe(
      "a.txt changed while the edit was being applied (another program rewrote it after edit read it), so nothing was written. Read a.txt again and redo the edit against what it holds now.",
    );
    expect(readFileSync(file, "utf8")).toBe("alpha\nBETA from elsewhere\n");
    expect(readdirSync(ws.dir)).toEqual(["a.txt"]);
    expect(existsSync(ws.path("stop"))).toBe(false);
  });
});
