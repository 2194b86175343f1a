import { describe, expect, it } from "vitest";
import { BenchOptionError, DEFAULT_ROUNDS, readBenchOptions } from "../../bench/options.js";
import { expectedMessageCount, scaleWorkload, WORKLOADS } from "../../bench/workloads.js";
import { parseOtherBuilds } from "../../bench/engines.js";
import { formatBeforeAfter, type EngineFigures } from "../../bench/report.js";

describe("readBenchOptions", () => {
  it("should use five rounds, full scale, the built package and the tools bench when nothing is set", () => {
    expect(readBenchOptions({})).toEqual({ rounds: DEFAULT_ROUNDS, scale: 1, loopchartSource: "dist", only: undefined, tools: true, signal: false, clock: "wall" });
  });

  it("should read every BENCH_ variable", () => {
    expect(
      readBenchOptions({ BENCH_ROUNDS: "3", BENCH_SCALE: "0.01", BENCH_LOOPCHART: "src", BENCH_ONLY: "long, long 2x", BENCH_TOOLS: "0", BENCH_SIGNAL: "1", BENCH_CLOCK: "cpu" }),
    ).toEqual({ rounds: 3, scale: 0.01, loopchartSource: "src", only: ["long", "long 2x"], tools: false, signal: true, clock: "cpu" });
  });

  it("should reject malformed values with a message naming what was expected", () => {
    expect(() => readBenchOptions({ BENCH_ROUNDS: "zero" })).toThrow(new BenchOptionError('BENCH_ROUNDS must be a whole number ≥ 1, got "zero"'));
    expect(() => readBenchOptions({ BENCH_ROUNDS: "1.5" })).toThrow(BenchOptionError);
    expect(() => readBenchOptions({ BENCH_SCALE: "0" })).toThrow('BENCH_SCALE must be a number in (0, 10], got "0"');
    expect(() => readBenchOptions({ BENCH_LOOPCHART: "npm" })).toThrow('BENCH_LOOPCHART must be "dist" or "src", got "npm"');
    expect(() => readBenchOptions({ BENCH_CLOCK: "gpu" })).toThrow('BENCH_CLOCK must be "wall" or "cpu", got "gpu"');
    expect(() => readBenchOptions({ BENCH_ONLY: "chatty,tiny" })).toThrow(/unknown workloads tiny; known: chatty, wide, long, huge batch, long 2x/);
  });
});

describe("the workloads", () => {
  it("should grow the long workload's context to about 9,000 messages and double it in the 2x workload", () => {
    const long = WORKLOADS.find((workload) => workload.name === "long");
    const doubled = WORKLOADS.find((workload) => workload.name === "long 2x");
    expect(long && expectedMessageCount(long)).toBe(9_002);
    expect(doubled && doubled.toolTurns).toBe(2 * (long?.toolTurns ?? 0));
  });

  it("should shrink turns or calls with the scale but never below one", () => {
    const [chatty] = WORKLOADS;
    const huge = WORKLOADS.find((workload) => workload.name === "huge batch");
    expect(scaleWorkload(chatty, 0.01).toolTurns).toBe(10);
    expect(scaleWorkload(chatty, 0.0001).toolTurns).toBe(1);
    expect(huge && scaleWorkload(huge, 0.01)).toMatchObject({ toolTurns: 1, callsPerTurn: 20 });
  });
});

describe("other builds (BENCH_OTHER)", () => {
  it("should read labelled and bare paths, in order", () => {
    expect(parseOtherBuilds(undefined)).toEqual([]);
    expect(parseOtherBuilds(" ")).toEqual([]);
    expect(parseOtherBuilds("4646ad6=/a/dist/src/index.js, /b/dist/src/index.js")).toEqual([
      { label: "4646ad6", path: "/a/dist/src/index.js" },
      { label: "other 2", path: "/b/dist/src/index.js" },
    ]);
    expect(parseOtherBuilds("/c/index.js")).toEqual([{ label: "other", path: "/c/index.js" }]);
  });

  it("should print each build × pi and this build over each", () => {
    const figures = (medianMs: number): EngineFigures => ({ medianMs, events: 10, eventsPerSecond: 1, peakHeapMb: 1 });
    const [chatty] = WORKLOADS;
    const table = formatBeforeAfter([{ workload: chatty, pi: figures(100), loopchart: figures(300), ratio: 3, others: [{ label: "old", figures: figures(200) }] }]);
    expect(table.split("\n")).toEqual([
      "| workload | pi ms | old ms (× pi) | this build ms (× pi) | this / old |",
      "|---|--:|--:|--:|--:|",
      "| chatty | 100 | 200 (2.00) | 300 (3.00) | 1.50 |",
    ]);
  });
});
