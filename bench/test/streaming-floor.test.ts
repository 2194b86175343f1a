import { existsSync } from "node:fs";
import { describe, expect, it } from "vitest";

const benchInstalled = existsSync(new URL("../../bench/node_modules/@mariozechner/pi-agent-core/package.json", import.meta.url));
const itWithBenchDeps = benchInstalled ? it : it.skip;
const needsDeps = benchInstalled ? "" : " (skipped: bench/node_modules is absent; run `npm --prefix bench ci`)";

describe("the streaming floor", () => {
  itWithBenchDeps(`should emit pi's event sequence and return pi's messages on every workload, sliced batches included, so it floors what pi's protocol costs${needsDeps}`, async () => {
    const { measureRun } = await import("../../bench/measure.js");
    const { piEngine } = await import("../../bench/engines.js");
    const { streamingFloorEngine } = await import("../../bench/streaming-floor.js");
    const { PEER_WORKLOADS, WORKLOADS, scaleWorkload } = await import("../../bench/workloads.js");
    // At this scale wide runs one turn of 64 calls (two slices) and the huge batch 40 calls.
    for (const shape of [...PEER_WORKLOADS, ...WORKLOADS]) {
      const workload = scaleWorkload(shape, 0.02);
      const pi = await measureRun(piEngine, workload, { fingerprint: true });
      // measureRun throws when the run returns another number of messages than the workload implies.
      const floor = await measureRun(streamingFloorEngine, workload, { fingerprint: true });
      expect(floor.events).toBe(pi.events);
      expect(floor.sequenceHash).toBe(pi.sequenceHash);
    }
  });
});
