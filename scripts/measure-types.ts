/**
 * `npx tsx scripts/measure-types.ts [--zod 3|4] [--keep]`: what loopchart's types cost a
 * user who type-checks with `skipLibCheck: false` (issue 29 item 8).
 *
 * Packs the package (`npm pack` runs the build), installs the tarball with zod
 * (`--zod 4`, the default, or `--zod 3` for zod@3.25.76) and `@types/node@20` into an
 * empty ESM project in a temp dir, writes the README's scripted example
 * (`<!-- readme-example: esm-scripted.ts -->`) there and runs
 * `tsc --extendedDiagnostics` on it: strict, `module: nodenext`, `skipLibCheck: false`.
 * Prints the files, type instantiations, memory and times tsc reports, with the
 * targets (≤ 3 s total, ≤ 400 MB), and exits 1 when the example does not type-check.
 * Times depend on the machine and its load; files, instantiations and memory do not.
 * `--keep` leaves the project in place and prints its path.
 */
import { execFileSync, spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";

/** The targets of issue 29 item 8, for the README example on an idle machine. */
const TARGET_TOTAL_SECONDS = 3;
const TARGET_MEMORY_MB = 400;
const ZOD_VERSIONS: Readonly<Record<string, string>> = { "3": "zod@3.25.76", "4": "zod@4" };
const EXAMPLE_FILE = "esm-scripted.ts";
const GNU_TIME = "/usr/bin/time";
const REPO_ROOT = resolve(import.meta.dirname, "..");

const args = process.argv.slice(2);
const zodIndex = args.indexOf("--zod");
const zodMajor = zodIndex >= 0 ? (args[zodIndex + 1] ?? "") : "4";
const zodSpec = ZOD_VERSIONS[zodMajor];
if (zodSpec === undefined || args.some((arg, i) => arg.startsWith("--") && arg !== "--zod" && arg !== "--keep" && i !== zodIndex + 1)) {
  process.stderr.write("usage: npx tsx scripts/measure-types.ts [--zod 3|4] [--keep]\n");
  process.exit(2);
}
const keep = args.includes("--keep");

const readme = readFileSync(join(REPO_ROOT, "README.md"), "utf8");
const marker = `<!-- readme-example: ${EXAMPLE_FILE} -->`;
const example = /```\w*\n([\s\S]*?)```/.exec(readme.slice(readme.indexOf(marker)))?.[1];
if (!readme.includes(marker) || example === undefined) {
  process.stderr.write(`README.md has no ${marker} block\n`);
  process.exit(1);
}

const dir = mkdtempSync(join(tmpdir(), "loopchart-types-"));
try {
  const packed = execFileSync("npm", ["pack", "--json", "--ignore-scripts=false", "--pack-destination", dir], {
    cwd: REPO_ROOT, encoding: "utf8", stdio: ["ignore", "pipe", "inherit"], maxBuffer: 64 * 1024 * 1024,
  });
  const [{ filename }] = JSON.parse(packed.slice(packed.indexOf("["))) as [{ filename: string }];
  writeFileSync(join(dir, "package.json"), JSON.stringify({ name: "measure-types", private: true, type: "module" }));
  execFileSync("npm", ["install", "--no-audit", "--no-fund", "--prefer-offline", join(dir, filename), zodSpec, "@types/node@20"], {
    cwd: dir, stdio: ["ignore", "ignore", "inherit"],
  });
  writeFileSync(join(dir, EXAMPLE_FILE), example);
  writeFileSync(
    join(dir, "tsconfig.json"),
    JSON.stringify({
      compilerOptions: { strict: true, module: "nodenext", moduleResolution: "nodenext", target: "es2022", skipLibCheck: false, noEmit: true },
      files: [EXAMPLE_FILE],
    }),
  );
  const tsc = join(REPO_ROOT, "node_modules/typescript/bin/tsc");
  // GNU time, when installed, adds tsc's CPU seconds (less sensitive to a busy machine than wall time) and peak RSS.
  const timed = existsSync(GNU_TIME);
  const command = timed ? GNU_TIME : process.execPath;
  const commandArgs = [...(timed ? ["-f", "cpu %U %S rss %M", process.execPath] : []), tsc, "-p", "tsconfig.json", "--extendedDiagnostics"];
  let output: string;
  let timing = "";
  let failed = false;
  try {
    const result = spawnSync(command, commandArgs, { cwd: dir, encoding: "utf8" });
    output = result.stdout;
    timing = result.stderr;
    failed = result.status !== 0;
  } catch (error) {
    output = String(error);
    failed = true;
  }
  const usage = /cpu ([\d.]+) ([\d.]+) rss (\d+)/.exec(timing);
  const figure = (label: string): string => new RegExp(`^${label}:\\s+(.+)$`, "m").exec(output)?.[1]?.trim() ?? "?";
  const totalSeconds = Number.parseFloat(figure("Total time"));
  const memoryMb = Number.parseInt(figure("Memory used"), 10) / 1024;
  const lines = [
    `README example ${EXAMPLE_FILE}, ${zodSpec}, skipLibCheck: false`,
    `files:          ${figure("Files")}`,
    `instantiations: ${figure("Instantiations")}`,
    `memory:         ${memoryMb.toFixed(0)} MB (target ≤ ${TARGET_MEMORY_MB} MB)`,
    `check time:     ${figure("Check time")}`,
    `total time:     ${totalSeconds.toFixed(2)} s (target ≤ ${TARGET_TOTAL_SECONDS} s on an idle machine)`,
    ...(usage ? [`cpu time:       ${(Number(usage[1]) + Number(usage[2])).toFixed(2)} s`, `peak RSS:       ${(Number(usage[3]) / 1024).toFixed(0)} MB`] : []),
  ];
  process.stdout.write(`${lines.join("\n")}\n`);
  if (failed) {
    const errors = output.split("\n").filter((line) => line.includes("error TS"));
    process.stdout.write(`the example does not type-check:\n${errors.join("\n")}\n`);
    process.exitCode = 1;
  }
  if (keep) process.stdout.write(`project kept in ${dir}\n`);
} finally {
  if (!keep) rmSync(dir, { recursive: true, force: true });
}
