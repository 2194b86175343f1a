/**
 * Turns the measured runs into figures: medians, ratios, events per second,
 * and the Markdown table.
 */
import type { RunMeasurement } from "./measure.js";
import { describeWorkload, type Workload } from "./workloads.js";

const MS_PER_SECOND = 1_000;
const BYTES_PER_MB = 1024 * 1024;

/** The figures of one engine on one workload. */
export interface EngineFigures {
  medianMs: number;
  events: number;
  eventsPerSecond: number;
  /** Peak of the heap run, in MB above the post-GC baseline. */
  peakHeapMb: number;
}

/** The figures of one workload: pi's, and loopchart's when it ran. */
export interface WorkloadFigures {
  workload: Workload;
  pi: EngineFigures;
  loopchart?: EngineFigures;
  /** loopchart median / pi median. */
  ratio?: number;
  /** Other builds of loopchart (`BENCH_OTHER`) measured in the same rounds, by label. */
  others?: { label: string; figures: EngineFigures }[];
}

/** The median of a non-empty list (mean of the middle two for even lengths). */
export function median(values: readonly number[]): number {
  if (values.length === 0) throw new RangeError("median of an empty list");
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2;
}

/** Which time a run is measured by: wall time (default) or the process's CPU time (`BENCH_CLOCK=cpu`, steadier on a shared machine). */
export type BenchClock = "wall" | "cpu";

/** Summarises the timed rounds of one engine (`runs` non-empty) and its heap run, by `clock` (default wall time). */
export function summarise(runs: readonly RunMeasurement[], heapRun: RunMeasurement, clock: BenchClock = "wall"): EngineFigures {
  const medianMs = median(runs.map((run) => (clock === "cpu" ? run.cpuMs : run.wallMs)));
  const events = runs[0].events;
  return {
    medianMs,
    events,
    eventsPerSecond: (events / medianMs) * MS_PER_SECOND,
    peakHeapMb: (heapRun.peakHeapBytes ?? 0) / BYTES_PER_MB,
  };
}

function formatMs(ms: number): string {
  return ms >= 100 ? ms.toFixed(0) : ms.toFixed(1);
}

function formatRate(perSecond: number): string {
  if (perSecond >= 1e6) return `${(perSecond / 1e6).toFixed(2)} M`;
  return `${(perSecond / 1e3).toFixed(0)} k`;
}

/** One line per workload, printed as soon as it is measured. */
export function formatWorkloadLine(figures: WorkloadFigures): string {
  const { workload, pi, loopchart, ratio } = figures;
  const head = `${workload.name} (${describeWorkload(workload)}, ${pi.events} events):`;
  const piPart = `pi ${formatMs(pi.medianMs)} ms, ${formatRate(pi.eventsPerSecond)}ev/s, peak heap ${pi.peakHeapMb.toFixed(1)} MB`;
  if (!loopchart || ratio === undefined) return `${head} ${piPart}`;
  const lcPart = `loopchart ${formatMs(loopchart.medianMs)} ms, ${formatRate(loopchart.eventsPerSecond)}ev/s, peak heap ${loopchart.peakHeapMb.toFixed(1)} MB`;
  return `${head} ${piPart} | ${lcPart} | ratio ${ratio.toFixed(2)}`;
}

/** The results as a Markdown table; loopchart's columns read `n/a` when it did not run. */
export function formatTable(rows: readonly WorkloadFigures[]): string {
  const lines = [
    "| workload | shape | events | pi ms | loopchart ms | ratio loopchart/pi | pi events/s | loopchart events/s | pi peak heap MB | loopchart peak heap MB |",
    "|---|---|--:|--:|--:|--:|--:|--:|--:|--:|",
  ];
  for (const { workload, pi, loopchart, ratio } of rows) {
    lines.push(
      [
        "",
        workload.name,
        describeWorkload(workload),
        String(pi.events),
        formatMs(pi.medianMs),
        loopchart ? formatMs(loopchart.medianMs) : "n/a",
        ratio === undefined ? "n/a" : ratio.toFixed(2),
        formatRate(pi.eventsPerSecond),
        loopchart ? formatRate(loopchart.eventsPerSecond) : "n/a",
        pi.peakHeapMb.toFixed(1),
        loopchart ? loopchart.peakHeapMb.toFixed(1) : "n/a",
        "",
      ].join(" | ").trim(),
    );
  }
  return lines.join("\n");
}

/**
 * The before/after table: each other build's median (× pi) beside this build's, and
 * this build's time over each other build's (below 1: this build is faster).
 */
export function formatBeforeAfter(rows: readonly WorkloadFigures[]): string {
  const labels = rows[0]?.others?.map((other) => other.label) ?? [];
  const times = (figures: EngineFigures, pi: EngineFigures) => `${formatMs(figures.medianMs)} (${(figures.medianMs / pi.medianMs).toFixed(2)})`;
  const lines = [
    `| workload | pi ms | ${labels.map((label) => `${label} ms (× pi)`).join(" | ")} | this build ms (× pi) | ${labels.map((label) => `this / ${label}`).join(" | ")} |`,
    `|---|--:|${labels.map(() => "--:|").join("")}--:|${labels.map(() => "--:|").join("")}`,
  ];
  for (const { workload, pi, loopchart, others = [] } of rows) {
    if (!loopchart) continue;
    lines.push(
      [
        "",
        workload.name,
        formatMs(pi.medianMs),
        ...others.map((other) => times(other.figures, pi)),
        times(loopchart, pi),
        ...others.map((other) => `${(loopchart.medianMs / other.figures.medianMs).toFixed(2)}`),
        "",
      ].join(" | ").trim(),
    );
  }
  return lines.join("\n");
}
