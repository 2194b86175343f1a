/**
 * Loads the two engines under test behind one signature:
 * pi-agent-core's `agentLoop` and loopchart's `agentLoop`.
 */
import { agentLoop as piAgentLoop } from "@mariozechner/pi-agent-core";
import type { LoopchartSource } from "./options.js";
import type { AgentContext, AgentEvent, AgentLoopConfig, AgentMessage, StreamFn } from "../src/types.js";

/** What both engines return: the events, async-iterable once, and the run's new messages. */
export interface AgentRunStream extends AsyncIterable<AgentEvent> {
  result(): Promise<AgentMessage[]>;
}

/** `agentLoop(prompts, context, config, signal?, streamFn?)`, the signature both engines share. */
export type AgentLoopFn = (
  prompts: AgentMessage[],
  context: AgentContext,
  config: AgentLoopConfig,
  signal?: AbortSignal,
  streamFn?: StreamFn,
) => AgentRunStream;

/** One engine under test. */
export interface Engine {
  /** `pi`, `loopchart`, `streaming floor`, or the label of another build (`BENCH_OTHER`). */
  name: string;
  agentLoop: AgentLoopFn;
}

/** pi-agent-core 0.73's loop. Its types are structurally loopchart's; the cast only bridges the two declarations. */
export const piEngine: Engine = { name: "pi", agentLoop: piAgentLoop as unknown as AgentLoopFn };

/** Loads loopchart's engine, or returns the reason it is unavailable (not built, not exported yet). */
export async function loadLoopchartEngine(source: LoopchartSource): Promise<Engine | string> {
  const specifier = source === "src" ? new URL("../src/index.ts", import.meta.url).href : "loopchart";
  let loaded: { agentLoop?: unknown };
  try {
    loaded = (await import(specifier)) as { agentLoop?: unknown };
  } catch (error) {
    return `cannot import loopchart from ${source}: ${error instanceof Error ? error.message.split("\n")[0] : String(error)}`;
  }
  if (typeof loaded.agentLoop !== "function") return `loopchart (${source}) does not export agentLoop yet`;
  return { name: "loopchart", agentLoop: loaded.agentLoop as AgentLoopFn };
}

/** Another build of loopchart to run in the same rounds: its label and the entry it was loaded from. */
export interface OtherBuild {
  label: string;
  path: string;
}

/**
 * Reads `BENCH_OTHER`: a comma-separated list of `label=path` (or a bare `path`,
 * labelled `other`), each path a loopchart build's entry (`<checkout>/dist/src/index.js`).
 *
 * @example BENCH_OTHER=4646ad6=/work/old/dist/src/index.js,7ee439c=/work/base/dist/src/index.js
 */
export function parseOtherBuilds(value: string | undefined): OtherBuild[] {
  if (value === undefined || value.trim() === "") return [];
  return value.split(",").map((entry, index) => {
    const trimmed = entry.trim();
    const equals = trimmed.indexOf("=");
    const fallback = index === 0 ? "other" : `other ${index + 1}`;
    return equals > 0 ? { label: trimmed.slice(0, equals), path: trimmed.slice(equals + 1) } : { label: fallback, path: trimmed };
  });
}

/** Loads another build's `agentLoop` as an engine named by its label. Throws when the entry exports none. */
export async function loadOtherBuild(build: OtherBuild): Promise<Engine> {
  const loaded = (await import(build.path)) as { agentLoop?: unknown };
  if (typeof loaded.agentLoop !== "function") {
    throw new Error(`BENCH_OTHER must name loopchart builds' entries (dist/src/index.js); ${build.path} exports no agentLoop`);
  }
  return { name: build.label, agentLoop: loaded.agentLoop as AgentLoopFn };
}
