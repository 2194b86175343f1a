import { readdir, readFile } from "node:fs/promises";
import { join } from "node:path";
import { Compile } from "typebox/compile";
import type { TSchema } from "typebox";
import { describe, expect, it } from "vitest";
import { DEMO_SCRIPT, createScriptedModel, loadScript, type Script } from "../../src/providers/index.js";
import type { Context } from "../../src/llm-types.js";
import { SCRIPT_SCHEMA_FILE, scriptSchemaFileText } from "../../scripts/write-script-schema.js";
import { REPO_ROOT } from "../cli/spawn-cli.js";

const EXAMPLES = join(REPO_ROOT, "docs/examples");

async function committedSchema() {
  return Compile(JSON.parse(await readFile(join(REPO_ROOT, SCRIPT_SCHEMA_FILE), "utf8")) as TSchema);
}

/** The ids of the tool calls the scripted model streams for each request of `script` (one request per response). */
async function playedCallIds(script: Script): Promise<string[]> {
  const { model, streamFn } = createScriptedModel(script);
  const ids: string[] = [];
  const context: Context = { systemPrompt: "", messages: [] };
  for (let request = 0; request < script.responses.length; request++) {
    for await (const event of await streamFn(model, context)) if (event.type === "toolcall_end") ids.push(event.toolCall.id);
  }
  return ids;
}

describe("docs/scripted-model.schema.json", () => {
  it("should be what npm run schema writes from the validator's schema (run it when this fails)", async () => {
    expect(await readFile(join(REPO_ROOT, SCRIPT_SCHEMA_FILE), "utf8")).toBe(scriptSchemaFileText());
  });

  it("should accept every example in docs/examples, which loadScript accepts too", async () => {
    const schema = await committedSchema();
    const files = (await readdir(EXAMPLES)).filter((file) => file.endsWith(".json"));
    expect(files.length).toBeGreaterThanOrEqual(2);
    for (const file of files) {
      const value: unknown = JSON.parse(await readFile(join(EXAMPLES, file), "utf8"));
      expect([file, [...schema.Errors(value)].map((error) => `${error.instancePath} ${error.message}`)]).toEqual([file, []]);
      await expect(loadScript(join(EXAMPLES, file))).resolves.toMatchObject({ name: file.replace(/\.json$/, "") });
    }
  });

  it("should accept the built-in demo script and refuse what the validator refuses", async () => {
    const schema = await committedSchema();
    expect(schema.Check(DEMO_SCRIPT)).toBe(true);
    expect(schema.Check({ responses: [] })).toBe(false);
    expect(schema.Check({ responses: [{ content: [{ type: "text", txt: "typo" }] }] })).toBe(false);
    expect(schema.Check({ responses: [{ content: [], stopReason: "done" }] })).toBe(false);
  });
});

describe("the scripted model's default tool-call id", () => {
  it("should be call_<r>_<b> as docs/SCRIPTED_MODEL.md says (response r's block b, from 1)", async () => {
    const doc = await readFile(join(REPO_ROOT, "docs/SCRIPTED_MODEL.md"), "utf8");
    expect(doc).toContain("the third block of the second response is `call_2_3`");
    const source = await readFile(join(REPO_ROOT, "src/providers/script-schema.ts"), "utf8");
    expect(source).not.toContain("call_<n>");
    const ids = await playedCallIds({
      responses: [
        { content: [{ type: "toolCall", name: "read", arguments: { path: "a" } }] },
        { content: [{ type: "text", text: "Again." }, { type: "thinking", thinking: "hm" }, { type: "toolCall", name: "read", arguments: { path: "b" } }] },
      ],
    });
    expect(ids).toEqual(["call_1_1", "call_2_3"]);
  });
});
