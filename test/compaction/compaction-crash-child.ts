/**
 * The child process of the compaction crash test: a durable agent with a small
 * window reads files until its context must be compacted. Told to hold, its
 * summarizer prints `HOLD summarizing` and never answers (the parent SIGKILLs it
 * there, in `requesting.compacting`); resumed, it compacts again and finishes.
 * Prints `RESULT <transcript JSON>` at the end.
 *
 * Usage: node --import tsx compaction-crash-child.ts '<json of CompactionChildOptions>'
 */
import { Type } from "typebox";
import { Agent } from "../../src/agent.js";
import { EventStream } from "../../src/event-stream.js";
import { openSessionStore } from "../../src/sessions/open-session-store.js";
import type { AgentTool, AssistantMessage, AssistantMessageEvent, Context, StreamFn } from "../../src/types.js";
import { usage } from "../helpers/mock-stream.js";
import { sizedModel } from "./sized-model.js";

export interface CompactionChildOptions {
  store: string;
  sessionId: string;
  resume: boolean;
  holdInSummary: boolean;
  /** After resuming, prompt the agent again with this. */
  promptAgain?: string;
}

export const WINDOW = 3000;
/** Files the agent reads before it answers. */
export const FILES = 8;

const options = JSON.parse(process.argv[2] ?? "{}") as CompactionChildOptions;

const read: AgentTool = {
  name: "read",
  label: "Read",
  description: "Reads a file",
  parameters: Type.Object({ path: Type.String() }),
  async execute(_id, args) {
    return { content: [{ type: "text", text: `${(args as { path: string }).path}: ${"x".repeat(1200)}` }], details: {} };
  },
};

/** Which file to read next, from the newest result (compaction may have summarized the older ones away). */
function nextFile(context: Context): number {
  for (let index = context.messages.length - 1; index >= 0; index--) {
    const message = context.messages[index];
    if (message?.role === "toolResult") return Number(/src\/f(\d+)\.ts/.exec(JSON.stringify(message.content))?.[1] ?? "0") + 1;
  }
  return 1;
}

const streamFn: StreamFn = (model, context) => {
  const file = nextFile(context);
  const content: AssistantMessage["content"] =
    file > FILES ? [{ type: "text", text: "All files read." }] : [{ type: "toolCall", id: `call_${file}`, name: "read", arguments: { path: `src/f${file}.ts` } }];
  const tokens = Math.ceil(JSON.stringify(context.messages).length / 4);
  const message: AssistantMessage = {
    role: "assistant",
    content,
    api: model.api,
    provider: model.provider,
    model: model.id,
    usage: { ...usage(), input: tokens },
    stopReason: file > FILES ? "stop" : "toolUse",
    timestamp: 0,
  };
  const stream = new EventStream<AssistantMessageEvent, AssistantMessage>(
    (event) => event.type === "done" || event.type === "error",
    (event) => (event.type === "done" ? event.message : event.type === "error" ? event.error : (undefined as never)),
  );
  setImmediate(() => {
    stream.push({ type: "start", partial: { ...message, content: [] } });
    stream.push({ type: "done", reason: message.stopReason as "stop" | "toolUse", message });
  });
  return stream;
};

const summarize = async (): Promise<string> => {
  if (options.holdInSummary) {
    process.stdout.write("HOLD summarizing\n");
    setInterval(() => {}, 60_000);
    return new Promise<never>(() => {});
  }
  return "## Goal\nread every file";
};

const store = await openSessionStore(options.store);
const agentOptions = { streamFn, compaction: { reserveTokens: 600, keepRecentTokens: 700, summarize } };
let agent: Agent;
if (options.resume) {
  agent = await Agent.resume(store, options.sessionId, { ...agentOptions, initialState: { tools: [read] } });
  await agent.waitForIdle();
  if (options.promptAgain !== undefined) await agent.prompt(options.promptAgain);
} else {
  agent = new Agent({ ...agentOptions, initialState: { systemPrompt: "read files", model: sizedModel(WINDOW), tools: [read] }, sessionId: options.sessionId, sessionStore: store });
  await agent.prompt("Read every file.");
}
await store.close();
process.stdout.write(`RESULT ${JSON.stringify(agent.state.messages)}\n`);
