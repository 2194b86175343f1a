/**
 * The streaming floor: the structure floor (`floor-charts.ts`) plus the one thing
 * every drop-in for pi's `agentLoop` must also do — stream each response and
 * emit pi's whole event protocol to the caller — and nothing else. Per turn a
 * request actor consumes the stream function's events (`message_start`,
 * `message_update` per event, `message_end`) and a batch machine spawns one call
 * machine per call, which invokes its execute actor (the tool's `execute`) and
 * emits `tool_execution_start`/`_end`; the batch emits each result's
 * `message_start`/`message_end` in source order, the loop `turn_start`/`turn_end`,
 * `agent_start`/`agent_end`. Events leave the actors through XState's `emit`,
 * heard as loopchart hears them (`heardBy`). Context is immutable, the
 * transcript shared structure.
 *
 * A batch of more than `SLICE_SIZE` (32) calls is spawned in slices of the same
 * machine, as loopchart's is. What it leaves out is everything else loopchart
 * does: argument validation, hooks, policies, approval, abort, refusals, system
 * ids, the pass-through decision states and sequential batches. So it is a floor
 * for any engine with loopchart's required structure and pi's event protocol:
 * such an engine costs at least this much.
 */
import { assign, createActor, emit, enqueueActions, fromCallback, fromPromise, sendParent, setup, type AnyActorRef } from "xstate";
import { EventStream } from "../src/event-stream.js";
import { heardBy } from "../src/heard-by.js";
import type { RunSystem } from "../src/run-environment.js";
import { appendMessages, transcriptMessages, transcriptOf, type Transcript } from "../machines/transcript.js";
import { settleCall, settleSlice, slotLayout, slotOutput, type SlotBatch } from "./floor-charts.js";
import type {
  AgentContext,
  AgentEvent,
  AgentLoopConfig,
  AgentMessage,
  AgentTool,
  AgentToolResult,
  AssistantMessage,
  Message,
  StreamFn,
  ToolCall,
  ToolResultMessage,
} from "../src/types.js";
import type { AgentLoopFn, Engine } from "./engines.js";

/** What the run's actors use and a snapshot would not hold; found by the run's actor system. */
interface FloorRun {
  config: AgentLoopConfig;
  streamFn: StreamFn;
  tools: AgentTool[];
  listener: (event: AgentEvent) => void;
}

const runs = new WeakMap<RunSystem, FloorRun>();
const runOf = (system: RunSystem): FloorRun => runs.get(system) as FloorRun;

type CallEvent = { type: "call.none" };
type BatchEvent = { type: "call.settled"; index: number; message: ToolResultMessage };
type LoopEvent = { type: "model.done"; message: AssistantMessage };

interface CallInput {
  toolCall: ToolCall;
  index: number;
}

const call = setup({
  types: { input: {} as CallInput, context: {} as CallInput & { result?: AgentToolResult<unknown> }, events: {} as CallEvent, emitted: {} as AgentEvent },
  actors: {
    execute: fromPromise<AgentToolResult<unknown>, ToolCall>(async ({ input, system, signal }) => {
      const tool = runOf(system).tools.find((candidate) => candidate.name === input.name) as AgentTool;
      return tool.execute(input.id, input.arguments as never, signal);
    }),
  },
}).createMachine({
  context: ({ input }) => input,
  initial: "executing",
  states: {
    executing: {
      entry: emit(({ context }) => ({ type: "tool_execution_start" as const, toolCallId: context.toolCall.id, toolName: context.toolCall.name, args: context.toolCall.arguments })),
      invoke: { src: "execute", input: ({ context }) => context.toolCall, onDone: { target: "done", actions: assign({ result: ({ event }) => event.output }) } },
    },
    done: {
      entry: [
        emit(({ context }) => ({
          type: "tool_execution_end" as const,
          toolCallId: context.toolCall.id,
          toolName: context.toolCall.name,
          result: context.result as AgentToolResult<unknown>,
          isError: false,
        })),
        sendParent(({ context }): BatchEvent => {
          const result = context.result as AgentToolResult<unknown>;
          const message: ToolResultMessage = {
            role: "toolResult",
            toolCallId: context.toolCall.id,
            toolName: context.toolCall.name,
            content: result.content,
            details: result.details,
            isError: false,
            timestamp: Date.now(),
          };
          return { type: "call.settled", index: context.index, message };
        }),
      ],
    },
  },
});

