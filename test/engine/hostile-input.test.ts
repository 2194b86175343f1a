/**
 * Issue 13, items 10 and 11 (the input half): input the README says fails fast
 * does, with a message naming what was received. The run-time checks the lead
 * wires into the core (prompts, steering, transformContext) are tested here as
 * pure functions; their behaviour through agentLoop is in hostile-runs.test.ts.
 */
import { describe, expect, it } from "vitest";
import { Type } from "typebox";
import { z } from "zod";
import { agentLoop, InvalidToolDefinitionError, LoopInputError } from "../../src/index.js";
import { assertPrompts } from "../../src/loop-input.js";
import { checkSteeringMessages, checkTransformedContext } from "../../src/check-messages.js";
import type { AgentContext, AgentLoopConfig, AgentTool } from "../../src/types.js";
import { baseConfig, mockStream, user } from "../helpers/mock-stream.js";
import { echoTool } from "../helpers/tools.js";

const start = (context: Partial<AgentContext>, config: AgentLoopConfig = baseConfig()) =>
  agentLoop([user("x")], { systemPrompt: "", messages: [], ...context }, config, undefined, mockStream([]));

const withParameters = (parameters: unknown, name = "probe"): AgentTool =>
  ({ ...echoTool().tool, name, parameters }) as unknown as AgentTool;

function thrown(run: () => unknown): Error {
  try {
    run();
  } catch (error) {
    if (error instanceof Error) return error;
    throw new Error(`threw a non-Error: ${String(error)}`);
  }
  throw new Error("expected a throw");
}

describe("parameter schemas that are not JSON Schema fail fast (item 10)", () => {
  it.each([
    ["properties: 5", { type: "object", properties: 5 }, /at the root: `properties` must be an object mapping names to schemas, got the number 5/],
    ['required: "x"', { type: "object", properties: { x: { type: "string" } }, required: "x" }, /`required` must be an array of property names, got the string "x"/],
    ['type: "frobnicate"', { type: "frobnicate" }, /`type` must be one of "object", .* got the string "frobnicate"/],
    ["a nested bad type", { type: "object", properties: { n: { type: "nummber" } } }, /at \/properties\/n: `type` must be one of/],
    ["an anyOf that is not an array", { type: "object", properties: { v: { anyOf: { type: "string" } } } }, /at \/properties\/v: `anyOf` must be a non-empty array of schemas/],
    ["a property schema that is a string", { type: "object", properties: { p: "string" } }, /at \/properties\/p: a schema must be an object or a boolean, got the string "string"/],
    ["a broken pattern", { type: "object", properties: { p: { type: "string", pattern: "([a-z" } } }, /`pattern` must be a regular expression string/],
    ["a negative minLength", { type: "object", properties: { p: { type: "string", minLength: -1 } } }, /`minLength` must be a non-negative integer, got the number -1/],
  ])("refuses %s, naming the tool and the problem", (_label, parameters, pattern) => {
    const error = thrown(() => start({ tools: [withParameters(parameters)] }));
    expect(error).toBeInstanceOf(InvalidToolDefinitionError);
    expect((error as InvalidToolDefinitionError).toolName).toBe("probe");
    expect(error.message).toMatch(/^Tool "probe"/);
    expect(error.message).toMatch(pattern);
  });

  it("refuses a circular plain schema with InvalidToolDefinitionError, not a TypeError", () => {
    const schema: Record<string, unknown> = { type: "object", properties: {} };
    (schema.properties as Record<string, unknown>).self = schema;
    const error = thrown(() => start({ tools: [withParameters(schema)] }));
    expect(error).toBeInstanceOf(InvalidToolDefinitionError);
    expect(error.message).toMatch(/cannot be copied as JSON/);
  });

  it("still accepts TypeBox, zod, booleans, tuples, draft-04 bounds and unknown keywords", () => {
    const schemas: unknown[] = [
      Type.Object({ path: Type.String(), limit: Type.Optional(Type.Integer({ minimum: 1 })), mode: Type.Union([Type.Literal("a"), Type.Literal("b")]) }),
      z.object({ path: z.string().regex(/^[a-z]+$/), tags: z.array(z.string()).default([]), n: z.number().gt(0) }),
      { type: "object", properties: { any: true, none: false, pair: { type: "array", items: [{ type: "string" }, { type: "number" }] } } },
      { type: "object", properties: { n: { type: "number", minimum: 0, exclusiveMinimum: true } }, "x-custom": { anything: 1 } },
      { type: "object", $defs: { Name: { type: "string" } }, properties: { name: { $ref: "#/$defs/Name" } }, required: ["name"] },
    ];
    for (const parameters of schemas) expect(() => start({ tools: [withParameters(parameters)] })).not.toThrow();
  });
});

describe("tool names providers reject fail fast (item 10)", () => {
  it.each([["read file"], ["fs.read"], ["tool/name"], ["ünïcode"], ["x".repeat(65)]])("refuses %j", (name) => {
    const error = thrown(() => start({ tools: [withParameters({ type: "object", properties: {} }, name)] }));
    expect(error).toBeInstanceOf(InvalidToolDefinitionError);
    expect(error.message).toContain(`Tool name ${JSON.stringify(name)} is not accepted by model providers`);
    expect(error.message).toMatch(/1 to 64 letters, digits, underscores or dashes/);
  });

  it("suggests a name that would pass", () => {
    const error = thrown(() => start({ tools: [withParameters({ type: "object" }, "read file")] }));
    expect(error.message).toContain('e.g. "read_file"');
  });

  it("accepts 64 characters of letters, digits, underscores and dashes", () => {
    expect(() => start({ tools: [withParameters({ type: "object" }, `a-b_C9${"z".repeat(58)}`)] })).not.toThrow();
  });
});

