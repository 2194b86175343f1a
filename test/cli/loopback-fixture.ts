/** What both loopback CLI test files need: a scripted server per test, a workspace, the openai-compatible argv. */
import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import { afterEach } from "vitest";
import { startScriptedServer, type ScriptedServer, type ServerStep } from "../support/scripted-server.js";
import { tempDir } from "../support/temp-dir.js";

let server: ScriptedServer | undefined;

/** Closes the test's server after each test of the calling file. */
export function closeServerAfterEach(): void {
  afterEach(async () => {
    await server?.close();
    server = undefined;
  });
}

/** The running server of the current test. */
export function currentServer(): ScriptedServer | undefined {
  return server;
}

/** A fresh temp workspace with one `notes.txt`. */
export async function workspace(): Promise<string> {
  const dir = await tempDir("loopchart-cli-loopback-");
  await writeFile(join(dir, "notes.txt"), "remember the milk\n");
  return dir;
}

/** Starts the test's server playing `responses`; resolves with its API root. */
export async function serve(...responses: ServerStep[]): Promise<string> {
  server = await startScriptedServer({ responses });
  return `${server.url}/v1`;
}

/** `loopchart run` argv for the openai-compatible provider at `baseUrl`, without retries. */
export const compatible = (baseUrl: string, ...rest: string[]) => [
  "run", "--model", "openai-compatible/loopback-model", "--base-url", baseUrl, "--max-retries", "0", ...rest,
];