interface BatchInput {
  calls: ToolCall[];
  /** Source index of `calls[0]`: 0, or where a slice starts. */
  offset: number;
  /** The batch of a response (not a slice): it emits the result messages. */
  top: boolean;
}

type BatchContext = BatchInput & SlotBatch<ToolResultMessage>;

type BatchOutput = { offset: number; results: ToolResultMessage[] };

/** Stand-in for this machine as its own slices' logic, pointed at the machine below. */
const sliceStandIn = fromCallback<BatchEvent, BatchInput>(() => undefined);

const batchDefinition = setup({
  types: {
    input: {} as BatchInput,
    context: {} as BatchContext,
    events: {} as BatchEvent | { type: `xstate.done.actor.${string}`; output: BatchOutput },
    emitted: {} as AgentEvent,
    output: {} as BatchOutput,
  },
  actors: { call, slice: sliceStandIn },
}).createMachine({
  // Sliced as loopchart's batch is: no machine parents more than SLICE_SIZE actors.
  context: ({ input }) => ({ ...input, ...slotLayout<ToolResultMessage>(input.calls.length) }),
  initial: "running",
  states: {
    running: {
      entry: enqueueActions(({ context, enqueue }) => {
        for (let member = 0; member < context.members; member += 1) {
          if (context.sliceSize === 0) {
            const toolCall = context.calls[member] as ToolCall;
            enqueue.spawnChild("call", { id: `call@${context.offset + member}`, input: { toolCall, index: context.offset + member } });
          } else {
            const from = member * context.sliceSize;
            const calls = context.calls.slice(from, from + context.sliceSize);
            enqueue.spawnChild("slice", { id: `slice-${member}`, input: { calls, offset: context.offset + from, top: false } });
          }
        }
      }),
      on: {
        "call.settled": { actions: assign(({ context, event }) => settleCall(context, event.index, event.message)) },
        "xstate.done.actor.*": { actions: assign(({ context, event }) => settleSlice(context, event.output)) },
      },
      always: { guard: ({ context }) => context.settled === context.members, target: "done" },
    },
    done: {
      type: "final",
      entry: enqueueActions(({ context, enqueue }) => {
        if (!context.top) return;
        for (const slot of context.results) {
          for (const message of slot ?? []) {
            enqueue.emit({ type: "message_start", message });
            enqueue.emit({ type: "message_end", message });
          }
        }
      }),
    },
  },
  output: ({ context }) => slotOutput(context),
});

/** Streams one response: `message_start`, a `message_update` per event, `message_end`, then `model.done`. */
const request = fromCallback<LoopEvent, { systemPrompt: string; messages: Transcript }, AgentEvent>(({ input, system, sendBack, emit: emitEvent }) => {
  const run = runOf(system);
  let live = true;
  void (async () => {
    const llm = await run.config.convertToLlm(transcriptMessages(input.messages));
    const stream = await run.streamFn(run.config.model, { systemPrompt: input.systemPrompt, messages: llm as Message[], tools: run.tools }, {});
    let started = false;
    for await (const event of stream) {
      if (!live) return;
      if (event.type === "start") {
        started = true;
        emitEvent({ type: "message_start", message: { ...event.partial } });
      } else if (event.type !== "done" && event.type !== "error") {
        emitEvent({ type: "message_update", message: { ...event.partial }, assistantMessageEvent: event });
      }
    }
    const message = await stream.result();
    if (!live) return;
    if (!started) emitEvent({ type: "message_start", message });
    emitEvent({ type: "message_end", message });
    sendBack({ type: "model.done", message });
  })();
  return () => {
    live = false;
  };
});

const listenerOf = (system: RunSystem) => runs.get(system)?.listener;
const linkedBatch = batchDefinition.provide({ actors: { call: heardBy(call, listenerOf) } });
const heardBatch = heardBy(linkedBatch, listenerOf);
(linkedBatch.implementations.actors as Record<string, unknown>).slice = heardBatch;

