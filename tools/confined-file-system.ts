/**
 * File operations that cannot leave a root directory, even while another process swaps
 * a directory on the way for a symbolic link. A path is never handed to the kernel
 * whole: it is walked one component at a time from an open descriptor of the root, each
 * component opened with `O_NOFOLLOW` through `/proc/self/fd/N/<name>` (what `openat(2)`
 * does), a symbolic link met on the way is followed only when its target lies inside
 * the root (then the walk starts again from the root), and the operation acts on the
 * descriptor it checked. What was checked is what is opened, so no race can escape.
 *
 * It needs `/proc/self/fd` (Linux). Elsewhere {@link fileSystemFor} falls back to the
 * path check of `resolveToolPath`, which a concurrent swap can race.
 */
import { constants, existsSync, type Stats } from "node:fs";
import { lstat, mkdir, open, readdir, readlink, realpath, rename, unlink, type FileHandle } from "node:fs/promises";
import { isAbsolute, join, posix, relative, resolve, sep } from "node:path";
import { fileReader, hasErrorCode, localFileSystem, type FileEntry, type FileStat, type FileSystemOperations } from "./file-system-operations.js";
import { PathOutsideRootError } from "./path-outside-root-error.js";
import type { PathOptions } from "./resolve-path.js";

/** Where the kernel shows this process's open descriptors as paths. */
const PROC_FD = "/proc/self/fd";
/** Most symbolic links followed (or walks restarted after a concurrent swap) for one path, as the kernel's own limit. */
export const MAX_SYMLINK_HOPS = 40;
const DEFAULT_FILE_MODE = 0o666;
const { O_RDONLY, O_WRONLY, O_CREAT, O_TRUNC, O_APPEND, O_DIRECTORY, O_NOFOLLOW, O_NONBLOCK } = constants;

/** Returned by a step of {@link ConfinedRoot.at} to say: the last component is a symbolic link; follow it. */
const FOLLOW = Symbol("follow");
type Step<T> = (target: string) => Promise<T | typeof FOLLOW>;

/** True when this platform shows open descriptors under `/proc/self/fd`, which confinement by descriptor needs. */
export function supportsDescriptorConfinement(): boolean {
  return existsSync(PROC_FD);
}

function loopError(path: string): Error {
  return Object.assign(new Error(`Too many levels of symbolic links: ${path}`), { code: "ELOOP" });
}

function toStat(s: Stats): FileStat & { isSymbolicLink: boolean } {
  return { isFile: s.isFile(), isDirectory: s.isDirectory(), isSymbolicLink: s.isSymbolicLink(), size: s.size, mode: s.mode & 0o7777, mtimeMs: s.mtimeMs };
}

/** Thrown inside a walk when a component changed between two looks at it: the walk starts over. */
class ChangedDuringWalk extends Error {}

/**
 * True when opening `target` with `O_NOFOLLOW` failed because it is a symbolic link.
 * Throws {@link ChangedDuringWalk} when the refusal came from a link that is no longer
 * there (another process swapped it meanwhile).
 */
async function isLinkRefusal(error: unknown, target: string): Promise<boolean> {
  if (!hasErrorCode(error, "ELOOP") && !hasErrorCode(error, "ENOTDIR") && !hasErrorCode(error, "EMLINK")) return false;
  const s = await lstat(target).catch(() => undefined);
  if (s === undefined) throw new ChangedDuringWalk();
  if (s.isSymbolicLink()) return true;
  if (hasErrorCode(error, "ENOTDIR") && !s.isDirectory()) return false;
  throw new ChangedDuringWalk();
}

/** The target of the link `target`; {@link ChangedDuringWalk} when it stopped being a link. */
async function linkTarget(target: string): Promise<string> {
  try {
    return await readlink(target);
  } catch (error) {
    if (hasErrorCode(error, "EINVAL") || hasErrorCode(error, "ENOENT")) throw new ChangedDuringWalk();
    throw error;
  }
}

/** One root and the walk that keeps every operation inside it. */
class ConfinedRoot {
  private realRoot: Promise<string> | undefined;

  constructor(private readonly root: string) {}

  private real(): Promise<string> {
    this.realRoot ??= realpath(this.root);
    return this.realRoot;
  }

