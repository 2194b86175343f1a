/**
 * The built-in directory walk behind `grep` and `find`: depth first, entries sorted by
 * name, hidden files included, `.git` skipped, `.gitignore` and `.ignore` rules applied
 * the way ripgrep and fd apply them (`.gitignore` only inside a git repository, rules of
 * parent directories included, a directory that is ignored is not entered).
 */
import { dirname, join, relative, sep } from "node:path";
import ignore, { type Ignore } from "ignore";
import { throwIfAborted } from "./abort.js";
import type { FileSystemOperations } from "./file-system-operations.js";

/** One entry the walk found. */
export interface WalkEntry {
  /** Relative to the walk's root, `/`-separated, no trailing slash. */
  path: string;
  isDirectory: boolean;
  isSymbolicLink: boolean;
}

/** File access the walk needs. */
export type WalkOperations = Pick<FileSystemOperations, "readdir" | "readFile" | "exists">;

interface IgnoreLayer {
  base: string;
  rules: Ignore;
}

const GIT_DIR = ".git";

function toPosix(path: string): string {
  return sep === "/" ? path : path.split(sep).join("/");
}

async function loadRules(fs: WalkOperations, dir: string, names: string[]): Promise<IgnoreLayer[]> {
  const layers: IgnoreLayer[] = [];
  for (const name of names) {
    try {
      const text = (await fs.readFile(join(dir, name))).toString("utf8");
      layers.push({ base: dir, rules: ignore({ allowRelativePaths: true }).add(text) });
    } catch {
      // No such file: nothing to add.
    }
  }
  return layers;
}

/** Ignore rules of the directories above `root`, outermost first, and whether `root` lies in a git repository. */
async function parentLayers(fs: WalkOperations, root: string): Promise<{ layers: IgnoreLayer[]; inRepo: boolean }> {
  const ancestors: string[] = [];
  for (let dir = dirname(root); ; dir = dirname(dir)) {
    ancestors.unshift(dir);
    if (dirname(dir) === dir) break;
  }
  let repoIndex = -1;
  if (await fs.exists(join(root, GIT_DIR))) repoIndex = ancestors.length;
  else {
    for (let i = ancestors.length - 1; i >= 0; i--) {
      if (await fs.exists(join(ancestors[i], GIT_DIR))) {
        repoIndex = i;
        break;
      }
    }
  }
  const layers: IgnoreLayer[] = [];
  for (let i = 0; i < ancestors.length; i++) {
    const inRepo = repoIndex !== -1 && i >= repoIndex;
    layers.push(...(await loadRules(fs, ancestors[i], inRepo ? [".gitignore", ".ignore"] : [".ignore"])));
  }
  return { layers, inRepo: repoIndex !== -1 };
}

function isIgnored(layers: IgnoreLayer[], absolute: string, isDirectory: boolean): boolean {
  let ignored = false;
  for (const layer of layers) {
    const rel = toPosix(relative(layer.base, absolute));
    const result = layer.rules.test(isDirectory ? `${rel}/` : rel);
    if (result.ignored) ignored = true;
    else if (result.unignored) ignored = false;
  }
  return ignored;
}

/**
 * Lists everything under `root` (not `root` itself) that the ignore rules let through,
 * depth first with each directory's entries sorted by name. Symbolic links are listed
 * but not followed. Throws `Operation aborted` when `signal` fires.
 */
export async function walkTree(fs: WalkOperations, root: string, signal?: AbortSignal): Promise<WalkEntry[]> {
  const { layers, inRepo } = await parentLayers(fs, root);
  const out: WalkEntry[] = [];
  const visit = async (dir: string, rel: string, inherited: IgnoreLayer[], repo: boolean): Promise<void> => {
    throwIfAborted(signal);
    const entries = await fs.readdir(dir).catch(() => []);
    const hereRepo = repo || entries.some((e) => e.name === GIT_DIR);
    const own = await loadRules(fs, dir, hereRepo ? [".gitignore", ".ignore"] : [".ignore"]);
    const active = own.length > 0 ? [...inherited, ...own] : inherited;
    entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    for (const entry of entries) {
      if (entry.name === GIT_DIR) continue;
      const absolute = join(dir, entry.name);
      if (isIgnored(active, absolute, entry.isDirectory)) continue;
      const path = rel === "" ? entry.name : `${rel}/${entry.name}`;
      out.push({ path, isDirectory: entry.isDirectory, isSymbolicLink: entry.isSymbolicLink });
      if (entry.isDirectory) await visit(absolute, path, active, hereRepo);
    }
  };
  await visit(root, "", layers, inRepo);
  return out;
}

/** Orders `/`-separated paths the way a depth-first, name-sorted walk lists them. */
export function comparePaths(a: string, b: string): number {
  const pa = a.split("/");
  const pb = b.split("/");
  for (let i = 0; i < Math.min(pa.length, pb.length); i++) {
    if (pa[i] !== pb[i]) return pa[i] < pb[i] ? -1 : 1;
  }
  return pa.length - pb.length;
}
