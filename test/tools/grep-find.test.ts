import { execFileSync } from "node:child_process";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createFindTool, createGrepTool, findFd, findRipgrep, type SearchBackend } from "../../tools/index.js";
import { createTempWorkspace, type TempWorkspace } from "../helpers/temp-workspace.js";

const rg = findRipgrep();
const fd = findFd();

let ws: TempWorkspace;
beforeAll(() => {
  ws = createTempWorkspace({
    ".gitignore": "ignored/\n*.log\n",
    "src/app.ts": "import x from './x';\nexport const TODO = 1; // TODO: refine\nconst y = 2;\nconst z = 3;\n// todo lower\n",
    "src/util/helpers.ts": "export function helper() {\n  return 'TODO later';\n}\n",
    "src/util/.gitignore": "generated.ts\n",
    "src/util/generated.ts": "TODO generated\n",
    "src/-dash.ts": "--flag TODO\n",
    ".hidden/conf.txt": "TODO hidden\n",
    "ignored/skip.ts": "TODO ignored\n",
    "debug.log": "TODO log\n",
    "docs/readme.md": "# Title\nTODO: docs\n",
    "long.txt": "TODO " + "L".repeat(800) + "\n",
    "bin.dat": Buffer.concat([Buffer.from("TODO\0binary\n")]),
    "empty/.keep": "",
  });
  execFileSync("git", ["init", "-q", ws.dir]);
});
afterAll(() => ws.cleanup());

const text = (r: { content: { type: string; text?: string }[] }): string => r.content.map((c) => c.text ?? "").join("");

async function grep(backend: SearchBackend, args: Parameters<ReturnType<typeof createGrepTool>["execute"]>[1]): Promise<string> {
  return text(await createGrepTool(ws.dir, { backend }).execute("t", args));
}
async function find(backend: SearchBackend, args: Parameters<ReturnType<typeof createFindTool>["execute"]>[1]): Promise<string> {
  return text(await createFindTool(ws.dir, { backend }).execute("t", args));
}

const grepCases: { name: string; args: Parameters<ReturnType<typeof createGrepTool>["execute"]>[1] }[] = [
  { name: "a plain pattern", args: { pattern: "TODO" } },
  { name: "ignoreCase", args: { pattern: "todo", ignoreCase: true } },
  { name: "literal with regex characters", args: { pattern: "./x'", literal: true } },
  { name: "a glob", args: { pattern: "TODO", glob: "*.ts" } },
  { name: "a path glob", args: { pattern: "TODO", glob: "src/**/*.ts" } },
  { name: "context lines", args: { pattern: "const y", context: 1 } },
  { name: "a match limit", args: { pattern: "TODO", limit: 2 } },
  { name: "a pattern that looks like an option", args: { pattern: "--flag" } },
  { name: "a single file", args: { pattern: "const", path: "src/app.ts" } },
  { name: "no match", args: { pattern: "NOTHING_MATCHES_THIS" } },
];

