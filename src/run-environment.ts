/**
 * What the named actors of one run close over: the configuration, the tools,
 * the stream function, the abort signal, and a view of the loop's live context.
 * Nothing here is persisted; a restored run gets a fresh environment.
 */
import type { AgentLoopContext } from "../machines/agent-loop.machine.js";
import type { AgentContext, AgentEvent, AgentLoopConfig, AgentTool, AssistantMessage, StreamFn, Tool } from "./types.js";
import { toJsonSchema } from "./validation.js";

/** The per-run services the actors use. */
export interface RunEnvironment {
  readonly config: AgentLoopConfig;
  readonly streamFn: StreamFn;
  readonly signal: AbortSignal | undefined;
  /** Tools by name; replaced when `prepareNextTurn` swaps the context. */
  toolsByName: Map<string, AgentTool>;
  /** The tool list as given (for hook contexts). */
  tools: AgentTool[] | undefined;
  /** The tool declarations sent to the model (JSON Schema parameters). */
  declaredTools: Tool[] | undefined;
  /** Reads the loop's current context; set once the actor exists. */
  readLoop: () => AgentLoopContext;
  /**
   * The run's event sink. The chart's own events reach it through `actor.on("*")`;
   * streaming updates (`message_start` of a streamed response, `message_update`,
   * `tool_execution_update`) are delivered here directly, without a transition.
   */
  emit: (event: AgentEvent) => void;
}

/** Builds the environment for a tool list. */
export function createRunEnvironment(options: {
  config: AgentLoopConfig;
  streamFn: StreamFn;
  signal: AbortSignal | undefined;
  tools: AgentTool[] | undefined;
  emit?: (event: AgentEvent) => void;
}): RunEnvironment {
  const env: RunEnvironment = {
    config: options.config,
    streamFn: options.streamFn,
    signal: options.signal,
    toolsByName: new Map(),
    tools: undefined,
    declaredTools: undefined,
    readLoop: () => {
      throw new Error("The loop's context is not readable before the actor is created");
    },
    emit: options.emit ?? (() => undefined),
  };
  setTools(env, options.tools);
  return env;
}

/** Replaces the run's tools (start of run, or a context swapped by `prepareNextTurn`). */
export function setTools(env: RunEnvironment, tools: AgentTool[] | undefined): void {
  env.tools = tools;
  env.toolsByName = new Map((tools ?? []).map((tool) => [tool.name, tool]));
  env.declaredTools = tools?.map((tool) => ({
    name: tool.name,
    description: tool.description,
    parameters: toJsonSchema(tool.parameters),
  }));
}

/** The pi-shaped context hooks receive. */
export function hookContext(env: RunEnvironment): AgentContext {
  const loop = env.readLoop();
  return { systemPrompt: loop.systemPrompt, messages: loop.messages, ...(env.tools ? { tools: env.tools } : {}) };
}

/** The assistant message whose calls are being run. */
export function currentAssistant(env: RunEnvironment): AssistantMessage {
  return env.readLoop().assistant as AssistantMessage;
}
