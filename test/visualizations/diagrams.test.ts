import { readFile } from "node:fs/promises";
import { describe, expect, it } from "vitest";
import { describeMachine } from "../../src/inspection/describe-machine.js";
import { toMermaid } from "../../src/inspection/to-mermaid.js";
import { machineTransitions } from "../../src/model-check/machine-transitions.js";
import { layoutChart } from "../../visualizations/chart-layout.js";
import { DIAGRAMS, diagramFiles, machineSvg } from "../../visualizations/diagrams.js";

const loop = (DIAGRAMS[0] as (typeof DIAGRAMS)[number]).machine;

describe("generated diagrams", () => {
  it("every committed diagram (.mmd and .svg) is what npm run diagrams writes from the machines", async () => {
    const files = await diagramFiles();
    expect(files.map(({ file }) => file)).toEqual(DIAGRAMS.flatMap(({ name }) => [`${name}.mmd`, `${name}.svg`]));
    for (const { file, text } of files) {
      const committed = await readFile(new URL(`../../visualizations/${file}`, import.meta.url), "utf8").catch(() => "(missing)");
      expect(committed, `visualizations/${file} is stale: run npm run diagrams`).toBe(text);
    }
  }, 60_000);

  it("visualizations/README.md lists every diagram, with its machine's file", async () => {
    const readme = await readFile(new URL("../../visualizations/README.md", import.meta.url), "utf8");
    const listed = [...readme.matchAll(/^- `([a-z-]+)` — .*`(machines\/[a-z-]+\.machine\.ts)`$/gm)].map((match) => `${match[1]} ${match[2]}`);
    expect(listed.sort()).toEqual(DIAGRAMS.map(({ name }) => `${name} machines/${name}.machine.ts`).sort());
  });

  it("the Mermaid diagram draws every transition of the loop machine as an edge, run.abort included", () => {
    const lines = toMermaid(loop).split("\n");
    const edges = lines.filter((line) => line.includes(" --> ") && !line.includes("[*]")).length;
    expect(lines.some((line) => line.trim().startsWith("%%"))).toBe(false);
    expect(edges).toBe(machineTransitions(loop).length);
    expect(lines).toContain("  agentLoop__any --> agentLoop__any: run.abort [notAborted]");
    expect(lines).toContain("  agentLoop_requesting --> agentLoop_toolBatch: model.done [isLengthTruncated]");
  });

  for (const { name, machine } of DIAGRAMS) {
    it(`the SVG of ${name} has one labelled arrow per transition of the definition and a box per state`, async () => {
      const svg = await machineSvg(machine);
      const transitions = machineTransitions(machine);
      const arrows = svg.match(/<g class="transition"[^>]*><path d="M[^"]+" marker-end=/g) ?? [];
      expect(arrows).toHaveLength(transitions.length);
      const described = describeMachine(machine);
      const paths = (function all(state: typeof described.root): string[] {
        return [state.path, ...state.states.flatMap(all)];
      })(described.root);
      for (const path of paths) expect(svg).toContain(`data-path="${path}"`);
      for (const transition of described.transitions) {
        const attrs = `data-source="${transition.source}" data-event="${transition.event}"${transition.guard ? ` data-guard="${transition.guard}"` : ""}`;
        expect(svg, `${transition.source} ${transition.event} [${transition.guard ?? ""}]`).toContain(attrs);
      }
      expect(svg).not.toMatch(/https?:\/\/(?!www\.w3\.org\/2000\/svg)/);
    }, 30_000);
  }

  it("the loop's SVG draws the root's run.abort as a loop on the machine's box", async () => {
    const layout = await layoutChart(describeMachine(loop));
    const abort = layout.edges.find((edge) => edge.transition?.event === "run.abort");
    const machineBox = layout.states.find((state) => state.path === "");
    expect(abort?.label?.lines).toEqual(["run.abort", "[notAborted]"]);
    expect(machineBox).toBeDefined();
    const onBorder = (point: { x: number; y: number }) => {
      const box = machineBox as NonNullable<typeof machineBox>;
      const near = (a: number, b: number) => Math.abs(a - b) < 1;
      return near(point.x, box.x) || near(point.x, box.x + box.width) || near(point.y, box.y) || near(point.y, box.y + box.height);
    };
    const points = abort?.points ?? [];
    expect(onBorder(points[0] as { x: number; y: number })).toBe(true);
    expect(onBorder(points.at(-1) as { x: number; y: number })).toBe(true);
  });

  it("every transition arrow starts on its source's box and ends on its target's box", async () => {
    for (const { machine } of DIAGRAMS) {
      const layout = await layoutChart(describeMachine(machine));
      const boxes = new Map(layout.states.map((state) => [state.path, state]));
      const touches = (point: { x: number; y: number } | undefined, path: string) => {
        const box = boxes.get(path);
        if (!box || !point) return false;
        const inX = point.x >= box.x - 1 && point.x <= box.x + box.width + 1;
        const inY = point.y >= box.y - 1 && point.y <= box.y + box.height + 1;
        const onEdge = Math.abs(point.x - box.x) < 1 || Math.abs(point.x - box.x - box.width) < 1 || Math.abs(point.y - box.y) < 1 || Math.abs(point.y - box.y - box.height) < 1;
        return inX && inY && onEdge;
      };
      for (const edge of layout.edges) {
        const transition = edge.transition;
        if (!transition) continue;
        const target = transition.targets[0] ?? transition.source;
        expect(touches(edge.points[0], transition.source), `${machine.id}: ${transition.source} --${transition.event}--> start`).toBe(true);
        expect(touches(edge.points.at(-1), target), `${machine.id}: ${transition.source} --${transition.event}--> ${target} end`).toBe(true);
      }
    }
  }, 60_000);
});
