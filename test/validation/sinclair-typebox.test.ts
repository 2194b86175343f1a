import { Type } from "@sinclair/typebox";
import { BAD_ARGUMENTS_JSON, describeSchemaKind } from "./schema-kind-suite.js";

describeSchemaKind({
  kind: "@sinclair/typebox 0.34",
  parameters: Type.Object({
    path: Type.String({ description: "File to read" }),
    count: Type.Integer(),
    verbose: Type.Optional(Type.Boolean()),
    options: Type.Object({ depth: Type.Number() }),
  }),
  expectedJsonSchema: {
    type: "object",
    required: ["path", "count", "options"],
    properties: {
      path: { type: "string", description: "File to read" },
      count: { type: "integer" },
      verbose: { type: "boolean" },
      options: { type: "object", required: ["depth"], properties: { depth: { type: "number" } } },
    },
  },
  expectedIssues: [
    { path: "/path", message: "must be string" },
    { path: "/count", message: "must be integer" },
    { path: "/verbose", message: "must be boolean" },
    { path: "/options/depth", message: "must be number" },
  ],
  expectedErrorMessage: `Validation failed for tool "read_file":
  - /path: must be string
  - /count: must be integer
  - /verbose: must be boolean
  - /options/depth: must be number

Received arguments:
${BAD_ARGUMENTS_JSON}`,
});
