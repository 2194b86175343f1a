import { describe, expect, it } from "vitest";
import { mergeProfiles, summariseProfile, type CpuProfile } from "../../bench/summarise-profile.js";

/** A profile of a root calling one function of `url`, sampled `samples` times 1 ms apart. */
function profileOf(functionName: string, url: string, samples: number): CpuProfile {
  return {
    nodes: [
      { id: 1, callFrame: { functionName: "(root)", url: "", lineNumber: -1 }, children: [2] },
      { id: 2, callFrame: { functionName, url, lineNumber: 9 } },
    ],
    samples: Array.from({ length: samples }, () => 2),
    timeDeltas: Array.from({ length: samples }, () => 1_000),
  };
}

describe("mergeProfiles", () => {
  it("should keep every run's samples under its own function though the runs reuse node ids", () => {
    const merged = mergeProfiles([
      profileOf("Actor", "file:///x/node_modules/xstate/dist/raise.js", 3),
      profileOf("resultMessage", "file:///x/machines/tool-batch.machine.js", 1),
    ]);
    expect(new Set(merged.nodes.map((node) => node.id)).size).toBe(merged.nodes.length);
    const lines = summariseProfile(merged);
    expect(lines[0]).toBe("total sampled 4 ms");
    expect(lines).toContain("      3.0 ms  75.0%  xstate");
    expect(lines).toContain("      1.0 ms  25.0%  loopchart/machines");
  });
});
