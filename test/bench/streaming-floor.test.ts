import { existsSync } from "node:fs";
import { describe, expect, it } from "vitest";

const benchInstalled = existsSync(new URL("../../bench/node_modules/@mariozechner/pi-agent-core/package.json", import.meta.url));
const itWithBenchDeps = benchInstalled ? it : it.skip;
const needsDeps = benchInstalled ? "" : " (skipped: bench/node_modules is absent; run `npm --prefix bench ci`)";

describe("the streaming floor", () => {
  itWithBenchDeps(`should emit pi's event sequence and return pi's messages on every peers shape, so it floors what pi's protocol costs${needsDeps}`, async () => {
    const { measureRun } = await import("../../bench/measure.js");
    const { piEngine } = await import("../../bench/engines.js");
    const { streamingFloorLoop } = await import("../../bench/streaming-floor.js");
    const { PEER_WORKLOADS, scaleWorkload } = await import("../../bench/workloads.js");
    for (const shape of PEER_WORKLOADS) {
      const workload = scaleWorkload(shape, 0.02);
      const pi = await measureRun(piEngine, workload, { fingerprint: true });
      // measureRun throws when the run returns another number of messages than the workload implies.
      const floor = await measureRun({ name: "streaming floor", agentLoop: streamingFloorLoop }, workload, { fingerprint: true });
      expect(floor.events).toBe(pi.events);
      expect(floor.sequenceHash).toBe(pi.sequenceHash);
    }
  });
});
