import { describe, expect, it } from "vitest";
import { ToolArgumentsError } from "../../src/errors/index.js";
import { assertToolParameters, toJsonSchema, validateToolArguments } from "../../src/validation.js";
import type { JsonSchema, ToolParameters } from "../../src/schema-types.js";

/**
 * The shared behaviour of one schema kind. Every kind describes the same tool:
 * `{ path: string; count: integer; verbose?: boolean; options: { depth: number } }`.
 */
export interface SchemaKindCase {
  kind: string;
  parameters: ToolParameters;
  /** The JSON Schema the model must be shown. */
  expectedJsonSchema: JsonSchema;
  /** The validator's exact message for {@link BAD_ARGUMENTS}. */
  expectedErrorMessage: string;
  /** The issues of that error. */
  expectedIssues: { path: string; message: string }[];
}

/** Every field wrong in a way coercion cannot fix. */
export const BAD_ARGUMENTS = { path: { not: "a string" }, count: "many", verbose: "maybe", options: { depth: "deep" } };

/** The JSON of {@link BAD_ARGUMENTS} as the error message prints it. */
export const BAD_ARGUMENTS_JSON = `{
  "path": {
    "not": "a string"
  },
  "count": "many",
  "verbose": "maybe",
  "options": {
    "depth": "deep"
  }
}`;

export function describeSchemaKind(testCase: SchemaKindCase): void {
  const tool = { name: "read_file", parameters: testCase.parameters };

  describe(`${testCase.kind} parameters`, () => {
    it("declares the expected JSON Schema to the model, JSON-serialisable and without $schema", () => {
      const declared = toJsonSchema(testCase.parameters);
      expect(declared).toEqual(testCase.expectedJsonSchema);
      expect(JSON.parse(JSON.stringify(declared))).toEqual(declared);
      expect(Object.getOwnPropertySymbols(declared)).toEqual([]);
      expect(declared).not.toHaveProperty("$schema");
    });

    it("returns the same declared schema object on every call (cached)", () => {
      expect(toJsonSchema(testCase.parameters)).toBe(toJsonSchema(testCase.parameters));
    });

    it("is accepted by assertToolParameters", () => {
      expect(() => assertToolParameters(tool)).not.toThrow();
    });

    it("returns valid arguments unchanged in value, as a fresh object", () => {
      const args = { path: "src/a.ts", count: 2, verbose: false, options: { depth: 1.5 } };
      const result = validateToolArguments(tool, args);
      expect(result).toEqual(args);
      expect(result).not.toBe(args);
      expect((result as typeof args).options).not.toBe(args.options);
    });

    it('coerces "3" to 3, "true" to true and a number to a string, nested ones too', () => {
      const args = { path: 7, count: "3", verbose: "true", options: { depth: "0.5" } };
      expect(validateToolArguments(tool, args)).toEqual({ path: "7", count: 3, verbose: true, options: { depth: 0.5 } });
    });

    it("does not mutate the arguments it coerces", () => {
      const args = { path: 7, count: "3", verbose: "false", options: { depth: "2" } };
      const before = structuredClone(args);
      validateToolArguments(tool, args);
      expect(args).toEqual(before);
    });

    it("rejects bad arguments with every failing path, the tool name and the received JSON", () => {
      let caught: unknown;
      try {
        validateToolArguments(tool, BAD_ARGUMENTS);
      } catch (error) {
        caught = error;
      }
      expect(caught).toBeInstanceOf(ToolArgumentsError);
      const error = caught as ToolArgumentsError;
      expect(error.name).toBe("ToolArgumentsError");
      expect(error.toolName).toBe("read_file");
      expect(error.received).toBe(BAD_ARGUMENTS);
      expect(error.issues).toEqual(testCase.expectedIssues);
      expect(error.message).toBe(testCase.expectedErrorMessage);
    });

    it("reports a missing required field at its own path", () => {
      expect(() => validateToolArguments(tool, { path: "a", count: 1, options: {} })).toThrow(
        expect.objectContaining({ issues: [expect.objectContaining({ path: "/options/depth" })] }),
      );
    });

    it("rejects arguments that are not an object at the root", () => {
      expect(() => validateToolArguments(tool, "read everything")).toThrow(
        expect.objectContaining({ issues: [expect.objectContaining({ path: "(root)" })] }),
      );
    });
  });
}
