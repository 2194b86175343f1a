/**
 * One Agent test suite, run against pi-agent-core 0.73's `Agent` (from
 * bench/node_modules, when installed) and against loopchart's: the bodies are
 * the same; only where `Agent` comes from differs.
 *
 * The cases in the first block are pi's own, adapted from pi's
 * packages/agent/test/agent.test.ts (github.com/earendil-works/pi, the pi 1.x
 * file; the cases kept are those whose behaviour pi 0.73 already had; the 1.x-only
 * ones — late tool updates ignored, reset() refused mid-run, the full protocol tail
 * on a thrown failure — are in test/agent/agent.test.ts). The
 * adaptations: fixed sleeps were replaced by deferreds the test waits on, the
 * abort-polling mock by one that listens to the signal, and `any` casts by
 * types. The second block is written against pi 0.73's published Agent
 * (dist/agent.js): queue modes, abort, prompt shapes, listener order.
 */
import { existsSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { type AssistantMessage, type AssistantMessageEvent, EventStream, getModel } from "@mariozechner/pi-ai";
import { Type } from "typebox";
import {
  Agent as LoopchartAgent,
  type AgentMessage,
  type AgentTool,
  type Context,
  type ImageContent,
  type SimpleStreamOptions,
  type StreamFn,
} from "../../src/index.js";

const piAgentCore = new URL("../../bench/node_modules/@mariozechner/pi-agent-core/dist/index.js", import.meta.url);
const implementations: [string, typeof LoopchartAgent][] = [["loopchart", LoopchartAgent]];
if (existsSync(piAgentCore)) {
  const pi = (await import(piAgentCore.href)) as { Agent: unknown };
  implementations.push(["pi-agent-core 0.73", pi.Agent as typeof LoopchartAgent]);
} else {
  describe("pi-agent-core 0.73", () => {
    it.skip("(skipped: bench/node_modules is absent; run `npm --prefix bench ci`)", () => {});
  });
}

// Mock stream that mimics AssistantMessageEventStream
class MockAssistantStream extends EventStream<AssistantMessageEvent, AssistantMessage> {
  constructor() {
    super(
      (event) => event.type === "done" || event.type === "error",
      (event) => {
        if (event.type === "done") return event.message;
        if (event.type === "error") return event.error;
        throw new Error("Unexpected event type");
      },
    );
  }
}

function createAssistantMessage(text: string, stopReason: AssistantMessage["stopReason"] = "stop"): AssistantMessage {
  return {
    role: "assistant",
    content: [{ type: "text", text }],
    api: "openai-responses",
    provider: "openai",
    model: "mock",
    usage: {
      input: 0,
      output: 0,
      cacheRead: 0,
      cacheWrite: 0,
      totalTokens: 0,
      cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0 },
    },
    stopReason,
    timestamp: Date.now(),
  };
}

type ToolCallContent = Extract<AssistantMessage["content"][number], { type: "toolCall" }>;

function createAssistantToolUseMessage(content: ToolCallContent[]): AssistantMessage {
  return { ...createAssistantMessage(""), content, stopReason: "toolUse" };
}

function createDeferred(): { promise: Promise<void>; resolve: () => void } {
  let resolve = () => {};
  const promise = new Promise<void>((resolvePromise) => {
    resolve = resolvePromise;
  });
  return { promise, resolve };
}

/** Answers with `message` on a microtask. */
function answer(message: AssistantMessage): MockAssistantStream {
  const stream = new MockAssistantStream();
  queueMicrotask(() => stream.push({ type: "done", reason: message.stopReason === "toolUse" ? "toolUse" : "stop", message }));
  return stream;
}

/** Starts a response and holds it until the request's signal aborts; then ends it `aborted`. `started` resolves on `start`. */
function hangUntilAborted(options: SimpleStreamOptions | undefined, started?: () => void): MockAssistantStream {
  const stream = new MockAssistantStream();
  queueMicrotask(() => {
    stream.push({ type: "start", partial: createAssistantMessage("") });
    started?.();
    const end = () => stream.push({ type: "error", reason: "aborted", error: { ...createAssistantMessage("Aborted", "aborted"), errorMessage: "Request was aborted" } });
    if (options?.signal?.aborted) end();
    else options?.signal?.addEventListener("abort", end, { once: true });
  });
  return stream;
}

