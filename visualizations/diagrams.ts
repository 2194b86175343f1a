/**
 * The machines whose diagrams are generated into this folder, and their files: every
 * state machine exported by machines/index.ts, named after its id in kebab case
 * (`agentLoop` → `agent-loop.mmd` and `agent-loop.svg`). A machine added there gets its
 * diagrams without edits here.
 *
 * `<name>.svg` draws the whole hierarchy (every compound state open). A machine whose top level
 * has compound states also gets `<name>-top.svg`: its top level, each compound state one box
 * marked `[+]` (what the viewer shows first).
 */
import type { AnyStateMachine } from "xstate";
import * as machines from "../machines/index.js";
import { describeMachine } from "../src/inspection/describe-machine.js";
import { toMermaid } from "../src/inspection/to-mermaid.js";
import { layoutChart, topLevelCompounds } from "./chart-layout.js";

export { topLevelCompounds };
import { chartSvg } from "./chart-svg.js";

function isStateMachine(value: unknown): value is AnyStateMachine {
  return typeof value === "object" && value !== null && "root" in value && "config" in value && "provide" in value;
}

const kebab = (id: string): string => id.replace(/[A-Z]/g, (letter) => `-${letter.toLowerCase()}`);

/** Each shipped machine with the base name of its diagram files; the loop first. */
export const DIAGRAMS: readonly { name: string; machine: AnyStateMachine }[] = Object.values(machines as Record<string, unknown>)
  .filter(isStateMachine)
  .map((machine) => ({ name: kebab(machine.id), machine }))
  .sort((a, b) => (a.machine.id === "agentLoop" ? -1 : b.machine.id === "agentLoop" ? 1 : a.name.localeCompare(b.name)));

/** The SVG chart of `machine` (ELK layout, our SVG writer), the whole hierarchy or (`top`) its top level only. */
export async function machineSvg(machine: AnyStateMachine, { top = false }: { top?: boolean } = {}): Promise<string> {
  const description = describeMachine(machine);
  return chartSvg(await layoutChart(description, top ? { collapsed: topLevelCompounds(description) } : {}));
}

/** Every generated file of this folder (path relative to it) with the text it must hold. Deterministic. */
export async function diagramFiles(): Promise<{ file: string; text: string }[]> {
  const files: { file: string; text: string }[] = [];
  for (const { name, machine } of DIAGRAMS) {
    files.push({ file: `${name}.mmd`, text: toMermaid(machine) }, { file: `${name}.svg`, text: await machineSvg(machine) });
    if (topLevelCompounds(describeMachine(machine)).size > 0) files.push({ file: `${name}-top.svg`, text: await machineSvg(machine, { top: true }) });
  }
  return files;
}
