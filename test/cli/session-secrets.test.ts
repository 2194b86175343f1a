/**
 * Secrets stay out of the store: bash commands do not get the provider key variables
 * unless `--tool-env-keep` names them, and when a key reaches a tool result anyway it
 * appears in no file of the session store (nor the trace), which are created 0600 in
 * 0700 directories. Both stores.
 */
import {  readdirSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { STORE_KINDS } from "../sessions/store-fixtures.js";
import { runCli } from "./spawn-cli.js";
import { bashCall, loadStored, scriptModel, text } from "./session-owner-fixture.js";
import { tempDirSync } from "../support/temp-dir.js";

const OPENAI_KEY = "sk-test-SECRET-0123456789abcdef";
const ANTHROPIC_KEY = "plain-anthropic-secret-value";
const ENV = { OPENAI_API_KEY: OPENAI_KEY, ANTHROPIC_API_KEY: ANTHROPIC_KEY, OTHER_SETTING: "visible" };

/** Every file under `dir`, recursively. */
function files(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => (entry.isDirectory() ? files(join(dir, entry.name)) : [join(dir, entry.name)]));
}
function directories(dir: string): string[] {
  return [dir, ...readdirSync(dir, { withFileTypes: true }).flatMap((entry) => (entry.isDirectory() ? directories(join(dir, entry.name)) : []))];
}
const mode = (path: string) => statSync(path).mode & 0o777;

describe("the environment of bash commands", () => {
  it("should not pass the provider key variables unless --tool-env-keep names them", async () => {
    const dir = tempDirSync("loopchart-secrets-");
    const model = scriptModel(dir, [bashCall("b1", 'echo "[$OPENAI_API_KEY|$ANTHROPIC_API_KEY|$OTHER_SETTING]"'), text("Done.")]);
    const plain = await runCli(["run", "--model", model, "--cwd", dir, "--tools", "bash", "--json", "Go"], { cwd: dir, env: ENV });
    expect(plain.code).toBe(0);
    expect(plain.stdout).toContain("[||visible]");
    const kept = await runCli(["run", "--model", model, "--cwd", dir, "--tools", "bash", "--tool-env-keep", "ANTHROPIC_API_KEY", "--session", "k", "Go"], { cwd: dir, env: ENV });
    expect(kept.code).toBe(0);
    expect(kept.stdout + kept.stderr).toContain(`[|${ANTHROPIC_KEY}|visible]`);
  }, 60_000);
});

for (const kind of STORE_KINDS) {
  describe(`secrets in a durable session (${kind.name} store)`, () => {
    it("should keep API keys out of every file of the session store and the trace, created 0600 in 0700 directories", async () => {
      const cwd = tempDirSync("loopchart-secrets-");
      const root = join(cwd, "private");
      const location = kind.name === "jsonl" ? join(root, "sessions") : join(root, "sessions.db");
      const spec = kind.cliSpec(location);
      const model = scriptModel(cwd, [bashCall("b1", `echo "401: invalid key ${OPENAI_KEY}"; echo "[$OPENAI_API_KEY][$ANTHROPIC_API_KEY]"`), text("Done.")]);
      const trace = join(cwd, "traces", "run.jsonl");
      const run = await runCli(
        ["run", "--model", model, "--cwd", cwd, "--tools", "bash", "--tool-env-keep", "OPENAI_API_KEY,ANTHROPIC_API_KEY", "--session", "s", "--store", spec, "--trace", trace, "Go"],
        { cwd, env: ENV },
      );
      expect(run.code).toBe(0);
      const stored = await loadStored(spec, "s");
      expect(JSON.stringify(stored?.messages)).toContain("401: invalid key [REDACTED]");
      // The command printed both keys (kept in its environment): they reached the tool result, redacted in the store.
      expect(JSON.stringify(stored?.messages)).toContain("[[REDACTED]][[REDACTED]]");
      for (const file of [...files(root), trace]) {
        const bytes = readFileSync(file, "latin1");
        expect(bytes.includes(OPENAI_KEY), `${file} holds the OpenAI key`).toBe(false);
        expect(bytes.includes(ANTHROPIC_KEY), `${file} holds the Anthropic key`).toBe(false);
        expect(mode(file), `mode of ${file}`).toBe(0o600);
      }
      for (const directory of [...directories(root), join(cwd, "traces")]) expect(mode(directory), `mode of ${directory}`).toBe(0o700);
    }, 60_000);
  });
}
