import { z } from "zod";
import { BAD_ARGUMENTS_JSON, describeSchemaKind } from "./schema-kind-suite.js";

const SAFE_INTEGER_BOUNDS = { minimum: Number.MIN_SAFE_INTEGER, maximum: Number.MAX_SAFE_INTEGER };

describeSchemaKind({
  kind: "zod 4",
  parameters: z.object({
    path: z.string().describe("File to read"),
    count: z.number().int(),
    verbose: z.boolean().optional(),
    options: z.object({ depth: z.number() }),
  }),
  expectedJsonSchema: {
    type: "object",
    properties: {
      path: { type: "string", description: "File to read" },
      count: { type: "integer", ...SAFE_INTEGER_BOUNDS },
      verbose: { type: "boolean" },
      options: { type: "object", properties: { depth: { type: "number" } }, required: ["depth"] },
    },
    required: ["path", "count", "options"],
  },
  expectedIssues: [
    { path: "/path", message: "Invalid input: expected string, received object" },
    { path: "/count", message: "Invalid input: expected number, received string" },
    { path: "/verbose", message: "Invalid input: expected boolean, received string" },
    { path: "/options/depth", message: "Invalid input: expected number, received string" },
  ],
  expectedErrorMessage: `Validation failed for tool "read_file":
  - /path: Invalid input: expected string, received object
  - /count: Invalid input: expected number, received string
  - /verbose: Invalid input: expected boolean, received string
  - /options/depth: Invalid input: expected number, received string

Received arguments:
${BAD_ARGUMENTS_JSON}`,
});
