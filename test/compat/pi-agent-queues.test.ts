/**
 * The shared Agent suite (see `pi-agent.test.ts`), written against pi 0.73's
 * published Agent (dist/agent.js): queue modes, abort, prompt shapes, listener order.
 */
import { describe, expect, it } from "vitest";
import { type AssistantMessage } from "@mariozechner/pi-ai";

import { type AgentTool, type ImageContent } from "../../src/index.js";
import { implementations, createAssistantMessage, createAssistantToolUseMessage, createDeferred, answer, hangUntilAborted, scripted, unusedStreamFunction, userMessage, userTexts, emptySchema } from "./pi-agent-support.js";

describe.each(implementations)("Agent (%s)", (_implementation, Agent) => {
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
});
