import { readFile } from "node:fs/promises";
import { describe, expect, it } from "vitest";
import { describeMachine } from "../../src/inspection/describe-machine.js";
import { toMermaid } from "../../src/inspection/to-mermaid.js";
import { machineTransitions } from "../../src/model-check/machine-transitions.js";
import { layoutChart } from "../../visualizations/chart-layout.js";
import { DIAGRAMS, diagramFiles, machineSvg, topLevelCompounds } from "../../visualizations/diagrams.js";
import { nestedLoopMachine } from "../support/nested-loop-machine.js";

const loop = (DIAGRAMS[0] as (typeof DIAGRAMS)[number]).machine;

describe("generated diagrams", () => {
  it("every committed diagram (.mmd and .svg) is what npm run diagrams writes from the machines", async () => {
    const files = await diagramFiles();
    expect(files.map(({ file }) => file).filter((file) => !file.endsWith("-top.svg"))).toEqual(DIAGRAMS.flatMap(({ name }) => [`${name}.mmd`, `${name}.svg`]));
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
    expect(lines).toContain("  agentLoop_requesting_awaitingResponse --> agentLoop_dispatching_batch: model.done [isLengthTruncated]");
    expect(lines).toContain("  agentLoop_requesting_awaitingResponse --> agentLoop_dispatching_alone: model.done [runsAlone]");
    expect(lines.join("\n")).not.toContain("xstate.done.actor");
  });

  for (const { name, machine } of DIAGRAMS) {
    it(`the SVG of ${name} draws every transition of the definition (arrow or ↻ line) and a box per state`, async () => {
      const svg = await machineSvg(machine);
      const described = describeMachine(machine);
      const paths = (function all(state: typeof described.root): string[] {
        return [state.path, ...state.states.flatMap(all)];
      })(described.root);
      for (const path of paths) expect(svg).toContain(`data-path="${path}"`);
      for (const transition of described.transitions) {
        if (transition.targets.length === 0) continue;
        const attrs = `data-source="${transition.source}" data-event="${transition.event}"${transition.guard ? ` data-guard="${transition.guard}"` : ""}`;
        expect(svg, `${transition.source} ${transition.event} [${transition.guard ?? ""}]`).toContain(attrs);
      }
      expect(svg).not.toMatch(/https?:\/\/(?!www\.w3\.org\/2000\/svg)/);
      expect(svg, "labels in plain words").not.toMatch(/>[^<]*xstate\./);
    }, 30_000);
  }

  it("a nested machine: a transition declared on a compound state is one arrow from its box; labels are plain words", async () => {
    const layout = await layoutChart(describeMachine(nestedLoopMachine));
    const abandon = layout.edges.filter((edge) => edge.transitions.some(({ transition }) => transition.event === "run.abandon" && transition.source === "betweenTurns"));
    expect(abandon).toHaveLength(1);
    expect(abandon[0]?.from).toBe("betweenTurns");
    const lines = layout.edges.flatMap((edge) => edge.label?.lines ?? []);
    expect(lines).toContain("done [hasSteering]");
    expect(lines.some((line) => line.startsWith("after 5s"))).toBe(true);
    expect(lines.join(" ")).not.toMatch(/xstate\./);
    expect(layout.states.find((state) => state.path === "")?.internal).toEqual(["↻ run.abort"]);
  });

  it("collapsed compound states: one box each; their children's outside transitions leave it, those inside are not drawn", async () => {
    const description = describeMachine(nestedLoopMachine);
    const layout = await layoutChart(description, { collapsed: topLevelCompounds(description) });
    expect(layout.states.map((state) => state.path).sort()).toEqual(["", "appending", "betweenTurns", "dispatching", "done", "requesting"]);
    expect(layout.states.find((state) => state.path === "requesting")?.collapsed).toBe(true);
    const pairs = layout.edges.filter((edge) => edge.kind === "transition").map((edge) => `${edge.from}->${edge.to}`);
    expect(new Set(pairs).size).toBe(pairs.length);
    expect(pairs).toContain("betweenTurns->requesting");
    expect(pairs).toContain("requesting->dispatching");
    expect(pairs).not.toContain("requesting->requesting");
    // The top level fits the viewer's first screen at 100 %.
    expect(layout.width).toBeLessThanOrEqual(1400);
    expect(layout.height).toBeLessThanOrEqual(900);
  });

  it("no two labels of a chart's top level overlap, for every shipped machine and the nested sample", async () => {
    for (const machine of [...DIAGRAMS.map((d) => d.machine), nestedLoopMachine]) {
      const description = describeMachine(machine);
      const layout = await layoutChart(description, { collapsed: topLevelCompounds(description) });
      const boxes = layout.edges.flatMap((edge) => (edge.label ? [edge.label] : []));
      for (const [i, a] of boxes.entries())
        for (const b of boxes.slice(i + 1)) {
          const overlap = a.x < b.x + b.width && b.x < a.x + a.width && a.y < b.y + b.height && b.y < a.y + a.height;
          expect(overlap, `${machine.id}: ${a.lines.join("/")} overlaps ${b.lines.join("/")}`).toBe(false);
        }
    }
  }, 60_000);

  it("every arrow starts on its source's box and ends on its target's box", async () => {
    for (const machine of [...DIAGRAMS.map((d) => d.machine), nestedLoopMachine]) {
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
        if (edge.kind !== "transition") continue;
        expect(touches(edge.points[0], edge.from), `${machine.id}: ${edge.from} -> ${edge.to} start`).toBe(true);
        expect(touches(edge.points.at(-1), edge.to), `${machine.id}: ${edge.from} -> ${edge.to} end`).toBe(true);
      }
    }
  }, 60_000);
});
