/**
 * The README's embedding examples, run verbatim against the packed tarball installed
 * into fresh projects: an ESM project (`"type": "module"`, TypeScript run by tsx and
 * typechecked with `skipLibCheck: false`) and a CommonJS project (plain `node`), once
 * with zod 3 (3.25.76, the lowest of the peer range) and once with zod 4 beside it.
 * The examples are taken from README.md by their `<!-- readme-example: <file> -->`
 * markers, so editing the README changes what runs here.
 */
import { execFile } from "node:child_process";
import { mkdir, readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startScriptedServer } from "../support/scripted-server.js";
import { REPO_ROOT } from "../cli/spawn-cli.js";
import { childTmpDir, tempDir } from "../support/temp-dir.js";

const run = promisify(execFile);
/** Each child (pack, install, an example) is killed after this long, so a hang fails instead of blocking. */
const CHILD_TIMEOUT_MS = 240_000;
/** A test may first wait for its zod version's install, then run a child. */
const TEST_TIMEOUT_MS = 2 * CHILD_TIMEOUT_MS;
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

/** A clean environment: no API keys, no npm_config_* from the test runner; temp files go with this file's. */
function cleanEnv(extra: Record<string, string> = {}): Record<string, string> {
  const env: Record<string, string> = { NO_COLOR: "1", TMPDIR: childTmpDir() };
  for (const name of ["PATH", "HOME", "LANG"]) {
    const value = process.env[name];
    if (value !== undefined) env[name] = value;
  }
  return { ...env, ...extra };
}

/** The zod versions a user may install beside loopchart (its peer range), each tested in its own projects. */
const ZOD_SPECS = ["zod@3.25.76", "zod@4"] as const;

/** An install of the packed tarball with one zod version, with an ESM and a CommonJS project below it. */
interface Consumer {
  esm: string;
  cjs: string;
}

let root = "";
let tarball = "";
let examples = new Map<string, string>();
const consumers = new Map<string, Promise<Consumer>>();

beforeAll(async () => {
  examples = readmeExamples(await readFile(join(REPO_ROOT, "README.md"), "utf8"));
  root = await tempDir("loopchart-readme-");
  // `npm pack` runs prepack (the build), as `npm publish` does.
  const packed = await run("npm", ["pack", "--json", "--ignore-scripts=false", "--pack-destination", root], {
    cwd: REPO_ROOT, timeout: CHILD_TIMEOUT_MS, maxBuffer: 64 * 1024 * 1024,
  });
  const [{ filename }] = JSON.parse(packed.stdout.slice(packed.stdout.indexOf("["))) as [{ filename: string }];
  tarball = join(root, filename);
}, 600_000);

/** Installs the tarball with `zodSpec` once (the first test of that zod version waits for it). */
function consumer(zodSpec: string): Promise<Consumer> {
  let pending = consumers.get(zodSpec);
  if (pending === undefined) {
    pending = installConsumer(zodSpec);
    consumers.set(zodSpec, pending);
  }
  return pending;
}

async function installConsumer(zodSpec: string): Promise<Consumer> {
  const base = join(root, zodSpec.replace(/[^a-z0-9.]/gi, "-"));
  await mkdir(base);
  // One install serves both projects below it (Node and tsc look up the tree for node_modules);
  // each project's own package.json decides ESM or CommonJS.
  await writeFile(join(base, "package.json"), JSON.stringify({ name: "consumer", private: true }));
  await run("npm", ["install", "--no-audit", "--no-fund", "--prefer-offline", tarball, zodSpec, "@types/node@20"], {
    cwd: base, timeout: CHILD_TIMEOUT_MS, env: cleanEnv(),
  });
  const esm = join(base, "esm");
  const cjs = join(base, "cjs");
  await mkdir(esm);
  await mkdir(cjs);
  await writeFile(join(esm, "package.json"), JSON.stringify({ name: "consumer-esm", private: true, type: "module" }));
  await writeFile(join(cjs, "package.json"), JSON.stringify({ name: "consumer-cjs", private: true }));
  await writeFile(
    join(esm, "tsconfig.json"),
    JSON.stringify({
      compilerOptions: { strict: true, module: "nodenext", moduleResolution: "nodenext", target: "es2022", skipLibCheck: false, noUncheckedIndexedAccess: true, noEmit: true },
      include: ["*.ts"],
    }),
  );
  for (const [file, code] of examples) await writeFile(join(file.endsWith(".ts") ? esm : cjs, file), code);
  return { esm, cjs };
}

