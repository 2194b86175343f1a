/**
 * Issue 32, defect 7: confinement opens what it checked. While a real process keeps
 * swapping `sub/` between a directory and a symbolic link to an outside directory, no
 * confined tool reads, lists, finds, greps or writes anything outside the root.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { mkdirSync, readdirSync, readFileSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { PathOutsideRootError, createEditTool, createFindTool, createGrepTool, createLsTool, createReadTool, createWriteTool } from "../../../tools/index.js";
import { createTempWorkspace, type TempWorkspace } from "../../helpers/temp-workspace.js";

const READS = 300;
const OTHER_CALLS = 60;
const SECRET = "OUTSIDE-SECRET";

/** Swaps `sub` between the directory `sub.dir` and the link `sub.link` until killed; prints the swaps done on SIGTERM. */
const SWAPPER = `
const { renameSync } = require("node:fs");
const dir = process.argv[1];
let swaps = 0;
process.on("SIGTERM", () => { process.stdout.write(String(swaps)); process.exit(0); });
const step = (from, to) => { try { renameSync(dir + "/" + from, dir + "/" + to); } catch {} };
(async () => {
  for (;;) {
    for (let i = 0; i < 50; i++) {
      step("sub.dir", "sub"); step("sub", "sub.dir");
      step("sub.link", "sub"); step("sub", "sub.link");
      swaps++;
    }
    if (swaps === 50) process.stdout.write("ready\\n");
    await new Promise((resolve) => setImmediate(resolve));
  }
})();
`;

let root: TempWorkspace;
let outside: TempWorkspace;
let swapper: ChildProcess | undefined;

beforeEach(() => {
  root = createTempWorkspace({ "sub.dir/file.txt": "inside\n", "top.txt": "top\n" });
  outside = createTempWorkspace({ "file.txt": `${SECRET}\n`, "outside-only.txt": `${SECRET}\n` });
  symlinkSync(outside.dir, join(root.dir, "sub.link"));
});

afterEach(() => {
  swapper?.kill("SIGKILL");
  swapper = undefined;
  root.cleanup();
  outside.cleanup();
});

/** Starts the swapper and resolves once it has swapped a while; `stop` resolves with the swap count. */
async function startSwapping(): Promise<{ stop: () => Promise<number> }> {
  const child = spawn(process.execPath, ["-e", SWAPPER, root.dir], { stdio: ["ignore", "pipe", "inherit"] });
  swapper = child;
  let out = "";
  child.stdout?.setEncoding("utf8");
  child.stdout?.on("data", (chunk: string) => {
    out += chunk;
  });
  await new Promise<void>((resolve, reject) => {
    child.stdout?.on("data", () => {
      if (out.includes("ready")) resolve();
    });
    child.on("exit", () => reject(new Error(`swapper exited early: ${out}`)));
  });
  return {
    stop: () =>
      new Promise((resolve) => {
        child.removeAllListeners("exit");
        // "close", not "exit": the count may still be unread in the pipe when the swapper has exited.
        child.on("close", () => resolve(Number(out.replace("ready\n", ""))));
        child.kill("SIGTERM");
      }),
  };
}

const text = (r: { content: { type: string; text?: string }[] }): string => r.content.map((c) => c.text ?? "").join("");

/** What one call returned: its text, or its error's message and whether it was a confinement refusal. */
async function outcome(call: () => Promise<{ content: { type: string; text?: string }[] }>): Promise<{ text: string; refused: boolean }> {
  try {
    return { text: text(await call()), refused: false };
  } catch (error) {
    return { text: (error as Error).message, refused: error instanceof PathOutsideRootError };
  }
}

