import { BAD_ARGUMENTS_JSON, describeSchemaKind } from "./schema-kind-suite.js";

const parameters = {
  type: "object",
  properties: {
    path: { type: "string", description: "File to read" },
    count: { type: "integer" },
    verbose: { type: "boolean" },
    options: { type: "object", properties: { depth: { type: "number" } }, required: ["depth"] },
  },
  required: ["path", "count", "options"],
};

describeSchemaKind({
  kind: "plain JSON Schema",
  parameters,
  expectedJsonSchema: structuredClone(parameters),
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
