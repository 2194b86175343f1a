import { readFile } from "node:fs/promises";
import { describe, expect, it } from "vitest";
import { toMermaid } from "../../src/inspection/to-mermaid.js";
import { machineTransitions } from "../../src/model-check/machine-transitions.js";
import { DIAGRAMS } from "../../visualizations/diagrams.js";

describe("generated diagrams", () => {
  for (const { file, machine } of DIAGRAMS) {
    it(`visualizations/${file} is up to date with the machine (run npm run diagrams if not)`, async () => {
      const committed = await readFile(new URL(`../../visualizations/${file}`, import.meta.url), "utf8");
      expect(committed).toBe(toMermaid(machine));
    });
  }

  it("draws every transition of the loop machine as an edge, run.abort included", () => {
    const { machine } = DIAGRAMS[0] as (typeof DIAGRAMS)[number];
    const lines = toMermaid(machine).split("\n");
    const edges = lines.filter((line) => line.includes(" --> ") && !line.includes("[*]")).length;
    expect(lines.some((line) => line.trim().startsWith("%%"))).toBe(false);
    expect(edges).toBe(machineTransitions(machine).length);
    expect(lines).toContain("  agentLoop__any --> agentLoop__any: run.abort [notAborted]");
    expect(lines).toContain("  agentLoop_requesting --> agentLoop_toolBatch: model.done [isLengthTruncated]");
  });
});