  /** `path`'s components below the root; throws when `path` is not inside it. */
  private componentsOf(path: string, realRoot: string): string[] {
    const absolute = resolve(this.root, path);
    for (const base of [this.root, realRoot]) {
      const rel = relative(base, absolute);
      if (rel === "") return [];
      if (!rel.startsWith(`..${sep}`) && rel !== ".." && !isAbsolute(rel)) return rel.split(sep);
    }
    throw new PathOutsideRootError(path, this.root, "path");
  }

  /** The components a symbolic link in directory `dirParts` pointing to `target` leads to, followed by `rest`. */
  private followLink(requested: string, dirParts: string[], target: string, rest: string[], realRoot: string): string[] {
    let base: string[];
    if (isAbsolute(target)) {
      try {
        base = this.componentsOf(target, realRoot);
      } catch {
        throw new PathOutsideRootError(requested, this.root, "symlink");
      }
    } else {
      const joined = posix.normalize([...dirParts, target.split(sep).join("/")].join("/"));
      if (joined === ".." || joined.startsWith("../")) throw new PathOutsideRootError(requested, this.root, "symlink");
      base = joined === "." ? [] : joined.split("/");
    }
    return [...base, ...rest].filter((part) => part !== "" && part !== ".");
  }

  /** Opens directory `name` inside the open directory `dir` without following a link; creates it when asked. */
  private async openDirectory(dir: FileHandle, name: string, create: boolean): Promise<FileHandle | { link: string }> {
    const target = `${PROC_FD}/${dir.fd}/${name}`;
    try {
      return await open(target, O_RDONLY | O_DIRECTORY | O_NOFOLLOW);
    } catch (error) {
      if (await isLinkRefusal(error, target)) return { link: await linkTarget(target) };
      if (!create || !hasErrorCode(error, "ENOENT")) throw error;
    }
    await mkdir(target).catch((error: unknown) => {
      if (!hasErrorCode(error, "EEXIST")) throw error;
    });
    return this.openDirectory(dir, name, false);
  }

  /**
   * Walks to `path`'s parent directory inside the root and runs `step` on the descriptor
   * path of its last component (`<root>/.` when `path` is the root). When `step`
   * answers {@link FOLLOW}, the link there is followed if it stays inside the root.
   * Throws {@link PathOutsideRootError} for a path or link that leaves the root.
   */
  async at<T>(path: string, step: Step<T>, createDirectories = false): Promise<T> {
    const realRoot = await this.real();
    let parts = this.componentsOf(path, realRoot);
    for (let hops = 0; ; hops++) {
      if (hops > MAX_SYMLINK_HOPS) throw loopError(path);
      const opened: FileHandle[] = [await open(realRoot, O_RDONLY | O_DIRECTORY)];
      try {
        let next: string[] | undefined;
        for (let i = 0; i < parts.length - 1 && next === undefined; i++) {
          const dir = await this.openDirectory(opened[opened.length - 1], parts[i], createDirectories);
          if ("link" in dir) next = this.followLink(path, parts.slice(0, i), dir.link, parts.slice(i + 1), realRoot);
          else opened.push(dir);
        }
        if (next === undefined) {
          const dirPath = `${PROC_FD}/${opened[opened.length - 1].fd}`;
          const last = parts[parts.length - 1];
          // The root itself is reached as "<root descriptor>/.": the descriptor path alone is a (magic) link.
          const target = `${dirPath}/${last ?? "."}`;
          const result = await step(target);
          if (result !== FOLLOW) return result;
          next = this.followLink(path, parts.slice(0, -1), await linkTarget(target), [], realRoot);
        }
        parts = next;
      } catch (error) {
        if (!(error instanceof ChangedDuringWalk)) throw error;
        // A component was swapped between two looks: walk the same path again.
      } finally {
        await Promise.all(opened.map((handle) => handle.close()));
      }
    }
  }
}

/** Opens `target` (a descriptor path) with `O_NOFOLLOW`; answers {@link FOLLOW} when it is a link. */
async function openNoFollow(target: string, flags: number, mode?: number): Promise<FileHandle | typeof FOLLOW> {
  try {
    return await open(target, flags | O_NOFOLLOW, mode);
  } catch (error) {
    if (await isLinkRefusal(error, target)) return FOLLOW;
    throw error;
  }
}