describe("grep (built-in path)", () => {
  it("prints file:line: text, respects .gitignore, includes hidden files, skips binaries and caps long lines", async () => {
    expect(await grep("builtin", { pattern: "TODO" })).toBe(
      [
        ".hidden/conf.txt:1: TODO hidden",
        "docs/readme.md:2: TODO: docs",
        `long.txt:1: TODO ${"L".repeat(495)}... [truncated]`,
        "src/-dash.ts:1: --flag TODO",
        "src/app.ts:2: export const TODO = 1; // TODO: refine",
        "src/util/helpers.ts:2:   return 'TODO later';",
        "",
        "[Some lines truncated to 500 chars. Use read to see full lines]",
      ].join("\n"),
    );
  });

  it("marks context lines file-line- text and merges overlapping context", async () => {
    expect(await grep("builtin", { pattern: "const (y|z)", context: 1 })).toBe(
      ["src/app.ts-2- export const TODO = 1; // TODO: refine", "src/app.ts:3: const y = 2;", "src/app.ts:4: const z = 3;", "src/app.ts-5- // todo lower"].join("\n"),
    );
  });

  it("says the match limit was reached and how to get more", async () => {
    expect(await grep("builtin", { pattern: "TODO", limit: 2 })).toBe(
      ".hidden/conf.txt:1: TODO hidden\ndocs/readme.md:2: TODO: docs\n\n[2 matches limit reached. Use limit=4 for more, or refine pattern]",
    );
  });

  it("says No matches found, and reports a missing path", async () => {
    expect(await grep("builtin", { pattern: "NOTHING_MATCHES_THIS" })).toBe("No matches found");
    await expect(grep("builtin", { pattern: "x", path: "nope" })).rejects.toThrow("Path not found: nope");
  });

  it("caps the output at 50 KB with a notice", async () => {
    const big = createTempWorkspace({ "many.txt": Array.from({ length: 3000 }, (_, i) => `match ${i} ${"p".repeat(40)}`).join("\n") });
    try {
      const out = text(await createGrepTool(big.dir, { backend: "builtin" }).execute("t", { pattern: "match", limit: 5000 }));
      expect(out.endsWith("\n\n[50.0KB limit reached]")).toBe(true);
      expect(Buffer.byteLength(out)).toBeLessThan(52 * 1024);
    } finally {
      big.cleanup();
    }
  });
});

describe.skipIf(!rg)(`grep through rg gives the built-in output${rg ? "" : " (skipped: rg is not installed)"}`, () => {
  for (const c of grepCases) {
    it(`same output for ${c.name}`, async () => {
      const external = await createGrepTool(ws.dir, { backend: "external" }).execute("t", c.args);
      expect(external.details.backend).toBe("ripgrep");
      expect(text(external)).toBe(await grep("builtin", c.args));
    });
  }
});

const findCases: { name: string; args: Parameters<ReturnType<typeof createFindTool>["execute"]>[1] }[] = [
  { name: "a name glob", args: { pattern: "*.ts" } },
  { name: "a path glob", args: { pattern: "src/**/*.ts" } },
  { name: "directories", args: { pattern: "*" } },
  { name: "a subdirectory", args: { pattern: "*.ts", path: "src" } },
  { name: "a limit", args: { pattern: "*", limit: 3 } },
  { name: "no match", args: { pattern: "*.nothing" } },
];

describe("find (built-in path)", () => {
  it("lists relative paths with /, directories ending in /, respecting .gitignore and including hidden files", async () => {
    expect(await find("builtin", { pattern: "*" })).toBe(
      [".gitignore", ".hidden/", ".hidden/conf.txt", "bin.dat", "docs/", "docs/readme.md", "empty/", "empty/.keep", "long.txt", "src/", "src/-dash.ts", "src/app.ts", "src/util/", "src/util/.gitignore", "src/util/helpers.ts"].join("\n"),
    );
  });

  it("matches a path glob against the relative path", async () => {
    expect(await find("builtin", { pattern: "src/**/*.ts" })).toBe("src/-dash.ts\nsrc/app.ts\nsrc/util/helpers.ts");
  });

  it("says the limit was reached, and No files found matching pattern", async () => {
    expect(await find("builtin", { pattern: "*", limit: 2 })).toBe(".gitignore\n.hidden/\n\n[2 results limit reached. Use limit=4 for more, or refine pattern]");
    expect(await find("builtin", { pattern: "*.nothing" })).toBe("No files found matching pattern");
  });
});

describe.skipIf(!fd)(`find through fd gives the built-in output${fd ? "" : " (skipped: fd/fdfind is not installed)"}`, () => {
  for (const c of findCases) {
    it(`same output for ${c.name}`, async () => {
      const external = await createFindTool(ws.dir, { backend: "external" }).execute("t", c.args);
      expect(external.details.backend).toBe("fd");
      expect(text(external)).toBe(await find("builtin", c.args));
    });
  }
});
