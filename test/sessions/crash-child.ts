/**
 * The child process of the crash tests: runs (or resumes) a durable session whose
 * script calls slow tools, and, when told to, holds at one point — mid-stream,
 * mid-tool, or between two results — printing `HOLD <what>` so the parent can
 * SIGKILL it there. Tools count their runs in files under `workDir`. At the end it
 * prints `RESULT <transcript JSON>`.
 *
 * Usage: node --import tsx crash-child.ts '<json of ChildOptions>'
 */
import { appendFileSync } from "node:fs";
import { join } from "node:path";
import { Type } from "typebox";
import { Agent } from "../../src/agent.js";
import { EventStream } from "../../src/event-stream.js";
import { openSessionStore } from "../../src/sessions/open-session-store.js";
import type { AgentTool, AssistantMessage, AssistantMessageEvent, StreamFn, ToolCall } from "../../src/types.js";
import { assistant, testModel, type MockResponse } from "../helpers/mock-stream.js";

/** What the parent asks the child to do. */
export interface ChildOptions {
  /** A `--store` spec: a directory, or `sqlite:<file>`. */
  store: string;
  sessionId: string;
  resume: boolean;
  workDir: string;
  scenario: "parallel" | "sequential";
  /** Where the first process holds (waits to be killed). */
  holdAt?: "stream" | "tool" | "between";
  /** Pause of each tool and between streamed blocks, in ms (so a kill at a random time lands anywhere in the run). */
  delayMs?: number;
}

const options = JSON.parse(process.argv[2] ?? "{}") as ChildOptions;
const hold = (what: string) => {
  process.stdout.write(`HOLD ${what}\n`);
  // Keep the process alive until the parent kills it (a bare pending promise would let Node exit).
  setInterval(() => {}, 60_000);
  return new Promise<never>(() => {});
};

const parameters = Type.Object({ item: Type.String() });
const countingTool = (name: string, replay: "never" | "safe"): AgentTool<typeof parameters> => ({
  name,
  label: name,
  description: `${name}s an item (replay: ${replay})`,
  parameters,
  replay,
  async execute(toolCallId, args) {
    appendFileSync(join(options.workDir, `${toolCallId}.count`), "x");
    if (options.delayMs) await new Promise((resolve) => setTimeout(resolve, options.delayMs));
    if (options.holdAt === "tool" && toolCallId !== "c1") await hold(`tool ${toolCallId}`);
    return { content: [{ type: "text", text: `${name} ${args.item}: ok` }], details: {} };
  },
});
// charge has side effects that must not repeat; lookup only reads.
const tools = [countingTool("charge", "never"), countingTool("lookup", "safe")];

const SCRIPTS: Record<ChildOptions["scenario"], MockResponse[]> = {
  parallel: [
    {
      text: "Charging and looking up.",
      calls: [
        { id: "c1", name: "charge", arguments: { item: "one" } },
        { id: "c2", name: "lookup", arguments: { item: "two" } },
        { id: "c3", name: "charge", arguments: { item: "three" } },
      ],
    },
    { text: "All done." },
  ],
  sequential: [
    {
      text: "One after the other.",
      calls: [
        { id: "c1", name: "charge", arguments: { item: "one" } },
        { id: "c2", name: "charge", arguments: { item: "two" } },
      ],
    },
    { text: "All done." },
  ],
};

/** Answers by the number of assistant messages so far, so a resumed run is asked what the first process was. */
const streamFn: StreamFn = (_model, context) => {
  const turn = context.messages.filter((message) => message.role === "assistant").length;
  const final = assistant(SCRIPTS[options.scenario][turn] ?? { text: "(script exhausted)" });
  const stream = new EventStream<AssistantMessageEvent, AssistantMessage>(
    (event) => event.type === "done" || event.type === "error",
    (event) => (event.type === "done" ? event.message : event.type === "error" ? event.error : (undefined as never)),
  );
  void (async () => {
    const partial: AssistantMessage = { ...final, content: [] };
    stream.push({ type: "start", partial: { ...partial } });
    for (const [index, block] of final.content.entries()) {
      await new Promise((resolve) => (options.delayMs ? setTimeout(resolve, options.delayMs) : setImmediate(resolve)));
      partial.content = final.content.slice(0, index + 1);
      if (block.type === "text") {
        stream.push({ type: "text_start", contentIndex: index, partial: { ...partial } });
        stream.push({ type: "text_delta", contentIndex: index, delta: block.text, partial: { ...partial } });
        if (options.holdAt === "stream" && turn === 0) await hold("stream");
        stream.push({ type: "text_end", contentIndex: index, content: block.text, partial: { ...partial } });
      } else if (block.type === "toolCall") {
        stream.push({ type: "toolcall_start", contentIndex: index, partial: { ...partial } });
        stream.push({ type: "toolcall_end", contentIndex: index, toolCall: block as ToolCall, partial: { ...partial } });
      }
    }
    stream.push({ type: "done", reason: final.stopReason as "stop" | "toolUse", message: final });
  })();
  return stream;
};

const store = await openSessionStore(options.store);
process.stdout.write("BOOTED\n");
const agentOptions = {
  streamFn,
  toolExecution: options.scenario === "sequential" ? ("sequential" as const) : ("parallel" as const),
  beforeToolCall: async ({ toolCall }: { toolCall: ToolCall }) => {
    if (options.holdAt === "between" && toolCall.id === "c2") await hold("between c2");
    return undefined;
  },
};
let agent: Agent;
if (options.resume) {
  agent = await Agent.resume(store, options.sessionId, { ...agentOptions, initialState: { tools } });
  await agent.waitForIdle();
} else {
  agent = new Agent({ ...agentOptions, initialState: { systemPrompt: "test", model: testModel, tools }, sessionId: options.sessionId, sessionStore: store });
  await agent.prompt("Charge one, look up two, charge three.");
}
await store.close();
process.stdout.write(`RESULT ${JSON.stringify(agent.state.messages)}\n`);
