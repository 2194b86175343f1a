/**
 * `npm run schema`: writes docs/scripted-model.schema.json from the scripted model's
 * zod schema (scriptJsonSchema), for editors; a test fails when the file is stale.
 */
import { writeFileSync } from "node:fs";
import { scriptJsonSchema } from "../src/providers/index.js";

/** Where the schema file lives, relative to the repository root (also shipped in the package). */
export const SCRIPT_SCHEMA_FILE = "docs/scripted-model.schema.json";

/** The file's text: the JSON Schema, two-space indented, with a final newline. */
export function scriptSchemaFileText(): string {
  return `${JSON.stringify({ title: "loopchart scripted model script", ...scriptJsonSchema() }, null, 2)}\n`;
}

if (process.argv[1]?.endsWith("write-script-schema.ts")) {
  writeFileSync(new URL(`../${SCRIPT_SCHEMA_FILE}`, import.meta.url), scriptSchemaFileText());
  console.log(`wrote ${SCRIPT_SCHEMA_FILE}`);
}
