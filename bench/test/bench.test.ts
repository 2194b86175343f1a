import { execFile } from "node:child_process";
import { existsSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { describe, expect, it } from "vitest";

const run = promisify(execFile);
const root = fileURLToPath(new URL("../../", import.meta.url));
const benchInstalled = existsSync(new URL("../../bench/node_modules/@mariozechner/pi-agent-core/package.json", import.meta.url));
/** Generous: the child loads pi-ai's provider SDKs and tsx; CI machines can be slow. Not a timing assertion. */
const CHILD_TIMEOUT_MS = 60_000;

/** Runs the benchmark at 0.2 % scale (a few turns per workload), one round, loopchart from source (no build needed). */
async function runTinyBench(): Promise<{ stdout: string; stderr: string }> {
  return run(process.execPath, ["--expose-gc", "--import", "tsx", "bench/run.ts"], {
    cwd: root,
    env: { ...process.env, BENCH_SCALE: "0.002", BENCH_ROUNDS: "1", BENCH_TOOLS: "0", BENCH_LOOPCHART: "src" },
    timeout: CHILD_TIMEOUT_MS,
  });
}

const itWithBenchDeps = benchInstalled ? it : it.skip;
const needsDeps = benchInstalled ? "" : " (skipped: bench/node_modules is absent; run `npm --prefix bench ci`)";

describe("bench/run.ts", () => {
  itWithBenchDeps(
    `should run every workload through both engines and end with the table and the worst-ratio line${needsDeps}`,
    async () => {
      const { stdout } = await runTinyBench();
      const lines = stdout.trimEnd().split("\n");

      expect(lines[lines.length - 1]).toMatch(/^worst ratio loopchart\/pi: \d+\.\d\d$/);
      expect(stdout).not.toContain("measuring pi alone");
      expect(stdout).toMatch(/^growth long 2x \/ long \(2x turns\): pi \d+\.\d\dx, loopchart \d+\.\d\dx$/m);

      const header = lines.findIndex((line) => line.startsWith("| workload |"));
      expect(header).toBeGreaterThan(0);
      const rows = lines.slice(header + 2).filter((line) => line.startsWith("| "));
      expect(rows.map((row) => row.split(" | ")[0].slice(2))).toEqual(["chatty", "wide", "long", "huge batch", "long 2x"]);
      for (const row of rows) {
        // Every loopchart cell is a figure, not n/a: loopchart ran and returned what the script implies.
        expect(row).not.toContain("n/a");
      }
    },
    CHILD_TIMEOUT_MS + 5_000,
  );
});

describe("bench/xstate-floor.ts", () => {
  itWithBenchDeps(
    `should run the least chart, the structure floor and the streaming floor through every workload beside pi and loopchart, and print each one's cost${needsDeps}`,
    async () => {
      const { stdout } = await run(process.execPath, ["--expose-gc", "--import", "tsx", "bench/xstate-floor.ts"], {
        cwd: root,
        env: { ...process.env, BENCH_SCALE: "0.002", BENCH_ROUNDS: "1", BENCH_LOOPCHART: "src" },
        timeout: CHILD_TIMEOUT_MS,
      });
      const rows = stdout.split("\n").filter((line) => line.includes("beyond pi"));
      // Both floor charts throw when they settle a different number of calls than the workload has, so a row means they did the work.
      expect(rows.map((row) => row.split(" (")[0])).toEqual(["chatty", "wide", "long", "huge batch", "long 2x"]);
      const figure = String.raw`\d+\.\d`;
      const row = new RegExp(
        String.raw`: floor ${figure} ms \(${figure}\d× pi\), structure ${figure} ms \(${figure}\d×\), streaming ${figure} ms \(${figure}\d×\), loopchart ${figure} ms \(${figure}\d×\), pi ${figure} ms; ` +
          String.raw`beyond pi: structure -?${figure} µs/(call|turn), streaming -?${figure} µs/(call|turn), loopchart -?${figure} µs/(call|turn)$`,
      );
      for (const line of rows) expect(line).toMatch(row);
    },
    CHILD_TIMEOUT_MS + 5_000,
  );
});

describe("bench/attribute.ts", () => {
  itWithBenchDeps(
    `should charge a tiny run's time to the loop's and the calls' events${needsDeps}`,
    async () => {
      const { stdout } = await run(process.execPath, ["--expose-gc", "--import", "tsx", "bench/attribute.ts"], {
        cwd: root,
        env: { ...process.env, BENCH_TURNS: "5", BENCH_CALLS: "2", BENCH_LOOPCHART: "src" },
        timeout: CHILD_TIMEOUT_MS,
      });
      expect(stdout).toMatch(/^loopchart, 5 turns × 2 calls × 0 deltas: \d+ µs per turn/m);
      // Every turn's model response, and every call's settling, reached the chart.
      expect(stdout).toMatch(/agentLoop model\.done +[\d.]+ +[\d.]+ +6$/m);
      // Two plain parallel calls take the direct path: each call reports to the loop once, and no batch machine runs.
      expect(stdout).toMatch(/agentLoop tool\.settled +[\d.]+ +[\d.]+ +10$/m);
      expect(stdout).toMatch(/toolCall xstate\.done\.actor\.executeTool +[\d.]+ +[\d.]+ +10$/m);
      expect(stdout).not.toMatch(/toolBatch|xstate\.done\.actor\.toolBatch/);
      expect(stdout).toMatch(/^inside XState macrosteps \(the chart's actions included\): \d+ µs per turn$/m);
    },
    CHILD_TIMEOUT_MS + 5_000,
  );
});

describe("bench/beside-generate-text.ts", () => {
  itWithBenchDeps(
    `should time pi, loopchart, both floors and the AI SDK's generateText on every peers shape${needsDeps}`,
    async () => {
      const { stdout } = await run(process.execPath, ["--expose-gc", "--import", "tsx", "bench/beside-generate-text.ts"], {
        cwd: root,
        env: { ...process.env, BENCH_SCALE: "0.01", BENCH_ROUNDS: "1", BENCH_LOOPCHART: "src" },
        timeout: CHILD_TIMEOUT_MS,
      });
      // generateText and the floor throw when they did a different number of steps or calls than the shape has, so a row means the work was done.
      const rows = stdout.split("\n").filter((line) => /^\| (chatty|wide|long) /.test(line));
      const cells = rows.map((row) => row.split(" | "));
      expect(cells.map((cell) => `${cell[0].slice(2).split(" (")[0]} ${cell[1]}`)).toEqual(
        ["chatty", "wide", "long"].flatMap((shape) => ["pi", "loopchart", "structure floor", "streaming floor", "generateText"].map((engine) => `${shape} ${engine}`)),
      );
      for (const cell of cells) {
        expect(cell[2]).toMatch(/^\d+\.\d$/);
        expect(cell[3]).toMatch(/^\d+\.\d\d$/);
      }
    },
    CHILD_TIMEOUT_MS + 5_000,
  );
});
