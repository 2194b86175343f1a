import { z } from "zod/v3";
import { BAD_ARGUMENTS_JSON, describeSchemaKind } from "./schema-kind-suite.js";

describeSchemaKind({
  kind: "zod 3",
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
      count: { type: "integer" },
      verbose: { type: "boolean" },
      options: {
        type: "object",
        properties: { depth: { type: "number" } },
        required: ["depth"],
        additionalProperties: false,
      },
    },
    required: ["path", "count", "options"],
    additionalProperties: false,
  },
  expectedIssues: [
    { path: "/path", message: "Expected string, received object" },
    { path: "/count", message: "Expected number, received string" },
    { path: "/verbose", message: "Expected boolean, received string" },
    { path: "/options/depth", message: "Expected number, received string" },
  ],
  expectedErrorMessage: `Validation failed for tool "read_file":
  - /path: Expected string, received object
  - /count: Expected number, received string
  - /verbose: Expected boolean, received string
  - /options/depth: Expected number, received string

Received arguments:
${BAD_ARGUMENTS_JSON}`,
});