interface LoopContext {
  systemPrompt: string;
  messages: Transcript;
  newMessages: Transcript;
  prompts: AgentMessage[];
  /** The response of the current turn, once it arrived. */
  assistant?: AssistantMessage;
}

const loop = setup({
  types: {
    input: {} as { systemPrompt: string; messages: AgentMessage[]; prompts: AgentMessage[] },
    context: {} as LoopContext,
    events: {} as LoopEvent,
    emitted: {} as AgentEvent,
  },
  actors: { request: heardBy(request, listenerOf), batch: heardBatch },
}).createMachine({
  context: ({ input }) => ({
    systemPrompt: input.systemPrompt,
    messages: transcriptOf([...input.messages, ...input.prompts]),
    newMessages: transcriptOf(input.prompts),
    prompts: input.prompts,
  }),
  entry: enqueueActions(({ context, enqueue }) => {
    enqueue.emit({ type: "agent_start" });
    enqueue.emit({ type: "turn_start" });
    for (const message of context.prompts) {
      enqueue.emit({ type: "message_start", message });
      enqueue.emit({ type: "message_end", message });
    }
  }),
  initial: "requesting",
  states: {
    requesting: {
      invoke: { src: "request", input: ({ context }) => ({ systemPrompt: context.systemPrompt, messages: context.messages }) },
      on: {
        "model.done": [
          {
            guard: ({ event }) => !event.message.content.some((block) => block.type === "toolCall"),
            target: "done",
            actions: [
              assign(({ context, event }) => ({ messages: appendMessages(context.messages, [event.message]), newMessages: appendMessages(context.newMessages, [event.message]) })),
              emit(({ event }) => ({ type: "turn_end" as const, message: event.message, toolResults: [] })),
            ],
          },
          {
            target: "toolBatch",
            actions: assign(({ context, event }) => ({
              messages: appendMessages(context.messages, [event.message]),
              newMessages: appendMessages(context.newMessages, [event.message]),
              assistant: event.message,
            })),
          },
        ],
      },
    },
    toolBatch: {
      invoke: {
        src: "batch",
        input: ({ context }) => ({
          calls: (context.assistant as AssistantMessage).content.filter((block): block is ToolCall => block.type === "toolCall"),
          offset: 0,
          top: true,
        }),
        onDone: {
          target: "requesting",
          actions: enqueueActions(({ context, enqueue, event }) => {
            const { results } = event.output as { results: ToolResultMessage[] };
            enqueue.assign({ messages: appendMessages(context.messages, results), newMessages: appendMessages(context.newMessages, results) });
            enqueue.emit({ type: "turn_end", message: context.assistant as AssistantMessage, toolResults: results });
            enqueue.emit({ type: "turn_start" });
          }),
        },
      },
    },
    done: {
      type: "final",
      entry: emit(({ context }) => ({ type: "agent_end" as const, messages: transcriptMessages(context.newMessages).slice() })),
    },
  },
});

/** The streaming floor behind `agentLoop`'s signature; the stream's `result()` is the new messages. */
export const streamingFloorLoop: AgentLoopFn = (prompts: AgentMessage[], context: AgentContext, config: AgentLoopConfig, _signal?: AbortSignal, streamFn?: StreamFn) => {
  const stream = new EventStream<AgentEvent, AgentMessage[]>(
    (event) => event.type === "agent_end",
    (event) => (event.type === "agent_end" ? event.messages : []),
  );
  const actor: AnyActorRef = createActor(loop, { input: { systemPrompt: context.systemPrompt, messages: context.messages, prompts } });
  runs.set(actor.system, { config, streamFn: streamFn as StreamFn, tools: context.tools ?? [], listener: (event) => stream.push(event) });
  actor.on("*", (event: AgentEvent) => stream.push(event));
  actor.start();
  return stream;
};

/** The streaming floor as an engine of the bench's harness (`measureRun`). */
export const streamingFloorEngine: Engine = { name: "streaming floor", agentLoop: streamingFloorLoop };

/**
 * The same function under the name the peers benchmark loads: point its
 * `LOOPCHART_PATH` at this file (run it with `--import tsx`) and its "loopchart"
 * row is the streaming floor, timed in that benchmark's own protocol.
 */
export { streamingFloorLoop as agentLoop };