describe("confinement under a directory/symlink swap race", () => {
  it(`${READS} reads of sub/file.txt: none returns the outside file`, async () => {
    const read = createReadTool(root.dir, { confine: true });
    const swapping = await startSwapping();
    const results: { text: string; refused: boolean }[] = [];
    for (let i = 0; i < READS; i++) results.push(await outcome(() => read.execute("t", { path: "sub/file.txt" })));
    const swaps = await swapping.stop();
    const escapes = results.filter((r) => r.text.includes(SECRET)).length;
    const inside = results.filter((r) => r.text === "inside").length;
    expect({ escapes, swapsDuringReads: swaps > 50 }).toEqual({ escapes: 0, swapsDuringReads: true });
    expect(inside).toBeGreaterThan(0);
    expect(results.filter((r) => !(r.text === "inside" || r.refused || /File not found|ENOENT|Too many levels of symbolic links/.test(r.text)))).toEqual([]);
  });

  it(`${READS} listings of sub/: none shows an outside name`, async () => {
    const ls = createLsTool(root.dir, { confine: true });
    const swapping = await startSwapping();
    const seen: string[] = [];
    for (let i = 0; i < READS; i++) seen.push((await outcome(() => ls.execute("t", { path: "sub" }))).text);
    await swapping.stop();
    expect(seen.filter((t) => t.includes("outside-only"))).toEqual([]);
    expect(seen.filter((t) => t === "file.txt").length).toBeGreaterThan(0);
  });

  it("ls, find and grep never show an outside name or line", async () => {
    const ls = createLsTool(root.dir, { confine: true });
    const find = createFindTool(root.dir, { confine: true });
    const grepRg = createGrepTool(root.dir, { confine: true });
    const grepBuiltin = createGrepTool(root.dir, { confine: true, backend: "builtin" });
    const findBuiltin = createFindTool(root.dir, { confine: true, backend: "builtin" });
    const swapping = await startSwapping();
    const seen: string[] = [];
    for (let i = 0; i < OTHER_CALLS; i++) {
      seen.push((await outcome(() => ls.execute("t", { path: "sub" }))).text);
      seen.push((await outcome(() => find.execute("t", { pattern: "*.txt" }))).text);
      seen.push((await outcome(() => findBuiltin.execute("t", { pattern: "*.txt" }))).text);
      seen.push((await outcome(() => grepRg.execute("t", { pattern: SECRET }))).text);
      seen.push((await outcome(() => grepBuiltin.execute("t", { pattern: SECRET }))).text);
    }
    await swapping.stop();
    expect(seen.filter((t) => t.includes("outside-only") || t.includes(SECRET))).toEqual([]);
  });

  it("write and edit through sub/ never change the outside directory", async () => {
    const write = createWriteTool(root.dir, { confine: true });
    const edit = createEditTool(root.dir, { confine: true });
    const swapping = await startSwapping();
    for (let i = 0; i < OTHER_CALLS; i++) {
      await outcome(() => write.execute("t", { path: `sub/new-${i}.txt`, content: "x\n" }));
      await outcome(() => write.execute("t", { path: `sub/deeper-${i}/new.txt`, content: "x\n" }));
      await outcome(() => edit.execute("t", { path: "sub/file.txt", edits: [{ oldText: "\n", newText: "!\n" }] }));
    }
    await swapping.stop();
    expect(readdirSync(outside.dir).sort()).toEqual(["file.txt", "outside-only.txt"]);
    expect(readFileSync(join(outside.dir, "file.txt"), "utf8")).toBe(`${SECRET}\n`);
  });
});

describe("confinement without a race", () => {
  it("follows links that stay inside, refuses links out at any depth", async () => {
    mkdirSync(join(root.dir, "a/b"), { recursive: true });
    writeFileSync(join(root.dir, "a/b/deep.txt"), "deep\n");
    symlinkSync("../top.txt", join(root.dir, "a/up.txt"));
    symlinkSync("b", join(root.dir, "a/bee"));
    symlinkSync("../../..", join(root.dir, "a/b/escape"));
    const read = createReadTool(root.dir, { confine: true });
    expect(text(await read.execute("t", { path: "a/up.txt" }))).toBe("top");
    expect(text(await read.execute("t", { path: "a/bee/deep.txt" }))).toBe("deep");
    await expect(read.execute("t", { path: `a/b/escape/${outside.dir.split("/").pop()}/file.txt` })).rejects.toThrow(PathOutsideRootError);
    await expect(read.execute("t", { path: "sub.link/file.txt" })).rejects.toThrow(PathOutsideRootError);
    await expect(createWriteTool(root.dir, { confine: true }).execute("t", { path: "sub.link/planted.txt", content: "x" })).rejects.toThrow(PathOutsideRootError);
    expect(readdirSync(outside.dir).sort()).toEqual(["file.txt", "outside-only.txt"]);
  });
});
