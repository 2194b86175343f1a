/**
 * A run of the loop as a DBOS workflow. The statechart drives the run exactly as in
 * `agentLoop`; each model request and each tool call is a DBOS step, so recovery replays the
 * workflow and finished steps return their checkpointed results.
 */
import { DBOS, type WorkflowHandle } from "@dbos-inc/dbos-sdk";
import type { ApprovalDecisionEvent } from "../../machines/events.js";
import { createAgentLoopActor, type AgentLoopActor } from "../agent-loop-actor.js";
import type { AgentEvent, AgentLoopConfig, AgentMessage, AgentTool, StreamFn } from "../types.js";
import type { DbosApprovalAnswer } from "./approval.js";
import { createApprovalWaits } from "./approval-waits.js";
import { CallSequencer } from "./call-sequencer.js";
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

/** Feeds the sequencer the chart's decisions about each call, in event order. */
function observe(sequencer: CallSequencer, event: AgentEvent): void {
  if (event.type === "message_end" && (event.message as { role?: string }).role === "assistant") {
    const content = (event.message as { content?: Array<{ type: string; id?: string }> }).content ?? [];
    sequencer.beginBatch(content.filter((block) => block.type === "toolCall").map((block) => block.id as string));
  } else if (event.type === "tool_execution_start") sequencer.started(event.toolCallId);
  else if (event.type === "tool_execution_end") sequencer.settled(event.toolCallId);
  else if (event.type === "approval_requested") sequencer.approvalRequested(event.toolCallId);
}

/** The loop event that carries `answer` to the call `toolCallId`. */
function decisionEvent(toolCallId: string, answer: DbosApprovalAnswer): ApprovalDecisionEvent {
  if (answer.decision === "approve") return { type: "tool.approve", toolCallId, ...(answer.always === true ? { always: true } : {}) };
  return { type: "tool.reject", toolCallId, ...(answer.reason === undefined ? {} : { reason: answer.reason }) };
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
    const toolNames = new Map<string, string>();
    // Answers come only once the loop runs, so they find the actor created below.
    const target: { actor?: AgentLoopActor } = {};
    const waits = createApprovalWaits(channel, (toolCallId, answer) => target.actor?.send(decisionEvent(toolCallId, answer)));
    const sequencer = new CallSequencer({ awaitApproval: (toolCallId) => waits.start({ toolCallId, toolName: toolNames.get(toolCallId) ?? "" }) });
    const tools = durableTools(setup.tools ?? [], channel, sequencer, options.safeRetry);
    const streamFn = setup.streamFn ? durableStreamFn(setup.streamFn, channel) : undefined;
    const context = { systemPrompt: input.systemPrompt ?? "", messages: input.messages ?? [], tools };
    const onEvent = (event: AgentEvent): void => {
      channel.push(event);
      if (event.type === "approval_requested") toolNames.set(event.toolCallId, event.toolName);
      observe(sequencer, event);
    };
    const loop = createAgentLoopActor({ prompts: promptMessages(input.prompt), context, config: setup.config, ...(streamFn ? { streamFn } : {}), onEvent });
    target.actor = loop;
    const output = await new Promise<{ messages: AgentMessage[] }>((resolve, reject) => {
      loop.subscribe({ complete: () => resolve(loop.getSnapshot().output as { messages: AgentMessage[] }), error: reject });
      loop.start();
    });
    await channel.close(() => waits.wakeUnanswered());
    await waits.finished();
    return { messages: output.messages };
  };
  const run = DBOS.registerWorkflow(body, { name });
  return {
    name,
    run,
    start: (input, params) => DBOS.startWorkflow(run, params)(input),
  };
}
