/**
 * The machines whose diagrams are generated into this folder, and their files: every
 * state machine exported by machines/index.ts, named after its id in kebab case
 * (`agentLoop` → `agent-loop.mmd`). A machine added there gets a diagram without edits here.
 */
import type { AnyStateMachine } from "xstate";
import * as machines from "../machines/index.js";

function isStateMachine(value: unknown): value is AnyStateMachine {
  return typeof value === "object" && value !== null && "root" in value && "config" in value && "provide" in value;
}

const kebab = (id: string): string => id.replace(/[A-Z]/g, (letter) => `-${letter.toLowerCase()}`);

export const DIAGRAMS: readonly { file: string; machine: AnyStateMachine }[] = Object.values(machines as Record<string, unknown>)
  .filter(isStateMachine)
  .map((machine) => ({ file: `${kebab(machine.id)}.mmd`, machine }))
  .sort((a, b) => (a.machine.id === "agentLoop" ? -1 : b.machine.id === "agentLoop" ? 1 : a.file.localeCompare(b.file)));
