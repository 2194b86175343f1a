/**
 * One Agent test suite, run against pi-agent-core 0.73's `Agent` (from
 * bench/node_modules, when installed) and against loopchart's: the bodies are
 * the same; only where `Agent` comes from differs.
 *
 * The three files of the suite: this one (pi's own cases), `pi-agent-queues.test.ts`
 * and `pi-agent-tools.test.ts`; their helpers are in `pi-agent-support.ts`.
 *
 * The cases in this file are pi's own, adapted from pi's
 * packages/agent/test/agent.test.ts (github.com/earendil-works/pi, the pi 1.x
 * file; the cases kept are those whose behaviour pi 0.73 already had; the 1.x-only
 * ones — late tool updates ignored, reset() refused mid-run, the full protocol tail
 * on a thrown failure — are in test/agent/agent.test.ts). The
 * adaptations: fixed sleeps were replaced by deferreds the test waits on, the
 * abort-polling mock by one that listens to the signal, and `any` casts by
 * types. The other two files are written against pi 0.73's published Agent
 * (dist/agent.js): queue modes, abort, prompt shapes, listener order; tool calls.
 */
import { describe, expect, it } from "vitest";
import { getModel } from "@mariozechner/pi-ai";

import { type AgentTool } from "../../src/index.js";
import { piAgentInstalled } from "./pi-agent-support.js";
import { implementations, createAssistantMessage, createDeferred, answer, hangUntilAborted, unusedStreamFunction, userMessage, emptySchema } from "./pi-agent-support.js";

if (!piAgentInstalled) {
  describe("pi-agent-core 0.73", () => {
    it.skip("(skipped: bench/node_modules is absent; run `npm --prefix bench ci`)", () => {});
  });
}

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
});
