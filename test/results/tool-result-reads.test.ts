import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { CONTENT_BLOCK_SHAPE, isToolResultContentBlock, normalizeToolResult, TOOL_RESULT_SHAPE } from "../../src/tool-result.js";
import { describeValue, readProperty } from "../../src/describe-value.js";
import { describeThrown } from "../../src/describe-thrown.js";

/**
 * The checks of a tool's result written the plain way (every field read through
 * `readProperty`, keys from arrays): the shipped checks read each field by name
 * for speed, and must give the same verdict, after the same reads in the same
 * order, whatever the result (throwing getters included).
 */
const reference = {
  isBlock(block: unknown): boolean {
    if (typeof block !== "object" || block === null) return false;
    const type = readProperty(block, "type");
    if (type === "text") return typeof readProperty(block, "text") === "string";
    if (type === "image") return typeof readProperty(block, "data") === "string" && typeof readProperty(block, "mimeType") === "string";
    return false;
  },
  /** The problem text, for results whose structuredContent is absent or plain JSON. */
  problem(value: unknown): string | undefined {
    if (typeof value !== "object" || value === null || Array.isArray(value)) return `${describeValue(value)} instead of a result object`;
    const fields = value as Record<string, unknown>;
    try {
      const content = fields["content"];
      if (!Array.isArray(content)) return `a result whose content is ${describeValue(content)}, not an array`;
      for (let index = 0; index < content.length; index++) {
        const block: unknown = content[index];
        if (!reference.isBlock(block)) return `a result whose content[${index}] is ${describeValue(block)}, which is not ${CONTENT_BLOCK_SHAPE}`;
      }
      for (const key of ["terminate", "isError"]) {
        const field = fields[key];
        if (field !== undefined && typeof field !== "boolean") return `a result whose ${key} is ${describeValue(field)}, not a boolean`;
      }
      const names = fields["addedToolNames"];
      if (names !== undefined && !(Array.isArray(names) && names.every((name) => typeof name === "string"))) {
        return `a result whose addedToolNames is ${describeValue(names)}, not an array of tool names`;
      }
      void fields["structuredContent"];
    } catch (error) {
      return `a result whose fields cannot be read (${describeThrown(error)})`;
    }
    return undefined;
  },
};

/** `target` behind a proxy that records every property read into `reads`, and throws on reading `throwOn`. */
function recorded<T extends object>(target: T, reads: string[], label: string, throwOn?: string): T {
  return new Proxy(target, {
    get(object, key, receiver) {
      if (typeof key === "string") {
        reads.push(`${label}.${key}`);
        if (key === throwOn) throw new Error(`no ${key}`);
      }
      return Reflect.get(object, key, receiver) as unknown;
    },
  });
}

const fieldValue = fc.oneof(fc.constant(undefined), fc.string(), fc.integer(), fc.boolean(), fc.constant(null), fc.array(fc.string(), { maxLength: 2 }));
const blockFields = fc.record(
  { type: fc.constantFrom("text", "image", "audio", undefined), text: fieldValue, data: fieldValue, mimeType: fieldValue },
  { requiredKeys: [] },
);
const blockKeys = fc.constantFrom(undefined, "type", "text", "data", "mimeType");
const resultFields = fc.record(
  {
    content: fc.oneof(fc.array(fc.tuple(blockFields, blockKeys), { maxLength: 3 }), fieldValue),
    details: fieldValue,
    terminate: fieldValue,
    isError: fieldValue,
    addedToolNames: fieldValue,
    structuredContent: fc.oneof(fc.constant(undefined), fc.dictionary(fc.string(), fc.integer(), { maxKeys: 2 })),
  },
  { requiredKeys: [] },
);
const resultKeys = fc.constantFrom(undefined, "content", "terminate", "isError", "addedToolNames", "structuredContent");

/** A result (behind recording proxies, blocks too) and the reads it saw. */
function build(fields: Record<string, unknown>, throwOn: string | undefined, reads: string[]): object {
  const content = fields.content;
  const built: Record<string, unknown> = { ...fields };
  if (Array.isArray(content) && content.every((entry) => Array.isArray(entry) && entry.length === 2)) {
    built.content = (content as [object, string | undefined][]).map(([block, throws], index) => recorded({ ...block }, reads, `content[${index}]`, throws));
  }
  return recorded(built, reads, "result", throwOn);
}

describe("the checks of a tool's result", () => {
  it("give the plain checks' verdict, after the same reads in the same order", () => {
    fc.assert(
      fc.property(resultFields, resultKeys, (fields, throwOn) => {
        const shippedReads: string[] = [];
        const referenceReads: string[] = [];
        const value = build(fields, throwOn, shippedReads);
        const normalized = normalizeToolResult("t", value);
        const problem = reference.problem(build(fields, throwOn, referenceReads));
        // The verdict's own second read of isError (a valid result's flag) comes after the checks.
        const checkReads = problem === undefined ? shippedReads.slice(0, -1) : shippedReads;
        expect(checkReads).toEqual(referenceReads);
        if (problem === undefined) {
          // A valid result passes through as the very same object.
          expect(normalized.result).toBe(value);
        } else {
          expect(normalized.isError).toBe(true);
          expect((normalized.result.content[0] as { text: string }).text).toContain(`Tool "t" returned ${problem}. A tool must resolve to ${TOOL_RESULT_SHAPE}`);
        }
      }),
    );
  });

  it("tell content blocks apart as the plain check does, after the same reads", () => {
    fc.assert(
      fc.property(blockFields, blockKeys, (fields, throwOn) => {
        const shippedReads: string[] = [];
        const referenceReads: string[] = [];
        expect(isToolResultContentBlock(recorded({ ...fields }, shippedReads, "b", throwOn))).toBe(reference.isBlock(recorded({ ...fields }, referenceReads, "b", throwOn)));
        expect(shippedReads).toEqual(referenceReads);
      }),
    );
  });
});