afterAll(async () => {
  await Promise.allSettled(consumers.values());
});

// esm-model-check.ts is type-checked with the others, not run: its exploration takes minutes.
it("should mark the four examples in README.md", () => {
  expect([...examples.keys()].sort()).toEqual(["cjs-scripted.js", "esm-model-check.ts", "esm-provider.ts", "esm-scripted.ts"]);
});

describe.each(ZOD_SPECS)("the README's embedding examples, installed from the packed tarball with %s", (zodSpec) => {
  it("should run the scripted example in an ESM project", async () => {
    const { esm } = await consumer(zodSpec);
    const { stdout } = await run(TSX, ["esm-scripted.ts"], { cwd: esm, timeout: CHILD_TIMEOUT_MS, env: cleanEnv() });
    expect(stdout.trim()).toBe("completed");
  }, TEST_TIMEOUT_MS);

  it("should run the provider example against an OpenAI-compatible server (Ollama's API) given by OLLAMA_BASE_URL", async () => {
    const { esm } = await consumer(zodSpec);
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
  }, TEST_TIMEOUT_MS);

  it("should print the provider example's errorMessage and exit 1 when no server answers", async () => {
    const { esm } = await consumer(zodSpec);
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
  }, TEST_TIMEOUT_MS);

  it("should run the CommonJS example with plain node", async () => {
    const { cjs } = await consumer(zodSpec);
    const { stdout } = await run(process.execPath, ["cjs-scripted.js"], { cwd: cjs, timeout: CHILD_TIMEOUT_MS, env: cleanEnv() });
    expect(stdout).toBe("completed\nHello from CommonJS.\n");
  }, TEST_TIMEOUT_MS);

  it("should typecheck the TypeScript examples with skipLibCheck: false (the shipped .d.ts and the types they import)", async () => {
    const { esm } = await consumer(zodSpec);
    const result = await run(process.execPath, [TSC, "-p", "tsconfig.json"], { cwd: esm, timeout: CHILD_TIMEOUT_MS }).catch(
      (error: { stdout?: string; code?: number }) => ({ stdout: error.stdout ?? String(error), failed: true }),
    );
    expect(result.stdout).toBe("");
  }, TEST_TIMEOUT_MS);

  // Issue 29 item 8: what a skipLibCheck: false user pays (scripts/measure-types.ts measures it).
  it("should load no XState, TypeBox, OpenTelemetry or @ai-sdk/provider-utils declarations through the main, providers, tools and mcp entries", async () => {
    const { esm } = await consumer(zodSpec);
    const dir = join(esm, "entries");
    await mkdir(dir);
    await writeFile(
      join(dir, "entries.ts"),
      ["", "/providers", "/tools", "/mcp"].map((entry, i) => `import * as entry${i} from "loopchart${entry}";\nconsole.log(entry${i});\n`).join(""),
    );
    await writeFile(join(dir, "tsconfig.json"), await readFile(join(esm, "tsconfig.json"), "utf8"));
    const { stdout } = await run(process.execPath, [TSC, "-p", "tsconfig.json", "--listFilesOnly"], { cwd: dir, timeout: CHILD_TIMEOUT_MS });
    const loaded = stdout.split("\n").filter((file) => file.includes("/node_modules/"));
    expect(loaded.some((file) => file.includes("/node_modules/loopchart/dist/tools/"))).toBe(true);
    expect(loaded.filter((file) => /\/node_modules\/(xstate|typebox|@sinclair\/typebox|@opentelemetry\/api|@ai-sdk\/provider-utils)\//.test(file))).toEqual([]);
    const { stdout: checked } = await run(process.execPath, [TSC, "-p", "tsconfig.json"], { cwd: dir, timeout: CHILD_TIMEOUT_MS }).catch(
      (error: { stdout?: string }) => ({ stdout: error.stdout ?? String(error) }),
    );
    expect(checked).toBe("");
  }, TEST_TIMEOUT_MS);
});
