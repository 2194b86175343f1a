/**
 * A run of the loop as a DBOS workflow. The statechart drives the run exactly as in
 * `agentLoop`; each model request and each tool call is a DBOS step, so recovery replays the
 * workflow and finished steps return their checkpointed results.
 */
import { DBOS, type WorkflowHandle } from "@dbos-inc/dbos-sdk";
import { agentLoop } from "../agent-loop.js";
import type { AgentLoopConfig, AgentMessage, AgentTool, StreamFn } from "../types.js";
import { DEFAULT_LOOP_WORKFLOW_NAME } from "./constants.js";
import { durableStreamFn } from "./durable-stream.js";
import { durableTools, type SafeRetry } from "./durable-tools.js";
import { createEventChannel } from "./event-channel.js";

/** The workflow's input: JSON only, since DBOS stores it to replay the run. */
export interface DbosRunInput {
  /** The user prompt(s) the run starts with. */
  prompt: string | AgentMessage[];
  systemPrompt?: string;
  /** Earlier transcript, if the run continues a conversation. */
  messages?: AgentMessage[];
  /** Free-form data for `createRun` (which script, which workspace). */
  meta?: Record<string, string>;
}

/** The workflow's result: the messages the run added, as `agentLoop`'s `result()` gives them. */
export interface DbosRunOutput {
  messages: AgentMessage[];
}

/** What a run needs that cannot be stored: code. Built again in every execution (and recovery). */
export interface DbosRunSetup {
  config: AgentLoopConfig;
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- tools of any schema
  tools?: AgentTool<any, any>[];
  /** Default: the loop's default stream function. */
  streamFn?: StreamFn;
}

/** Options of {@link registerLoopWorkflow}. */
export interface DbosLoopOptions {
  /** Workflow name in the system database; default {@link DEFAULT_LOOP_WORKFLOW_NAME}. */
  name?: string;
  /**
   * Builds model, tools and config for one execution of a run. Must be deterministic in
   * `input` (recovery calls it again) and must not call DBOS.
   */
  createRun: (input: DbosRunInput) => DbosRunSetup | Promise<DbosRunSetup>;
  /** Write run events to the workflow's stream ({@link EVENTS_STREAM_KEY}); default true. */
  streamEvents?: boolean;
  /** Retry settings for `replay: "safe"` tools. */
  safeRetry?: SafeRetry;
}


/** How a run is started: `DBOS.startWorkflow`'s params (workflow id, queue). */
export type DbosStartParams = NonNullable<Parameters<typeof DBOS.startWorkflow>[1]>;

/** A registered loop workflow. */
export interface DbosLoop {
  readonly name: string;
  /** The registered workflow function (call inside or outside a workflow). */
  run(input: DbosRunInput): Promise<DbosRunOutput>;
  /** Starts a run in the background (on a queue when `params.queueName` is set). */
  start(input: DbosRunInput, params?: DbosStartParams): Promise<WorkflowHandle<DbosRunOutput>>;
}

function promptMessages(prompt: DbosRunInput["prompt"]): AgentMessage[] {
  if (typeof prompt !== "string") return prompt;
  return [{ role: "user", content: prompt, timestamp: 0 }];
}

/**
 * Registers the loop as a DBOS workflow. Call before `DBOS.launch()`, once per name per
 * process. Throws what `DBOS.registerWorkflow` throws (e.g. after launch).
 */
export function registerLoopWorkflow(options: DbosLoopOptions): DbosLoop {
  const name = options.name ?? DEFAULT_LOOP_WORKFLOW_NAME;
  const body = async (input: DbosRunInput): Promise<DbosRunOutput> => {
    const setup = await options.createRun(input);
    const channel = createEventChannel(options.streamEvents ?? true);
    const tools = durableTools(setup.tools ?? [], channel, options.safeRetry);
    const streamFn = setup.streamFn ? durableStreamFn(setup.streamFn, channel) : undefined;
    const context = { systemPrompt: input.systemPrompt ?? "", messages: input.messages ?? [], tools };
    const stream = agentLoop(promptMessages(input.prompt), context, setup.config, undefined, streamFn);
    for await (const event of stream) channel.push(event);
    const messages = await stream.result();
    await channel.close();
    return { messages };
  };
  const run = DBOS.registerWorkflow(body, { name });
  return {
    name,
    run,
    start: (input, params) => DBOS.startWorkflow(run, params)(input),
  };
}
