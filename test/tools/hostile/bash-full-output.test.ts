/**
 * Issue 32, defect 9 (bash part): a huge command output leaves no huge temp file. The
 * full-output file is capped, and a file no result points to is deleted.
 */
import { readdirSync, readFileSync, statSync } from "node:fs";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { createBashTool, type BashOperations } from "../../../tools/index.js";
import { createTempWorkspace, type TempWorkspace } from "../../helpers/temp-workspace.js";

let ws: TempWorkspace;
let spill: TempWorkspace;
beforeEach(() => {
  ws = createTempWorkspace();
  spill = createTempWorkspace();
});
afterEach(() => {
  ws.cleanup();
  spill.cleanup();
});

const MIB = 1024 * 1024;
const text = (r: { content: { type: string; text?: string }[] }): string => r.content.map((c) => c.text ?? "").join("");

describe("bash full-output temp file", () => {
  it("keeps only the first fullOutputMaxBytes of a 24 MiB output and says so", async () => {
    const bash = createBashTool(ws.dir, { fullOutputDir: spill.dir, fullOutputMaxBytes: MIB });
    // 24 MiB of 'y\n' from a real process.
    const r = await bash.execute("t", { command: `yes | head -c ${24 * MIB}` });
    const path = r.details.fullOutputPath as string;
    expect(statSync(path).size).toBe(MIB);
    expect(readFileSync(path).subarray(0, 4).toString()).toBe("y\ny\n");
    expect(text(r)).toMatch(/First 1\.0MB of the 24\.0MB output: .*loopchart-bash-[0-9a-f]+\.log\]$/);
    expect(readdirSync(spill.dir)).toEqual([path.split("/").pop()]);
  });

  it("tells a confined model to view the file with bash, as read may not open it", async () => {
    const r = await createBashTool(ws.dir, { confine: true, fullOutputDir: spill.dir }).execute("t", { command: "seq 1 3000" });
    expect(text(r)).toMatch(/Full output: .*\.log \(outside the working directory: view it with bash, e\.g\. sed -n or tail\)\]$/);
  });

  it("deletes the temp file when the output was not cut after all (exactly the line limit)", async () => {
    const r = await createBashTool(ws.dir, { fullOutputDir: spill.dir }).execute("t", { command: "seq 1 2000" });
    expect(r.details.fullOutputPath).toBeUndefined();
    expect(text(r).endsWith("1999\n2000")).toBe(true);
    expect(readdirSync(spill.dir)).toEqual([]);
  });

  it("deletes the temp file when the command cannot be run", async () => {
    const failing: BashOperations = {
      exec: async (_command, options) => {
        options.onData(Buffer.alloc(200 * 1024, 0x61));
        throw new Error("spawn failed");
      },
    };
    await expect(createBashTool(ws.dir, { operations: failing, fullOutputDir: spill.dir }).execute("t", { command: "x" })).rejects.toThrow("spawn failed");
    expect(readdirSync(spill.dir)).toEqual([]);
  });
});