/** A stream function answering from `replies` in order, recording each request's context. */
function scripted(replies: ((request: number) => AssistantMessage)[]): StreamFn & { contexts: Context[] } {
  const contexts: Context[] = [];
  const fn: StreamFn = (_model, context) => {
    contexts.push({ ...context, messages: [...context.messages] });
    const reply = replies[contexts.length - 1] ?? (() => createAssistantMessage("(script exhausted)"));
    return answer(reply(contexts.length));
  };
  return Object.assign(fn, { contexts });
}

const unusedStreamFunction: StreamFn = () => {
  throw new Error("Unexpected stream call");
};

const userMessage = (text: string): AgentMessage => ({ role: "user", content: [{ type: "text", text }], timestamp: Date.now() });

/** The texts of the user messages a request carried. */
function userTexts(context: Context): string[] {
  return context.messages.flatMap((message) => {
    if (message.role !== "user") return [];
    if (typeof message.content === "string") return [message.content];
    return message.content.flatMap((part) => (part.type === "text" ? [part.text] : []));
  });
}

const emptySchema = Type.Object({});

describe.each(implementations)("Agent (%s)", (_implementation, Agent) => {
  describe("pi's Agent tests", () => {
    it("should create an agent instance with default state", () => {
      const agent = new Agent();

      expect(agent.state).toBeDefined();
      expect(agent.state.systemPrompt).toBe("");
      expect(agent.state.model).toBeDefined();
      expect(agent.state.thinkingLevel).toBe("off");
      expect(agent.state.tools).toEqual([]);
      expect(agent.state.messages).toEqual([]);
      expect(agent.state.isStreaming).toBe(false);
      expect(agent.state.streamingMessage).toBe(undefined);
      expect(agent.state.pendingToolCalls).toEqual(new Set());
      expect(agent.state.errorMessage).toBeUndefined();
    });

    it("should create an agent instance with custom initial state", () => {
      const customModel = getModel("openai", "gpt-4o-mini");
      const agent = new Agent({
        streamFn: unusedStreamFunction,
        initialState: {
          systemPrompt: "You are a helpful assistant.",
          model: customModel,
          thinkingLevel: "low",
        },
      });

      expect(agent.state.systemPrompt).toBe("You are a helpful assistant.");
      expect(agent.state.model).toBe(customModel);
      expect(agent.state.thinkingLevel).toBe("low");
    });

    it("should subscribe to events", () => {
      const agent = new Agent({ streamFn: unusedStreamFunction });

      let eventCount = 0;
      const unsubscribe = agent.subscribe(() => {
        eventCount++;
      });

      // No initial event on subscribe
      expect(eventCount).toBe(0);

      // State mutators don't emit events
      agent.state.systemPrompt = "Test prompt";
      expect(eventCount).toBe(0);
      expect(agent.state.systemPrompt).toBe("Test prompt");

      // Unsubscribe should work
      unsubscribe();
      agent.state.systemPrompt = "Another prompt";
      expect(eventCount).toBe(0);
    });

    it("should await async subscribers before prompt resolves", async () => {
      const barrier = createDeferred();
      const reachedEnd = createDeferred();
      const agent = new Agent({ streamFn: () => answer(createAssistantMessage("ok")) });

      let listenerFinished = false;
      agent.subscribe(async (event) => {
        if (event.type === "agent_end") {
          reachedEnd.resolve();
          await barrier.promise;
          listenerFinished = true;
        }
      });

      let promptResolved = false;
      const promptPromise = agent.prompt("hello").then(() => {
        promptResolved = true;
      });

      await reachedEnd.promise;
      expect(promptResolved).toBe(false);
      expect(listenerFinished).toBe(false);
      expect(agent.state.isStreaming).toBe(true);

      barrier.resolve();
      await promptPromise;

      expect(listenerFinished).toBe(true);
      expect(promptResolved).toBe(true);
      expect(agent.state.isStreaming).toBe(false);
    });

    it("waitForIdle should wait for async subscribers", async () => {
      const barrier = createDeferred();
      const reached = createDeferred();
      const agent = new Agent({ streamFn: () => answer(createAssistantMessage("ok")) });

      agent.subscribe(async (event) => {
        if (event.type === "message_end" && event.message.role === "assistant") {
          reached.resolve();
          await barrier.promise;
        }
      });

      const promptPromise = agent.prompt("hello");
      let idleResolved = false;
      const idlePromise = agent.waitForIdle().then(() => {
        idleResolved = true;
      });

      await reached.promise;
      expect(idleResolved).toBe(false);
      expect(agent.state.isStreaming).toBe(true);

      barrier.resolve();
      await Promise.all([promptPromise, idlePromise]);

      expect(idleResolved).toBe(true);
      expect(agent.state.isStreaming).toBe(false);
    });

    it("should pass the active abort signal to subscribers", async () => {
      let receivedSignal: AbortSignal | undefined;
      const started = createDeferred();
      const agent = new Agent({ streamFn: (_model, _context, options) => hangUntilAborted(options, started.resolve) });

      agent.subscribe((event, signal) => {
        if (event.type === "agent_start") receivedSignal = signal;
      });

      const promptPromise = agent.prompt("hello");
      await started.promise;

      expect(receivedSignal).toBeDefined();
      expect(receivedSignal?.aborted).toBe(false);

      agent.abort();
      await promptPromise;

      expect(receivedSignal?.aborted).toBe(true);
    });

    it("should update state with mutators", () => {
      const agent = new Agent({ streamFn: unusedStreamFunction });

      agent.state.systemPrompt = "Custom prompt";
      expect(agent.state.systemPrompt).toBe("Custom prompt");

      const newModel = getModel("google", "gemini-2.5-flash");
      agent.state.model = newModel;
      expect(agent.state.model).toBe(newModel);

      agent.state.thinkingLevel = "high";
      expect(agent.state.thinkingLevel).toBe("high");

      const tools: AgentTool[] = [
        { name: "test", label: "Test", description: "test tool", parameters: emptySchema, execute: async () => ({ content: [], details: {} }) },
      ];
      agent.state.tools = tools;
      expect(agent.state.tools).toEqual(tools);
      expect(agent.state.tools).not.toBe(tools); // Should be a copy

      const messages = [{ role: "user" as const, content: "Hello", timestamp: Date.now() }];
      agent.state.messages = messages;
      expect(agent.state.messages).toEqual(messages);
      expect(agent.state.messages).not.toBe(messages); // Should be a copy

      const newMessage = createAssistantMessage("Hi");
      agent.state.messages.push(newMessage);
      expect(agent.state.messages).toHaveLength(2);
      expect(agent.state.messages[1]).toBe(newMessage);

      agent.state.messages = [];
      expect(agent.state.messages).toEqual([]);
    });

    it("should support steering message queue", () => {
      const agent = new Agent({ streamFn: unusedStreamFunction });
      const message = { role: "user" as const, content: "Steering message", timestamp: Date.now() };
      agent.steer(message);
      expect(agent.state.messages).not.toContainEqual(message);
    });

    it("should support follow-up message queue", () => {
      const agent = new Agent({ streamFn: unusedStreamFunction });
      const message = { role: "user" as const, content: "Follow-up message", timestamp: Date.now() };
      agent.followUp(message);
      expect(agent.state.messages).not.toContainEqual(message);
    });

    it("should handle abort controller", () => {
      const agent = new Agent({ streamFn: unusedStreamFunction });
      expect(() => agent.abort()).not.toThrow();
    });

    it("should throw when prompt() called while streaming", async () => {
      const started = createDeferred();
      const agent = new Agent({ streamFn: (_model, _context, options) => hangUntilAborted(options, started.resolve) });

      const firstPrompt = agent.prompt("First message");
      await started.promise;
      expect(agent.state.isStreaming).toBe(true);

      await expect(agent.prompt("Second message")).rejects.toThrow(
        "Agent is already processing a prompt. Use steer() or followUp() to queue messages, or wait for completion.",
      );

      agent.abort();
      await firstPrompt;
    });

    it("should throw when continue() called while streaming", async () => {
      const started = createDeferred();
      const agent = new Agent({ streamFn: (_model, _context, options) => hangUntilAborted(options, started.resolve) });

      const firstPrompt = agent.prompt("First message");
      await started.promise;
      expect(agent.state.isStreaming).toBe(true);

      await expect(agent.continue()).rejects.toThrow("Agent is already processing. Wait for completion before continuing.");

      agent.abort();
      await firstPrompt;
    });

    it("continue() should process queued follow-up messages after an assistant turn", async () => {
      const agent = new Agent({ streamFn: () => answer(createAssistantMessage("Processed")) });

      agent.state.messages = [userMessage("Initial"), createAssistantMessage("Initial response")];
      agent.followUp(userMessage("Queued follow-up"));

      await expect(agent.continue()).resolves.toBeUndefined();

      const hasQueuedFollowUp = agent.state.messages.some((message) => {
        if (message.role !== "user") return false;
        if (typeof message.content === "string") return message.content === "Queued follow-up";
        return message.content.some((part) => part.type === "text" && part.text === "Queued follow-up");
      });
      expect(hasQueuedFollowUp).toBe(true);
      expect(agent.state.messages[agent.state.messages.length - 1].role).toBe("assistant");
    });

    it("continue() should keep one-at-a-time steering semantics from assistant tail", async () => {
      let responseCount = 0;
      const agent = new Agent({
        streamFn: () => {
          responseCount++;
          return answer(createAssistantMessage(`Processed ${responseCount}`));
        },
      });

      agent.state.messages = [userMessage("Initial"), createAssistantMessage("Initial response")];
      agent.steer(userMessage("Steering 1"));
      agent.steer(userMessage("Steering 2"));

      await expect(agent.continue()).resolves.toBeUndefined();

      const recentMessages = agent.state.messages.slice(-4);
      expect(recentMessages.map((m) => m.role)).toEqual(["user", "assistant", "user", "assistant"]);
      expect(responseCount).toBe(2);
    });

    it("forwards sessionId to streamFn options", async () => {
      let receivedSessionId: string | undefined;
      const agent = new Agent({
        sessionId: "session-abc",
        streamFn: (_model, _context, options) => {
          receivedSessionId = options?.sessionId;
          return answer(createAssistantMessage("ok"));
        },
      });

      await agent.prompt("hello");
      expect(receivedSessionId).toBe("session-abc");

      agent.sessionId = "session-def";
      expect(agent.sessionId).toBe("session-def");

      await agent.prompt("hello again");
      expect(receivedSessionId).toBe("session-def");
    });
  });

  describe("queue modes, abort, prompt shapes (written against pi 0.73's Agent)", () => {
    /** A tool that lets the test queue messages while it runs. */
    function pausingTool(onRun: () => void): AgentTool<typeof emptySchema> {
      return {
        name: "pause",
        label: "Pause",
        description: "Runs the test's callback",
        parameters: emptySchema,
        async execute() {
          onRun();
          return { content: [{ type: "text", text: "paused" }], details: {} };
        },
      };
    }
    const callPause = () => createAssistantToolUseMessage([{ type: "toolCall", id: "p1", name: "pause", arguments: {} }]);

    it("injects steering one message per turn by default, after the tool calls of the turn", async () => {
      const agent = new Agent({ streamFn: unusedStreamFunction });
      const streamFn = scripted([callPause, () => createAssistantMessage("a"), () => createAssistantMessage("b")]);
      agent.streamFn = streamFn;
      agent.state.tools = [
        pausingTool(() => {
          agent.steer(userMessage("steer 1"));
          agent.steer(userMessage("steer 2"));
        }),
      ];

      await agent.prompt("go");

      expect(agent.steeringMode).toBe("one-at-a-time");
      expect(streamFn.contexts.map(userTexts)).toEqual([["go"], ["go", "steer 1"], ["go", "steer 1", "steer 2"]]);
      expect(agent.state.messages.map((m) => m.role)).toEqual(["user", "assistant", "toolResult", "user", "assistant", "user", "assistant"]);
      expect(agent.hasQueuedMessages()).toBe(false);
    });

    it('injects every queued steering message at once in "all" mode', async () => {
      const streamFn = scripted([callPause, () => createAssistantMessage("a")]);
      const agent = new Agent({ streamFn, steeringMode: "all" });
      agent.state.tools = [
        pausingTool(() => {
          agent.steer(userMessage("steer 1"));
          agent.steer(userMessage("steer 2"));
        }),
      ];

      await agent.prompt("go");

      expect(streamFn.contexts.map(userTexts)).toEqual([["go"], ["go", "steer 1", "steer 2"]]);
    });

    it("runs follow-ups only when the agent would stop, one per turn by default", async () => {
      const streamFn = scripted([() => createAssistantMessage("1"), () => createAssistantMessage("2"), () => createAssistantMessage("3")]);
      const agent = new Agent({ streamFn });
      agent.followUp(userMessage("later 1"));
      agent.followUp(userMessage("later 2"));

      await agent.prompt("now");

      expect(streamFn.contexts.map(userTexts)).toEqual([["now"], ["now", "later 1"], ["now", "later 1", "later 2"]]);
      expect(agent.state.messages.map((m) => m.role)).toEqual(["user", "assistant", "user", "assistant", "user", "assistant"]);
    });

    it('runs every queued follow-up in one turn in "all" mode, and the mode can change between runs', async () => {
      const streamFn = scripted([() => createAssistantMessage("1"), () => createAssistantMessage("2")]);
      const agent = new Agent({ streamFn });
      agent.followUpMode = "all";
      expect(agent.followUpMode).toBe("all");
      agent.followUp(userMessage("later 1"));
      agent.followUp(userMessage("later 2"));

      await agent.prompt("now");

      expect(streamFn.contexts.map(userTexts)).toEqual([["now"], ["now", "later 1", "later 2"]]);
    });

    it("takes a steering message queued before the prompt into the first request", async () => {
      const streamFn = scripted([() => createAssistantMessage("1")]);
      const agent = new Agent({ streamFn });
      agent.steer(userMessage("early"));

      await agent.prompt("now");

      expect(streamFn.contexts.map(userTexts)).toEqual([["now", "early"]]);
    });

    it("clearAllQueues drops queued messages so no further turn runs", async () => {
      const streamFn = scripted([() => createAssistantMessage("1")]);
      const agent = new Agent({ streamFn });
      agent.steer(userMessage("s"));
      agent.followUp(userMessage("f"));
      expect(agent.hasQueuedMessages()).toBe(true);
      agent.clearSteeringQueue();
      expect(agent.hasQueuedMessages()).toBe(true);
      agent.clearAllQueues();
      expect(agent.hasQueuedMessages()).toBe(false);

      await agent.prompt("now");

      expect(streamFn.contexts).toHaveLength(1);
    });

    it("abort() during a response ends the run with an aborted assistant message and errorMessage", async () => {
      const started = createDeferred();
      const agent = new Agent({ streamFn: (_model, _context, options) => hangUntilAborted(options, started.resolve) });

      const run = agent.prompt("hello");
      await started.promise;
      expect(agent.signal?.aborted).toBe(false);
      agent.abort();
      await run;

      const last = agent.state.messages[agent.state.messages.length - 1];
      expect(last.role).toBe("assistant");
      expect((last as AssistantMessage).stopReason).toBe("aborted");
      expect(agent.state.errorMessage).toBeTruthy();
      expect(agent.state.isStreaming).toBe(false);
      expect(agent.signal).toBeUndefined();
    });

    it("a new run clears the previous run's errorMessage", async () => {
      let request = 0;
      const agent = new Agent({
        streamFn: () => {
          request++;
          return answer(request === 1 ? { ...createAssistantMessage("", "error"), errorMessage: "boom" } : createAssistantMessage("fine"));
        },
      });

      await agent.prompt("first");
      expect(agent.state.errorMessage).toBe("boom");
      await agent.prompt("second");
      expect(agent.state.errorMessage).toBeUndefined();
    });

    it("prompt(text, images) sends one user message with the text, then the images", async () => {
      const streamFn = scripted([() => createAssistantMessage("seen")]);
      const agent = new Agent({ streamFn });
      const image: ImageContent = { type: "image", data: "aGk=", mimeType: "image/png" };

      await agent.prompt("look", [image]);

      const first = agent.state.messages[0];
      expect(first.role).toBe("user");
      expect(first.role === "user" ? first.content : undefined).toEqual([{ type: "text", text: "look" }, image]);
      expect(streamFn.contexts[0].messages[0]).toEqual(first);
    });

    it("prompt(messages) starts the run with every message given, in order", async () => {
      const streamFn = scripted([() => createAssistantMessage("ok")]);
      const agent = new Agent({ streamFn });

      await agent.prompt([userMessage("one"), userMessage("two")]);

      expect(agent.state.messages.map((m) => m.role)).toEqual(["user", "user", "assistant"]);
      expect(userTexts(streamFn.contexts[0])).toEqual(["one", "two"]);
    });

    it("continue() retries from a transcript that ends with a user message, adding no message", async () => {
      const streamFn = scripted([() => createAssistantMessage("retried")]);
      const agent = new Agent({ streamFn, initialState: { messages: [userMessage("question")] } });

      await agent.continue();

      expect(agent.state.messages.map((m) => m.role)).toEqual(["user", "assistant"]);
      expect(userTexts(streamFn.contexts[0])).toEqual(["question"]);
    });

    it("continue() rejects with nothing to continue from", async () => {
      const agent = new Agent({ streamFn: unusedStreamFunction });
      await expect(agent.continue()).rejects.toThrow("No messages to continue from");
      agent.state.messages = [userMessage("q"), createAssistantMessage("a")];
      await expect(agent.continue()).rejects.toThrow("Cannot continue from message role: assistant");
    });

    it("calls listeners in subscription order, each awaited before the next", async () => {
      const order: string[] = [];
      const agent = new Agent({ streamFn: () => answer(createAssistantMessage("ok")) });
      agent.subscribe(async (event) => {
        await Promise.resolve();
        await Promise.resolve();
        order.push(`first ${event.type}`);
      });
      agent.subscribe((event) => {
        order.push(`second ${event.type}`);
      });

      await agent.prompt("hi");

      const types = ["agent_start", "turn_start", "message_start", "message_end", "message_start", "message_end", "turn_end", "agent_end"];
      expect(order).toEqual(types.flatMap((type) => [`first ${type}`, `second ${type}`]));
    });

    it("shows a listener the state as of its event: the transcript, the streamed message, the running calls", async () => {
      const seen: string[] = [];
      const tool = pausingTool(() => {});
      const streamFn = scripted([callPause, () => createAssistantMessage("done")]);
      const agent = new Agent({ streamFn, initialState: { tools: [tool] } });
      agent.subscribe((event) => {
        const { messages, streamingMessage, pendingToolCalls } = agent.state;
        if (event.type === "message_end") seen.push(`end ${event.message.role} last=${messages[messages.length - 1] === event.message}`);
        if (event.type === "message_start") seen.push(`start streaming=${streamingMessage === event.message}`);
        if (event.type === "tool_execution_start") seen.push(`tool pending=${[...pendingToolCalls].join(",")}`);
        if (event.type === "tool_execution_end") seen.push(`tool done pending=${pendingToolCalls.size}`);
      });

      await agent.prompt("go");

      expect(seen).toEqual([
        "start streaming=true",
        "end user last=true",
        "start streaming=true",
        "end assistant last=true",
        "tool pending=p1",
        "tool done pending=0",
        "start streaming=true",
        "end toolResult last=true",
        "start streaming=true",
        "end assistant last=true",
      ]);
      expect(agent.state.pendingToolCalls.size).toBe(0);
    });

    it("reset() clears the transcript, errorMessage and both queues, keeping prompt, model and tools", async () => {
      const agent = new Agent({
        streamFn: () => answer({ ...createAssistantMessage("", "error"), errorMessage: "bad" }),
        initialState: { systemPrompt: "sys" },
      });
      await agent.prompt("hi");
      agent.steer(userMessage("s"));
      agent.followUp(userMessage("f"));

      agent.reset();

      expect(agent.state.messages).toEqual([]);
      expect(agent.state.errorMessage).toBeUndefined();
      expect(agent.hasQueuedMessages()).toBe(false);
      expect(agent.state.systemPrompt).toBe("sys");
    });

    it("forwards the thinking level as `reasoning`, none when off", async () => {
      const reasoning: (string | undefined)[] = [];
      const agent = new Agent({
        streamFn: (_model, _context, options) => {
          reasoning.push(options?.reasoning);
          return answer(createAssistantMessage("ok"));
        },
      });
      await agent.prompt("a");
      agent.state.thinkingLevel = "high";
      await agent.prompt("b");
      expect(reasoning).toEqual([undefined, "high"]);
    });
  });

  describe("tool calls through the Agent (written against pi 0.73's dist/agent.js)", () => {
    const textSchema = Type.Object({ text: Type.String() });
    /** A tool that waits for `gate` when its text is "slow", and records starts and ends. */
    function recordingTool(log: string[], gate?: Promise<void>): AgentTool<typeof textSchema> {
      return {
        name: "echo",
        label: "Echo",
        description: "Echoes",
        parameters: textSchema,
        async execute(id, args) {
          log.push(`start ${id}`);
          if (args.text === "slow") await gate;
          if (args.text === "boom") throw new Error("echo failed");
          log.push(`end ${id}`);
          return { content: [{ type: "text", text: `echo ${args.text}` }], details: {} };
        },
      };
    }
    const echoCall = (id: string, text: string): ToolCallContent => ({ type: "toolCall", id, name: "echo", arguments: { text } });
    const resultsOf = (messages: AgentMessage[]) =>
      messages.flatMap((message) =>
        message.role === "toolResult"
          ? [[message.toolCallId, message.isError, message.content.map((part) => (part.type === "text" ? part.text : "")).join("")]]
          : [],
      );

    it("runs a parallel batch concurrently, ends calls in completion order, and appends results in source order", async () => {
      const log: string[] = [];
      const gate = createDeferred();
      const ends: string[] = [];
      const streamFn = scripted([() => createAssistantToolUseMessage([echoCall("a", "slow"), echoCall("b", "fast")]), () => createAssistantMessage("done")]);
      const agent = new Agent({ streamFn, initialState: { tools: [recordingTool(log, gate.promise)] } });
      agent.subscribe((event) => {
        if (event.type === "tool_execution_end") {
          ends.push(event.toolCallId);
          if (event.toolCallId === "b") gate.resolve();
        }
      });
      await agent.prompt("go");
      expect(log).toEqual(["start a", "start b", "end b", "end a"]);
      expect(ends).toEqual(["b", "a"]);
      expect(resultsOf(agent.state.messages)).toEqual([
        ["a", false, "echo slow"],
        ["b", false, "echo fast"],
      ]);
      expect(agent.state.pendingToolCalls.size).toBe(0);
      // The second request carries both results.
      expect(streamFn.contexts[1]?.messages.map((message) => message.role)).toEqual(["user", "assistant", "toolResult", "toolResult"]);
    });

    it('runs one call at a time with toolExecution "sequential"', async () => {
      const log: string[] = [];
      const streamFn = scripted([() => createAssistantToolUseMessage([echoCall("a", "one"), echoCall("b", "two")]), () => createAssistantMessage("done")]);
      const agent = new Agent({ streamFn, toolExecution: "sequential", initialState: { tools: [recordingTool(log)] } });
      await agent.prompt("go");
      expect(log).toEqual(["start a", "end a", "start b", "end b"]);
    });

    it("turns a throwing tool into an error result the model reads, and the run goes on", async () => {
      const streamFn = scripted([() => createAssistantToolUseMessage([echoCall("a", "boom")]), () => createAssistantMessage("sorry")]);
      const agent = new Agent({ streamFn, initialState: { tools: [recordingTool([])] } });
      await agent.prompt("go");
      expect(resultsOf(agent.state.messages)).toEqual([["a", true, "echo failed"]]);
      expect(agent.state.errorMessage).toBeUndefined();
      expect(streamFn.contexts).toHaveLength(2);
    });

    it("lets beforeToolCall block a call and afterToolCall override a result", async () => {
      const log: string[] = [];
      const streamFn = scripted([() => createAssistantToolUseMessage([echoCall("a", "keep"), echoCall("b", "block me")]), () => createAssistantMessage("done")]);
      const agent = new Agent({
        streamFn,
        initialState: { tools: [recordingTool(log)] },
        beforeToolCall: async ({ args }) => ((args as { text: string }).text === "block me" ? { block: true, reason: "not allowed" } : undefined),
        afterToolCall: async ({ result }) => ({ content: [...result.content, { type: "text", text: " (checked)" }] }),
      });
      await agent.prompt("go");
      expect(log).toEqual(["start a", "end a"]);
      expect(resultsOf(agent.state.messages)).toEqual([
        ["a", false, "echo keep (checked)"],
        ["b", true, "not allowed"],
      ]);
    });

    it("continue() from a transcript ending with a tool result asks the model again", async () => {
      const streamFn = scripted([() => createAssistantMessage("after the tool")]);
      const agent = new Agent({ streamFn });
      agent.state.messages = [
        userMessage("go"),
        createAssistantToolUseMessage([echoCall("a", "x")]),
        { role: "toolResult", toolCallId: "a", toolName: "echo", content: [{ type: "text", text: "echo x" }], isError: false, timestamp: Date.now() },
      ];
      await agent.continue();
      expect(streamFn.contexts[0]?.messages.map((message) => message.role)).toEqual(["user", "assistant", "toolResult"]);
      expect(agent.state.messages.map((message) => message.role)).toEqual(["user", "assistant", "toolResult", "assistant"]);
    });
  });
});
