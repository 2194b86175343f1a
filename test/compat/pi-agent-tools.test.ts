/**
 * The shared Agent suite (see `pi-agent.test.ts`), written against pi 0.73's
 * published Agent (dist/agent.js): tool calls through the Agent.
 */
import { describe, expect, it } from "vitest";

import { Type } from "typebox";
import { type AgentMessage, type AgentTool } from "../../src/index.js";
import { implementations, createAssistantMessage, type ToolCallContent, createAssistantToolUseMessage, createDeferred, scripted, userMessage } from "./pi-agent-support.js";

describe.each(implementations)("Agent (%s)", (_implementation, Agent) => {
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
