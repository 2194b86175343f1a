/**
 * The services of one run: what the chart's named actors need and a snapshot
 * cannot hold — the configuration with its hook functions, the tools, the stream
 * function and the abort signal. Provided once per run and only read; the chart's
 * data (transcript, assistant message, batch) reaches the actors as their input,
 * never through these. Nothing here is persisted: a restored
 * run is given fresh services.
 */
import type { CallHookScope } from "../machines/events.js";
import type { AgentContext, AgentLoopConfig, AgentTool, StreamFn, Tool } from "./types.js";
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

/** The pi-shaped context call hooks receive: the system prompt and transcript as the batch started, and the run's tools. */
export function hookContext(services: RunServices, scope: CallHookScope): AgentContext {
  const tools = services.tools();
  return { systemPrompt: scope.systemPrompt, messages: transcriptMessages(scope.messages), ...(tools ? { tools } : {}) };
}
