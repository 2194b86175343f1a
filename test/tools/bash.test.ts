import { execFileSync } from "node:child_process";
import { readFileSync, rmSync, statSync } from "node:fs";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { createBashTool } from "../../tools/index.js";
import type { AgentToolResult } from "../../src/types.js";
import { createTempWorkspace, type TempWorkspace } from "../helpers/temp-workspace.js";

let ws: TempWorkspace;
beforeEach(() => {
  ws = createTempWorkspace();
});
afterEach(() => ws.cleanup());

const text = (r: AgentToolResult<unknown>): string => r.content.map((c) => ("text" in c ? c.text : "")).join("");

/** Processes renamed to `marker` (by `exec -a`), from `ps`. */
function processesWith(marker: string): string[] {
  const out = execFileSync("ps", ["-eo", "pid=,args="], { encoding: "utf8" });
  return out.split("\n").filter((l) => l.trim().split(/\s+/)[1] === marker);
}

async function waitUntil(check: () => boolean): Promise<void> {
  for (let i = 0; i < 200 && !check(); i++) await new Promise((r) => setTimeout(r, 25));
}

describe("bash", () => {
  it("returns merged stdout and stderr in order", async () => {
    const r = await createBashTool(ws.dir).execute("t", { command: "echo one; echo two >&2; echo three" });
    expect(text(r)).toBe("one\ntwo\nthree");
  });

  it("says (no output) for a silent command and runs in cwd", async () => {
    ws.write("here.txt", "x");
    expect(text(await createBashTool(ws.dir).execute("t", { command: "true" }))).toBe("(no output)");
    expect(text(await createBashTool(ws.dir).execute("t", { command: "ls" }))).toBe("here.txt");
  });

  it("throws with the output and the exit code", async () => {
    await expect(createBashTool(ws.dir).execute("t", { command: "echo failing; exit 3" })).rejects.toThrow("failing\n\nCommand exited with code 3");
  });

  it("keeps the tail of 100,000 lines and the complete output in a 0600 temp file", async () => {
    const r = await createBashTool(ws.dir).execute("t", { command: "seq 1 100000" });
    const out = text(r);
    const path = r.details.fullOutputPath as string;
    expect(out.endsWith(`\n\n[Showing lines 98001-100000 of 100000. Full output: ${path}]`)).toBe(true);
    expect(out.startsWith("98001\n")).toBe(true);
    const expected = execFileSync("seq", ["1", "100000"]);
    expect(readFileSync(path).equals(expected)).toBe(true);
    expect(statSync(path).mode & 0o777).toBe(0o600);
    rmSync(path);
  });

  it("streams partial output through onUpdate", async () => {
    const updates: string[] = [];
    await createBashTool(ws.dir).execute("t", { command: "echo first; sleep 0.3; echo second" }, undefined, (u) => {
      updates.push(u.content.map((c) => ("text" in c ? c.text : "")).join(""));
    });
    expect(updates.length).toBeGreaterThan(0);
    expect(updates[0]).toContain("first");
  });

  it("decodes a multi-byte character split across chunks", async () => {
    const r = await createBashTool(ws.dir).execute("t", { command: "printf '\\xc3'; sleep 0.2; printf '\\xa9\\n'" });
    expect(text(r)).toBe("é");
  });

  it("kills the whole process group on timeout, leaving no child behind", async () => {
    const marker = `loopchart-timeout-${process.pid}-${Date.now()}`;
    const child = `bash -c 'exec -a ${marker} sleep 300'`;
    const run = createBashTool(ws.dir).execute("t", { command: `${child} & (${child}) & echo started; wait`, timeout: 1 });
    await waitUntil(() => processesWith(marker).length === 2);
    expect(processesWith(marker)).toHaveLength(2);
    await expect(run).rejects.toThrow(/^started\n\nCommand timed out after 1 seconds$/);
    await waitUntil(() => processesWith(marker).length === 0);
    expect(processesWith(marker)).toEqual([]);
  });

  it("kills the whole process group on abort, leaving no child behind", async () => {
    const marker = `loopchart-abort-${process.pid}-${Date.now()}`;
    const controller = new AbortController();
    const child = `bash -c 'exec -a ${marker} sleep 300'`;
    const run = createBashTool(ws.dir).execute("t", { command: `${child} & (${child}) & echo started; wait` }, controller.signal);
    await waitUntil(() => processesWith(marker).length === 2);
    expect(processesWith(marker)).toHaveLength(2);
    controller.abort();
    await expect(run).rejects.toThrow(/^started\n\nCommand aborted$/);
    await waitUntil(() => processesWith(marker).length === 0);
    expect(processesWith(marker)).toEqual([]);
  });
});
