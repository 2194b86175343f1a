import { describe, expect, it } from "vitest";
import { BenchOptionError, DEFAULT_ROUNDS, readBenchOptions } from "../../bench/options.js";
import { expectedMessageCount, scaleWorkload, WORKLOADS } from "../../bench/workloads.js";

describe("readBenchOptions", () => {
  it("should use five rounds, full scale, the built package and the tools bench when nothing is set", () => {
    expect(readBenchOptions({})).toEqual({ rounds: DEFAULT_ROUNDS, scale: 1, loopchartSource: "dist", only: undefined, tools: true, signal: false });
  });

  it("should read every BENCH_ variable", () => {
    expect(
      readBenchOptions({ BENCH_ROUNDS: "3", BENCH_SCALE: "0.01", BENCH_LOOPCHART: "src", BENCH_ONLY: "long, long 2x", BENCH_TOOLS: "0", BENCH_SIGNAL: "1" }),
    ).toEqual({ rounds: 3, scale: 0.01, loopchartSource: "src", only: ["long", "long 2x"], tools: false, signal: true });
  });

  it("should reject malformed values with a message naming what was expected", () => {
    expect(() => readBenchOptions({ BENCH_ROUNDS: "zero" })).toThrow(new BenchOptionError('BENCH_ROUNDS must be a whole number ≥ 1, got "zero"'));
    expect(() => readBenchOptions({ BENCH_ROUNDS: "1.5" })).toThrow(BenchOptionError);
    expect(() => readBenchOptions({ BENCH_SCALE: "0" })).toThrow('BENCH_SCALE must be a number in (0, 10], got "0"');
    expect(() => readBenchOptions({ BENCH_LOOPCHART: "npm" })).toThrow('BENCH_LOOPCHART must be "dist" or "src", got "npm"');
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