async function withOpened<T>(target: string, flags: number, use: (handle: FileHandle) => Promise<T>, mode?: number): Promise<T | typeof FOLLOW> {
  const handle = await openNoFollow(target, flags, mode);
  if (handle === FOLLOW) return FOLLOW;
  try {
    return await use(handle);
  } finally {
    await handle.close();
  }
}

/**
 * {@link FileSystemOperations} on the local disk that act only inside `root`, race-free
 * (see the module comment). A path or symbolic link leading outside is refused with a
 * {@link PathOutsideRootError}; links inside the root are followed.
 */
export function createConfinedFileSystem(root: string): FileSystemOperations {
  const confined = new ConfinedRoot(resolve(root));
  const statAt = (path: string, followLast: boolean): Promise<FileStat & { isSymbolicLink: boolean }> =>
    confined.at(path, async (target) => {
      const s = await lstat(target);
      return followLast && s.isSymbolicLink() ? FOLLOW : toStat(s);
    });
  const fs: FileSystemOperations = {
    readFile: (path) => confined.at(path, (target) => withOpened(target, O_RDONLY | O_NONBLOCK, (handle) => handle.readFile())),
    openRead: (path) =>
      confined.at(path, async (target) => {
        const handle = await openNoFollow(target, O_RDONLY | O_NONBLOCK);
        return handle === FOLLOW ? FOLLOW : fileReader(handle);
      }),
    writeFile: (path, data, mode) =>
      confined.at(path, (target) => withOpened(target, O_WRONLY | O_CREAT | O_TRUNC, (handle) => handle.writeFile(data), mode ?? DEFAULT_FILE_MODE)),
    appendFile: (path, data) => confined.at(path, (target) => withOpened(target, O_WRONLY | O_APPEND, (handle) => handle.writeFile(data))),
    rename: (from, to) => confined.at(from, (source) => confined.at(to, (destination) => rename(source, destination))),
    mkdir: (path) =>
      confined.at(
        path,
        async (target) => {
          try {
            await mkdir(target);
            return undefined;
          } catch (error) {
            if (!hasErrorCode(error, "EEXIST")) throw error;
            const s = await lstat(target);
            if (s.isSymbolicLink()) return FOLLOW;
            if (!s.isDirectory()) throw error;
            return undefined;
          }
        },
        true,
      ),
    stat: (path) => statAt(path, true).then(({ isSymbolicLink: _link, ...s }) => s),
    lstat: (path) => statAt(path, false),
    readdir: (path) =>
      confined.at(path, (target) =>
        withOpened(target, O_RDONLY | O_DIRECTORY, async (handle): Promise<FileEntry[]> => {
          const entries = await readdir(`${PROC_FD}/${handle.fd}`, { withFileTypes: true });
          return entries.map((e) => ({ name: e.name, isFile: e.isFile(), isDirectory: e.isDirectory(), isSymbolicLink: e.isSymbolicLink() }));
        }),
      ),
    realpath: (path) =>
      confined.at(path, async (target) => {
        const s = await lstat(target);
        if (s.isSymbolicLink()) return FOLLOW;
        const slash = target.lastIndexOf("/");
        const [dir, name] = [target.slice(0, slash), target.slice(slash + 1)];
        const real = await readlink(dir);
        return name === "." ? real : join(real, name);
      }),
    unlink: (path) => confined.at(path, (target) => unlink(target)),
    exists: async (path) =>
      fs.stat(path).then(
        () => true,
        () => false,
      ),
  };
  return fs;
}

/**
 * The operations a tool uses when its options give none: with `confine` or `root` set
 * (and `/proc/self/fd` available), {@link createConfinedFileSystem} on the root;
 * otherwise the plain local disk.
 */
export function fileSystemFor(cwd: string, options: PathOptions): FileSystemOperations {
  if (!options.confine && options.root === undefined) return localFileSystem;
  if (!supportsDescriptorConfinement()) return localFileSystem;
  return createConfinedFileSystem(resolve(cwd, options.root ?? cwd));
}
