/**
 * `npx tsx scripts/measure-types.ts [--zod 3|4] [--runs N] [--lib L] [--floor] [--keep]`: what
 * loopchart's types cost a user who type-checks with `skipLibCheck: false` (issue 29 item 8).
 *
 * Packs the package (`npm pack` runs the build), installs the tarball with zod
 * (`--zod 4`, the default, or `--zod 3` for zod@3.25.76) and `@types/node@20` into an
 * empty ESM project in a temp dir, writes the README's scripted example
 * (`<!-- readme-example: esm-scripted.ts -->`) there and runs
 * `tsc --extendedDiagnostics` on it `--runs` times (default 3): strict, `module: nodenext`,
 * `skipLibCheck: false`, no `lib` (so TypeScript's default for the target, DOM included;
 * `--lib es2023` sets it as a Node project's base config, `@tsconfig/node20`, does). Prints the files, type instantiations, memory and the median of
 * the times tsc reports, with the targets (≤ 3 s total, ≤ 400 MB), and exits 1 when the
 * example does not type-check.
 *
 * `--floor` also checks, in the same project and the same way, an example of the same shape
 * that imports only zod and uses Node's globals (what any zod user with `@types/node` pays
 * before importing loopchart) and prints its figures beside the example's, with the
 * difference: what loopchart's declarations cost.
 *
 * Times depend on the machine and its load (the script prints the load average); files,
 * instantiations and memory do not. `--keep` leaves the project in place and prints its path.
 */
