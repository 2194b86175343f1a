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
  name: "pi" | "loopchart" | "streaming floor";
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