describe("config and context that are the wrong type fail fast with what they got (item 10)", () => {
  it.each([["paralel"], ["bogus"], [true]])("refuses toolExecution %j naming the allowed values", (value) => {
    const error = thrown(() => start({}, baseConfig({ toolExecution: value as never })));
    expect(error).toBeInstanceOf(LoopInputError);
    expect(error.message).toMatch(/^config.toolExecution must be "parallel" or "sequential" \(default "parallel"\), got /);
  });

  it("accepts both execution modes", () => {
    expect(() => start({}, baseConfig({ toolExecution: "sequential" }))).not.toThrow();
    expect(() => start({}, baseConfig({ toolExecution: "parallel" }))).not.toThrow();
  });

  it("says maxTurns got a string", () => {
    expect(() => start({}, baseConfig({ maxTurns: "2" as never }))).toThrow(
      new LoopInputError('config.maxTurns must be a positive integer, got the string "2" (use the number 2)'),
    );
    expect(() => start({}, baseConfig({ maxTurns: 1.5 }))).toThrow("config.maxTurns must be a positive integer, got the number 1.5");
  });

  it("says context.tools must be an array instead of 'object is not iterable'", () => {
    expect(() => start({ tools: {} as never })).toThrow(new LoopInputError("context.tools must be an array of tools (or omitted), got an object {}"));
  });

  it("names a null tool and a null message by index", () => {
    expect(() => start({ tools: [null as never] })).toThrow(/context.tools\[0\] is null/);
    expect(() => start({ messages: [user("a"), null as never] })).toThrow(/context.messages\[1\] is null/);
  });
});

describe("assertPrompts (items 10; wired by the core)", () => {
  it("refuses a string with a hint to wrap it", () => {
    expect(() => assertPrompts("hello")).toThrow(
      new LoopInputError('prompts must be an array of messages, got the string "hello"; wrap it: [{ role: "user", content: "hello", timestamp: Date.now() }]'),
    );
  });

  it("refuses null and non-message entries by index", () => {
    expect(() => assertPrompts(null)).toThrow(/prompts must be an array of messages, got null/);
    expect(() => assertPrompts([user("a"), null])).toThrow(/^prompts\[1\] is null, not a message object; each prompt must be a message object with a string `role`/);
    expect(() => assertPrompts([{ content: "no role" }])).toThrow(/prompts\[0\] is an object \{"content":"no role"\}, whose `role` is undefined/);
    expect(() => assertPrompts([user("a")])).not.toThrow();
    expect(() => assertPrompts([])).not.toThrow();
  });
});

describe("checkSteeringMessages (item 10; wired by the core)", () => {
  it("passes an array of messages as the same array, and treats undefined and null as none", () => {
    const messages = [user("steer")];
    expect(checkSteeringMessages(messages, "getSteeringMessages")).toEqual({ ok: true, value: messages });
    const checked = checkSteeringMessages(messages, "getSteeringMessages");
    expect(checked.ok && checked.value).toBe(messages);
    expect(checkSteeringMessages(undefined, "getSteeringMessages")).toEqual({ ok: true, value: [] });
    expect(checkSteeringMessages(null, "getFollowUpMessages")).toEqual({ ok: true, value: [] });
  });

  it.each([
    [{}, /^getSteeringMessages returned an object \{\}; it must resolve to an array of messages \(or \[\] for none\)$/],
    ["abc", /^getSteeringMessages returned the string "abc"; it must resolve to an array/],
    [[null], /^getSteeringMessages returned an array whose entry 0 is null, not a message object; each entry must be/],
    [[{ role: 5 }], /entry 0 is an object \{"role":5\}, whose `role` is the number 5/],
  ])("names the hook and what it returned for %j", (value, pattern) => {
    const checked = checkSteeringMessages(value, "getSteeringMessages");
    expect(checked.ok).toBe(false);
    expect(!checked.ok && checked.error).toMatch(pattern);
  });

  it("names the follow-up hook when it is the one at fault", () => {
    const checked = checkSteeringMessages("abc", "getFollowUpMessages");
    expect(!checked.ok && checked.error).toMatch(/^getFollowUpMessages returned/);
  });
});

describe("checkTransformedContext (item 10; wired by the core)", () => {
  it("names the hook when it returned undefined or a non-array", () => {
    expect(checkTransformedContext(undefined)).toEqual({
      ok: false,
      error: "transformContext returned undefined (did it forget to return the messages?); it must resolve to an array of messages",
    });
    expect(checkTransformedContext({ messages: [] })).toMatchObject({ ok: false, error: expect.stringMatching(/^transformContext returned an object/) });
  });

  it("names a bad entry, and passes a good array as the same array", () => {
    expect(checkTransformedContext([user("a"), null])).toMatchObject({ ok: false, error: expect.stringMatching(/entry 1 is null/) });
    const messages = [user("a")];
    const checked = checkTransformedContext(messages);
    expect(checked.ok && checked.value).toBe(messages);
  });

  it("checks the new tail of an array it saw before, and all of it when it shrank", () => {
    const live = [user("a")];
    expect(checkTransformedContext(live).ok).toBe(true);
    live.push(null as never);
    expect(checkTransformedContext(live)).toMatchObject({ ok: false, error: expect.stringMatching(/entry 1 is null/) });
    live.splice(1, 1, user("b"));
    expect(checkTransformedContext(live).ok).toBe(true);
    live.splice(0, 2, null as never);
    expect(checkTransformedContext(live)).toMatchObject({ ok: false, error: expect.stringMatching(/entry 0 is null/) });
  });
});