import { execFileSync, spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { loadavg, tmpdir } from "node:os";
import { join, resolve } from "node:path";

/** The targets of issue 29 item 8, for the README example on an idle machine. */
const TARGET_TOTAL_SECONDS = 3;
const TARGET_MEMORY_MB = 400;
const DEFAULT_RUNS = 3;
const ZOD_VERSIONS: Readonly<Record<string, string>> = { "3": "zod@3.25.76", "4": "zod@4" };
const EXAMPLE_FILE = "esm-scripted.ts";
const FLOOR_FILE = "floor.ts";
/** The README example's shape without loopchart: a zod schema, its inferred type, a signal, a loop over async results. */
const FLOOR_EXAMPLE = `import { z } from "zod";

const parameters = z.object({ city: z.string(), days: z.number().int() });
type Args = z.infer<typeof parameters>;
async function* forecasts(calls: Args[], signal: AbortSignal): AsyncGenerator<string> {
  for (const { city, days } of calls) if (!signal.aborted) yield \`\${city}: sunny for \${days} days\`;
}
const calls = [parameters.parse({ city: "Oslo", days: 3 })];
for await (const line of forecasts(calls, AbortSignal.timeout(60_000))) console.log(line, process.version);
`;
const GNU_TIME = "/usr/bin/time";
const REPO_ROOT = resolve(import.meta.dirname, "..");
const USAGE = "usage: npx tsx scripts/measure-types.ts [--zod 3|4] [--runs N] [--lib es2023,...] [--floor] [--keep]\n";

/** What tsc reported for one file list, times as medians over the runs. */
interface Figures {
  files: number;
  instantiations: number;
  memoryMb: number;
  checkSeconds: number;
  totalSeconds: number;
  cpuSeconds?: number;
  peakRssMb?: number;
  errors: string[];
}

const args = process.argv.slice(2);
const valueOf = (flag: string): string | undefined => {
  const index = args.indexOf(flag);
  return index >= 0 ? (args[index + 1] ?? "") : undefined;
};
const zodSpec = ZOD_VERSIONS[valueOf("--zod") ?? "4"];
const runs = Number(valueOf("--runs") ?? DEFAULT_RUNS);
const known = new Set(["--zod", "--runs", "--lib", "--floor", "--keep"]);
const strayFlag = args.some((arg, i) => arg.startsWith("--") && (!known.has(arg) || (i > 0 && ["--zod", "--runs", "--lib"].includes(args[i - 1] ?? ""))));
if (zodSpec === undefined || !Number.isInteger(runs) || runs < 1 || strayFlag || valueOf("--lib") === "") {
  process.stderr.write(USAGE);
  process.exit(2);
}
const keep = args.includes("--keep");
const lib = valueOf("--lib");
const floor = args.includes("--floor");

const readme = readFileSync(join(REPO_ROOT, "README.md"), "utf8");
const marker = `<!-- readme-example: ${EXAMPLE_FILE} -->`;
const example = /```\w*\n([\s\S]*?)```/.exec(readme.slice(readme.indexOf(marker)))?.[1];
if (!readme.includes(marker) || example === undefined) {
  process.stderr.write(`README.md has no ${marker} block\n`);
  process.exit(1);
}

const median = (values: number[]): number => {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? (sorted[middle] ?? Number.NaN) : ((sorted[middle - 1] ?? 0) + (sorted[middle] ?? 0)) / 2;
};

/**
 * Runs tsc `runs` times on each of `tsconfigs` in `dir`, taking turns (so that a change in the
 * machine's load falls on all of them alike), and takes the median of each figure.
 */
function measure(dir: string, tsconfigs: string[]): Figures[] {
  const tsc = join(REPO_ROOT, "node_modules/typescript/bin/tsc");
  // GNU time, when installed, adds tsc's CPU seconds (less sensitive to a busy machine than wall time) and peak RSS.
  const timed = existsSync(GNU_TIME);
  const command = timed ? GNU_TIME : process.execPath;
  const samplesOf: Figures[][] = tsconfigs.map(() => []);
  for (let run = 0; run < runs; run++) {
    for (const [index, tsconfig] of tsconfigs.entries()) {
      samplesOf[index]?.push(runTsc(dir, [...(timed ? ["-f", "cpu %U %S rss %M", process.execPath] : []), tsc, "-p", tsconfig, "--extendedDiagnostics"], command));
    }
  }
  return samplesOf.map(medianOf);
}

/** One tsc run's figures. */
function runTsc(dir: string, commandArgs: string[], command: string): Figures {
  const result = spawnSync(command, commandArgs, { cwd: dir, encoding: "utf8" });
  const output = result.stdout ?? String(result.error);
  const figure = (label: string): number => Number.parseFloat(new RegExp(`^${label}:\\s+([\\d.]+)`, "m").exec(output)?.[1] ?? "NaN");
  const usage = /cpu ([\d.]+) ([\d.]+) rss (\d+)/.exec(result.stderr ?? "");
  return {
    files: figure("Files"),
    instantiations: figure("Instantiations"),
    memoryMb: figure("Memory used") / 1024,
    checkSeconds: figure("Check time"),
    totalSeconds: figure("Total time"),
    ...(usage ? { cpuSeconds: Number(usage[1]) + Number(usage[2]), peakRssMb: Number(usage[3]) / 1024 } : {}),
    errors: result.status === 0 ? [] : output.split("\n").filter((line) => line.includes("error TS")).concat(result.status === null ? ["tsc did not finish"] : []),
  };
}

/** The median of each figure over `samples`, and every error any of them saw. */
function medianOf(samples: Figures[]): Figures {
  const of = (pick: (sample: Figures) => number | undefined): number => median(samples.map((sample) => pick(sample) ?? Number.NaN));
  return {
    files: of((s) => s.files),
    instantiations: of((s) => s.instantiations),
    memoryMb: of((s) => s.memoryMb),
    checkSeconds: of((s) => s.checkSeconds),
    totalSeconds: of((s) => s.totalSeconds),
    ...(samples[0]?.cpuSeconds !== undefined ? { cpuSeconds: of((s) => s.cpuSeconds), peakRssMb: of((s) => s.peakRssMb) } : {}),
    errors: samples.flatMap((sample) => sample.errors).filter((line, i, all) => all.indexOf(line) === i),
  };
}

function writeProject(dir: string, name: string, file: string): string {
  const tsconfig = `tsconfig.${name}.json`;
  writeFileSync(
    join(dir, tsconfig),
    JSON.stringify({
      compilerOptions: {
        strict: true, module: "nodenext", moduleResolution: "nodenext", target: "es2022", skipLibCheck: false, noEmit: true,
        ...(lib !== undefined ? { lib: lib.split(",") } : {}),
      },
      files: [file],
    }),
  );
  return tsconfig;
}

/** The report's rows: label, how to show a figure, and the target line when there is one. */
const ROWS: ReadonlyArray<[string, (f: Figures) => number | undefined, (n: number) => string, string]> = [
  ["files", (f) => f.files, (n) => n.toFixed(0), ""],
  ["instantiations", (f) => f.instantiations, (n) => n.toFixed(0), ""],
  ["memory", (f) => f.memoryMb, (n) => `${n.toFixed(0)} MB`, `target ≤ ${TARGET_MEMORY_MB} MB`],
  ["check time", (f) => f.checkSeconds, (n) => `${n.toFixed(2)} s`, ""],
  ["total time", (f) => f.totalSeconds, (n) => `${n.toFixed(2)} s`, `target ≤ ${TARGET_TOTAL_SECONDS} s on an idle machine`],
  ["cpu time", (f) => f.cpuSeconds, (n) => `${n.toFixed(2)} s`, ""],
  ["peak RSS", (f) => f.peakRssMb, (n) => `${n.toFixed(0)} MB`, ""],
];

function report(ours: Figures, floorFigures: Figures | undefined): string {
  const width = 16;
  const head = floorFigures
    ? `${"".padEnd(width)}${"example".padStart(12)}${"floor".padStart(12)}${"loopchart".padStart(12)}`
    : undefined;
  const lines = ROWS.flatMap(([label, pick, show, target]) => {
    const value = pick(ours);
    if (value === undefined || Number.isNaN(value)) return [];
    const cells = floorFigures
      ? [show(value).padStart(12), show(pick(floorFigures) ?? Number.NaN).padStart(12), show(value - (pick(floorFigures) ?? Number.NaN)).padStart(12)]
      : [show(value)];
    return [`${`${label}:`.padEnd(width)}${cells.join("")}${target ? `  (${target})` : ""}`];
  });
  return [...(head ? [head] : []), ...lines].join("\n");
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
  writeFileSync(join(dir, FLOOR_FILE), FLOOR_EXAMPLE);
  const [load1, load5] = loadavg();
  const [ours, floorFigures] = measure(dir, [writeProject(dir, "example", EXAMPLE_FILE), ...(floor ? [writeProject(dir, "floor", FLOOR_FILE)] : [])]) as [Figures, Figures?];
  process.stdout.write(
    `README example ${EXAMPLE_FILE}${floor ? ` beside the floor (${FLOOR_FILE}: zod and Node's globals only)` : ""}, ${zodSpec}, skipLibCheck: false, lib: ${lib ?? "the default (DOM included)"}\n` +
      `median of ${runs} run${runs === 1 ? "" : "s"}${floor ? " each, taking turns" : ""}; load average ${load1?.toFixed(2)} (1 min), ${load5?.toFixed(2)} (5 min) before the first\n` +
      `${report(ours, floorFigures)}\n`,
  );
  if (ours.errors.length > 0) {
    process.stdout.write(`the example does not type-check:\n${ours.errors.join("\n")}\n`);
    process.exitCode = 1;
  }
  if (floorFigures && floorFigures.errors.length > 0) {
    process.stdout.write(`the floor example does not type-check:\n${floorFigures.errors.join("\n")}\n`);
    process.exitCode = 1;
  }
  if (keep) process.stdout.write(`project kept in ${dir} (tsconfig.example.json, tsconfig.floor.json)\n`);
} finally {
  if (!keep) rmSync(dir, { recursive: true, force: true });
}
