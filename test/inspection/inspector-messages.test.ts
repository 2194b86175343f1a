/**
 * What the viewer server makes of Stately inspection messages: a loop snapshot that appended
 * messages is followed by a `message_end` record per new message (the live transcript), once per
 * message; other machines' snapshots and malformed transcripts add nothing and never throw.
 */
import { describe, expect, it } from "vitest";
import { agentLoopMachine } from "../../machines/agent-loop.machine.js";
import { LOOP_MACHINE_ID, inspectorConnection, placeInspectorMessage } from "../../src/cli/inspector-messages.js";

const actor = (sessionId: string, id: string) => ({ _version: "1", type: "@xstate.actor", sessionId, rootId: "x:0", name: sessionId, definition: JSON.stringify({ id }), createdAt: 1 });
const snapshot = (sessionId: string, context: unknown) => ({ _version: "1", type: "@xstate.snapshot", sessionId, rootId: "x:0", event: { type: "e" }, snapshot: { status: "active", value: "requesting", context }, createdAt: 2 });
const message = (text: string) => ({ role: "user", content: text, timestamp: 1 });
const transcript = (full: unknown[][], tail: unknown[]) => ({ full, tail, length: full.flat().length + tail.length });
const ended = (placed: ReturnType<typeof placeInspectorMessage>) =>
  placed.flatMap(({ record }) => ("event" in record && record.event.type === "message_end" ? [(record.event as { message: { content: string } }).message.content] : []));

describe("placing Stately inspection messages", () => {
  it("knows the loop by the loop machine's own id", () => {
    expect(LOOP_MACHINE_ID).toBe(agentLoopMachine.id);
  });

  it("follows a loop snapshot with a message_end for each message it appended, across chunks, once each", () => {
    const connection = inspectorConnection("live-1");
    expect(placeInspectorMessage(actor("x:0", "agentLoop"), connection)).toHaveLength(1);
    const first = placeInspectorMessage(snapshot("x:0", { newMessages: transcript([], [message("a")]) }), connection);
    expect(first.map(({ record }) => Object.keys(record)[1])).toEqual(["inspect", "event"]);
    expect(ended(first)).toEqual(["a"]);
    expect(ended(placeInspectorMessage(snapshot("x:0", { newMessages: transcript([], [message("a")]) }), connection))).toEqual([]);
    expect(ended(placeInspectorMessage(snapshot("x:0", { newMessages: transcript([[message("a"), message("b")]], [message("c")]) }), connection))).toEqual(["b", "c"]);
  });

  it("adds nothing for another machine's snapshot or a transcript that is not one, and never throws", () => {
    const connection = inspectorConnection("live-1");
    placeInspectorMessage(actor("x:1", "toolCall"), connection);
    expect(ended(placeInspectorMessage(snapshot("x:1", { newMessages: transcript([], [message("a")]) }), connection))).toEqual([]);
    placeInspectorMessage(actor("x:0", "agentLoop"), connection);
    for (const context of [undefined, null, 7, { newMessages: "no" }, { newMessages: { tail: "x" } }, { newMessages: { full: 3, tail: [message("a")] } }, { newMessages: { full: [5, [message("b")]], tail: [] } }]) {
      expect(() => placeInspectorMessage(snapshot("x:0", context), connection)).not.toThrow();
    }
    expect(placeInspectorMessage("junk", connection)).toEqual([]);
    expect(placeInspectorMessage({ type: "@xstate.snapshot" }, connection)).toEqual([]);
  });
});
