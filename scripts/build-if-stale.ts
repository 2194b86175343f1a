/**
 * `npm start`'s build step: runs `npm run build --silent` only when something the build
 * reads changed since the last build this script ran (or there is no `dist/` yet), so a
 * second `npm start` starts the demo at once.
 *
 * The build's inputs are the files under src/, machines/, tools/, visualizations/ and
 * the build scripts and configs; the stamp is node_modules/.cache/loopchart/build-stamp
 * (`LOOPCHART_BUILD_STAMP` overrides it), touched after each successful build.
 * `--dry-run` only prints `stale: <newest input>` or `up to date` (exit 0 either way).
 */
import { execFileSync } from "node:child_process";
import { existsSync, mkdirSync, readdirSync, statSync, writeFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";

const REPO_ROOT = resolve(import.meta.dirname, "..");
const INPUT_DIRS = ["src", "machines", "tools", "visualizations"];
const INPUT_FILES = ["package.json", "package-lock.json", "tsconfig.json", "tsconfig.build.json", "scripts/build-viewer.ts"];
const STAMP = process.env.LOOPCHART_BUILD_STAMP ?? join(REPO_ROOT, "node_modules/.cache/loopchart/build-stamp");

/** The most recently modified input file and its mtime. */
function newestInput(): { path: string; mtimeMs: number } {
  let newest = { path: "", mtimeMs: 0 };
  const consider = (path: string) => {
    const { mtimeMs } = statSync(path);
    if (mtimeMs > newest.mtimeMs) newest = { path, mtimeMs };
  };
  const walk = (dir: string) => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      const path = join(dir, entry.name);
      if (entry.isDirectory()) walk(path);
      else if (entry.isFile()) consider(path);
    }
  };
  for (const dir of INPUT_DIRS) walk(join(REPO_ROOT, dir));
  for (const file of INPUT_FILES) if (existsSync(join(REPO_ROOT, file))) consider(join(REPO_ROOT, file));
  return newest;
}

const newest = newestInput();
const built = existsSync(join(REPO_ROOT, "dist/src/cli/main.js")) && existsSync(join(REPO_ROOT, "dist/viewer/index.html"));
const stale = !built || !existsSync(STAMP) || statSync(STAMP).mtimeMs < newest.mtimeMs;
if (process.argv.includes("--dry-run")) {
  process.stdout.write(stale ? `stale: ${built ? newest.path : "no dist/ yet"}\n` : "up to date\n");
} else if (stale) {
  execFileSync("npm", ["run", "build", "--silent"], { cwd: REPO_ROOT, stdio: "inherit" });
  mkdirSync(dirname(STAMP), { recursive: true });
  writeFileSync(STAMP, `${new Date().toISOString()}\n`);
}
