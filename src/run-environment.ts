/**
 * The services of one run: what the chart's named actors need and a snapshot
 * cannot hold — the configuration with its hook functions, the tools, the stream
 * function and the abort signal. Provided once per run and only read; the chart's
 * data (transcript, assistant message, batch) reaches the actors as input or from
 * the loop's snapshot, never through these. Nothing here is persisted: a restored
 * run is given fresh services.
 */
import type { AnyActorRef } from "xstate";
import type { AgentLoopContext } from "../machines/agent-loop.machine.js";
import type { AgentContext, AgentLoopConfig, AgentTool, AssistantMessage, StreamFn, Tool } from "./types.js";
import { toJsonSchema } from "./validation.js";
import { transcriptMessages } from "../machines/transcript.js";

/** System id of a run's loop actor: the actors read the loop's current snapshot through it. */
export const LOOP_SYSTEM_ID = "agentLoop";

/** The per-run services the actors use. */
export interface RunServices {
  readonly config: AgentLoopConfig;
  readonly streamFn: StreamFn;
  readonly signal: AbortSignal | undefined;
  /** The tool named `name` of the current tool list. */
  tool(name: string): AgentTool | undefined;
  /** The current tool list as given (for hook contexts). */
  tools(): AgentTool[] | undefined;
  /** The tool declarations sent to the model (JSON Schema parameters). */
  declaredTools(): Tool[] | undefined;
  /** Replaces the tool list, when `prepareNextTurn` swaps the context. */
  useTools(tools: AgentTool[] | undefined): void;
}

/** Builds the services of a run for a tool list. */
export function createRunServices(options: {
  config: AgentLoopConfig;
  streamFn: StreamFn;
  signal: AbortSignal | undefined;
  tools: AgentTool[] | undefined;
}): RunServices {
  let tools: AgentTool[] | undefined;
  let byName = new Map<string, AgentTool>();
  let declared: Tool[] | undefined;
  const useTools = (next: AgentTool[] | undefined) => {
    tools = next;
    byName = new Map((next ?? []).map((tool) => [tool.name, tool]));
    declared = next?.map((tool) => ({ name: tool.name, description: tool.description, parameters: toJsonSchema(tool.parameters) }));
  };
  useTools(options.tools);
  return {
    config: options.config,
    streamFn: options.streamFn,
    signal: options.signal,
    tool: (name) => byName.get(name),
    tools: () => tools,
    declaredTools: () => declared,
    useTools,
  };
}

/** The loop's current context, read from its (immutable) snapshot through the actor system. */
export function loopContext(system: AnyActorRef["system"]): AgentLoopContext {
  const loop = system.get(LOOP_SYSTEM_ID) as { getSnapshot(): { context: AgentLoopContext } } | undefined;
  if (!loop) throw new Error(`No loop actor with system id "${LOOP_SYSTEM_ID}" in this actor system`);
  return loop.getSnapshot().context;
}

/** The pi-shaped context hooks receive: the loop's system prompt and transcript, and the run's tools. */
export function hookContext(services: RunServices, loop: AgentLoopContext): AgentContext {
  const tools = services.tools();
  return { systemPrompt: loop.systemPrompt, messages: transcriptMessages(loop.messages), ...(tools ? { tools } : {}) };
}

/** The assistant message whose calls are being run. */
export function currentAssistant(loop: AgentLoopContext): AssistantMessage {
  return loop.assistant as AssistantMessage;
}
