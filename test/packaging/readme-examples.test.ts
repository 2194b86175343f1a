/**
 * The README's embedding examples, run verbatim against the packed tarball installed
 * into fresh projects: an ESM project (`"type": "module"`, TypeScript run by tsx and
 * typechecked with `skipLibCheck: false`) and a CommonJS project (plain `node`).
 * The examples are taken from README.md by their `<!-- readme-example: <file> -->`
 * markers, so editing the README changes what runs here.
 */
import { execFile } from "node:child_process";
import { mkdir, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startScriptedServer } from "../support/scripted-server.js";
import { REPO_ROOT } from "../cli/spawn-cli.js";

const run = promisify(execFile);
/** Each child (pack, install, an example) is killed after this long, so a hang fails instead of blocking. */
const CHILD_TIMEOUT_MS = 240_000;
const TSX = join(REPO_ROOT, "node_modules/.bin/tsx");
const TSC = join(REPO_ROOT, "node_modules/typescript/bin/tsc");

/** The fenced blocks after `<!-- readme-example: <file> -->` markers, by file name. */
function readmeExamples(readme: string): Map<string, string> {
  const examples = new Map<string, string>();
  for (const match of readme.matchAll(/<!-- readme-example: (\S+) -->\s*```\w*\n([\s\S]*?)```/g)) {
    examples.set(match[1] as string, match[2] as string);
  }
  return examples;
}

/** A clean environment: no API keys, no npm_config_* from the test runner. */
function cleanEnv(extra: Record<string, string> = {}): Record<string, string> {
  const env: Record<string, string> = { NO_COLOR: "1" };
  for (const name of ["PATH", "HOME", "TMPDIR", "LANG"]) {
    const value = process.env[name];
    if (value !== undefined) env[name] = value;
  }
  return { ...env, ...extra };
}

let root = "";
let esm = "";
let cjs = "";
let examples = new Map<string, string>();

beforeAll(async () => {
  examples = readmeExamples(await readFile(join(REPO_ROOT, "README.md"), "utf8"));
  root = await mkdtemp(join(tmpdir(), "loopchart-readme-"));
  // `npm pack` runs prepack (the build), as `npm publish` does.
  const packed = await run("npm", ["pack", "--json", "--ignore-scripts=false", "--pack-destination", root], {
    cwd: REPO_ROOT, timeout: CHILD_TIMEOUT_MS, maxBuffer: 64 * 1024 * 1024,
  });
  const [{ filename }] = JSON.parse(packed.stdout.slice(packed.stdout.indexOf("["))) as [{ filename: string }];
  // One install at the root serves both projects below it (Node and tsc look up the tree for node_modules);
  // each project's own package.json decides ESM or CommonJS.
  await writeFile(join(root, "package.json"), JSON.stringify({ name: "consumer", private: true }));
  await run("npm", ["install", "--no-audit", "--no-fund", "--prefer-offline", join(root, filename), "zod", "@types/node@20"], {
    cwd: root, timeout: CHILD_TIMEOUT_MS, env: cleanEnv(),
  });
  esm = join(root, "esm");
  cjs = join(root, "cjs");
  await mkdir(esm);
  await mkdir(cjs);
  await writeFile(join(esm, "package.json"), JSON.stringify({ name: "consumer-esm", private: true, type: "module" }));
  await writeFile(join(cjs, "package.json"), JSON.stringify({ name: "consumer-cjs", private: true }));
  await writeFile(
    join(esm, "tsconfig.json"),
    JSON.stringify({
      compilerOptions: { strict: true, module: "nodenext", moduleResolution: "nodenext", target: "es2022", skipLibCheck: false, noEmit: true },
      include: ["*.ts"],
    }),
  );
  for (const [file, code] of examples) await writeFile(join(file.endsWith(".ts") ? esm : cjs, file), code);
}, 600_000);

afterAll(async () => {
  if (root) await rm(root, { recursive: true, force: true });
});

describe("the README's embedding examples, installed from the packed tarball", () => {
  it("should mark the three examples in README.md", () => {
    expect([...examples.keys()].sort()).toEqual(["cjs-scripted.js", "esm-provider.ts", "esm-scripted.ts"]);
  });

  it("should run the scripted example in an ESM project", async () => {
    const { stdout } = await run(TSX, ["esm-scripted.ts"], { cwd: esm, timeout: CHILD_TIMEOUT_MS, env: cleanEnv() });
    expect(stdout.trim()).toBe("completed");
  }, CHILD_TIMEOUT_MS);

  it("should run the provider example against an OpenAI-compatible server (Ollama's API) given by OLLAMA_BASE_URL", async () => {
    const server = await startScriptedServer({ responses: [{ content: [{ type: "text", text: "Hello from the local model." }] }] });
    try {
      const { stdout } = await run(TSX, ["esm-provider.ts"], {
        cwd: esm, timeout: CHILD_TIMEOUT_MS, env: cleanEnv({ OLLAMA_BASE_URL: `${server.url}/v1` }),
      });
      expect(stdout).toBe("Hello from the local model.\ncompleted\n");
      expect(server.requests).toHaveLength(1);
      expect(server.requests[0]?.path).toBe("/v1/chat/completions");
      expect(server.requests[0]?.body).toMatchObject({ model: "llama3.2" });
    } finally {
      await server.close();
    }
  }, CHILD_TIMEOUT_MS);

  it("should print the provider example's errorMessage and exit 1 when no server answers", async () => {
    const gone = await startScriptedServer({ responses: [] });
    await gone.close(); // nothing listens on its port now
    const failed = await run(TSX, ["esm-provider.ts"], {
      cwd: esm, timeout: CHILD_TIMEOUT_MS, env: cleanEnv({ OLLAMA_BASE_URL: `${gone.url}/v1` }),
    }).then(
      () => ({ code: 0, stdout: "", stderr: "" }),
      (error: { code?: number; stdout?: string; stderr?: string }) => ({ code: error.code, stdout: error.stdout ?? "", stderr: error.stderr ?? "" }),
    );
    expect(failed.code).toBe(1);
    expect(failed.stdout).toBe("\nerror\n");
    expect(failed.stderr).toMatch(/^The run failed: .*Cannot reach .*127\.0\.0\.1/);
    expect(failed.stderr).not.toContain("undefined");
  }, CHILD_TIMEOUT_MS);

  it("should run the CommonJS example with plain node", async () => {
    const { stdout } = await run(process.execPath, ["cjs-scripted.js"], { cwd: cjs, timeout: CHILD_TIMEOUT_MS, env: cleanEnv() });
    expect(stdout).toBe("completed\nHello from CommonJS.\n");
  }, CHILD_TIMEOUT_MS);

  it("should typecheck the TypeScript examples with skipLibCheck: false (the shipped .d.ts and the types they import)", async () => {
    const result = await run(process.execPath, [TSC, "-p", "tsconfig.json"], { cwd: esm, timeout: CHILD_TIMEOUT_MS }).catch(
      (error: { stdout?: string; code?: number }) => ({ stdout: error.stdout ?? String(error), failed: true }),
    );
    expect(result.stdout).toBe("");
  }, CHILD_TIMEOUT_MS);
});
