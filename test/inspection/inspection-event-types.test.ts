/**
 * The inspection types loopchart's declarations write out (src/inspection/inspection-event.ts,
 * so that the main entry's declarations name no XState type) fit XState's both ways: XState's
 * inspectors are LoopInspectors, and loopchart's inspectors can be given to XState's
 * createActor. The type checks run in `npm run typecheck`; the runs show the same at run time.
 */
import { describe, expect, expectTypeOf, it } from "vitest";
import { createActor, createMachine, type ActorOptions, type AnyActorLogic, type InspectionEvent, type Observer } from "xstate";
import { agentLoop, readableInspector, recordTrace, type LoopInspectionEvent, type LoopInspector } from "../../src/index.js";
import { createScriptedModel } from "../../src/providers/index.js";

type XStateInspect = NonNullable<ActorOptions<AnyActorLogic>["inspect"]>;

describe("loopchart's inspection types beside XState's", () => {
  it("XState's events and inspectors are loopchart's; loopchart's inspectors are XState's", () => {
    expectTypeOf<InspectionEvent>().toExtend<LoopInspectionEvent>();
    expectTypeOf<Observer<InspectionEvent>>().toExtend<LoopInspector>();
    expectTypeOf<(event: InspectionEvent) => void>().toExtend<LoopInspector>();
    expectTypeOf(readableInspector(() => {})).toExtend<XStateInspect>();
    expectTypeOf<ReturnType<typeof recordTrace>["inspect"]>().toExtend<XStateInspect>();
  });

  it("an inspector typed with XState's InspectionEvent, given to agentLoop, sees the run's actors", async () => {
    const types = new Set<string>();
    const inspect = (event: InspectionEvent): void => {
      types.add(event.type);
    };
    const { model, streamFn } = createScriptedModel({ responses: [{ content: [{ type: "text", text: "hi" }] }] });
    const stream = agentLoop(
      [{ role: "user", content: "hello", timestamp: 1 }],
      { systemPrompt: "", messages: [], tools: [] },
      { model, convertToLlm: (messages) => messages as never, inspect },
      undefined,
      streamFn,
    );
    await stream.result();
    expect([...types]).toEqual(expect.arrayContaining(["@xstate.actor", "@xstate.event", "@xstate.snapshot"]));
  });

  it("readableInspector's inspector, given to XState's createActor, receives XState's events", () => {
    const seen: LoopInspectionEvent[] = [];
    const machine = createMachine({ id: "light", initial: "off", states: { off: { on: { flip: "on" } }, on: {} } });
    const actor = createActor(machine, { inspect: readableInspector((event) => seen.push(event)) });
    actor.start();
    actor.send({ type: "flip" });
    expect(actor.getSnapshot().value).toBe("on");
    const flip = seen.find((event) => event.type === "@xstate.event" && event.event.type === "flip");
    expect(flip?.rootId).toBe(actor.sessionId);
    expect(seen.some((event) => event.type === "@xstate.snapshot" && event.actorRef.sessionId === actor.sessionId)).toBe(true);
  });
});
