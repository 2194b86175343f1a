/**
 * Benchmark of the search tools: grep and find over a generated tree of 20,000 files,
 * the built-in implementation against rg / fd. Prints times and the ratio.
 *
 * Run alone with `npx tsx bench/tools-bench.ts`; `npm run bench` calls {@link runToolsBench}.
 */
import { mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { createFindTool, createGrepTool, findFd, findRipgrep, type SearchBackend } from "../tools/index.js";

/** Files in the generated tree. */
export const BENCH_FILE_COUNT = 20_000;
const FILES_PER_DIR = 100;
const LINES_PER_FILE = 20;
/** Every this-many files holds a line the grep pattern matches. */
const MATCH_EVERY = 50;

function generateTree(root: string): void {
  writeFileSync(join(root, ".gitignore"), "build/\n");
  for (let i = 0; i < BENCH_FILE_COUNT; i++) {
    const dir = join(root, `pkg${Math.floor(i / (FILES_PER_DIR * 10))}`, `mod${Math.floor(i / FILES_PER_DIR)}`);
    if (i % FILES_PER_DIR === 0) mkdirSync(dir, { recursive: true });
    const lines = Array.from({ length: LINES_PER_FILE }, (_, k) => `export const value${k} = ${i * k}; // line ${k}`);
    if (i % MATCH_EVERY === 0) lines.push(`// NEEDLE ${i}`);
    writeFileSync(join(dir, `file${i}.${i % 2 === 0 ? "ts" : "js"}`), lines.join("\n") + "\n");
  }
}

async function time(run: () => Promise<string>): Promise<{ ms: number; output: string }> {
  const start = performance.now();
  const output = await run();
  return { ms: performance.now() - start, output };
}

const textOf = (r: { content: { type: string; text?: string }[] }): string => r.content.map((c) => c.text ?? "").join("");

/**
 * Generates the tree in a temp dir, times grep and find on both paths (the external one
 * only when rg / fd is installed, else a note says it was skipped), logs one line per
 * measurement, and removes the tree.
 */
export async function runToolsBench(log: (line: string) => void): Promise<void> {
  const root = realpathSync(mkdtempSync(join(tmpdir(), "loopchart-bench-")));
  try {
    const genStart = performance.now();
    generateTree(root);
    log(`tools: generated ${BENCH_FILE_COUNT} files in ${(performance.now() - genStart).toFixed(0)} ms`);

    const grep = (backend: SearchBackend) => () =>
      createGrepTool(root, { backend }).execute("bench", { pattern: "NEEDLE \\d+", limit: 1000 }).then(textOf);
    const find = (backend: SearchBackend) => () =>
      createFindTool(root, { backend }).execute("bench", { pattern: "*.ts", limit: 20_000 }).then(textOf);

    for (const [name, run, external] of [
      ["grep", grep, findRipgrep() ? "rg" : undefined],
      ["find", find, findFd() ? "fd" : undefined],
    ] as const) {
      await run("builtin")(); // warm the file cache
      const builtin = await time(run("builtin"));
      log(`tools: ${name} built-in: ${builtin.ms.toFixed(0)} ms`);
      if (!external) {
        log(`tools: ${name} via ${name === "grep" ? "rg" : "fd"}: skipped (not installed)`);
        continue;
      }
      const fast = await time(run("external"));
      const same = fast.output === builtin.output ? "same output" : "OUTPUT DIFFERS";
      log(`tools: ${name} via ${external}: ${fast.ms.toFixed(0)} ms; built-in/${external} ratio ${(builtin.ms / fast.ms).toFixed(2)}x (${same})`);
    }
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
}

if (process.argv[1] && realpathSync(process.argv[1]) === fileURLToPath(import.meta.url)) {
  await runToolsBench((line) => console.log(line));
}
