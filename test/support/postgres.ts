/**
 * A throwaway Postgres for tests: Debian's `initdb` + `pg_ctl` in a temp dir, listening on a
 * free loopback port with its socket in the same dir, stopped (and the dir removed) by `stop`.
 * initdb refuses to run as root, so as root every command runs as the `postgres` user, who
 * owns the temp dir.
 */
import { execFileSync } from "node:child_process";
import { chmodSync, chownSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";

export interface TestPostgres {
  /** `postgres://…@127.0.0.1:<port>/<database>` for the database created at start. */
  readonly url: string;
  readonly port: number;
  /** URL of another database on the same server (created on demand by `createDatabase`). */
  urlFor(database: string): string;
  createDatabase(name: string): void;
  /** Stops the server (fast shutdown) and removes its directory. */
  stop(): void;
}

const USER = "loopchart";

/** Finds a Postgres binary: on PATH, else under Debian's /usr/lib/postgresql/<major>/bin. */
export function postgresBinary(name: "initdb" | "pg_ctl" | "psql" | "createdb"): string | undefined {
  const root = "/usr/lib/postgresql";
  if (existsSync(root)) {
    const majors = readdirSync(root).sort((a, b) => Number(b) - Number(a));
    for (const major of majors) {
      const path = join(root, major, "bin", name);
      if (existsSync(path)) return path;
    }
  }
  try {
    return execFileSync("sh", ["-c", `command -v ${name}`], { encoding: "utf8" }).trim() || undefined;
  } catch {
    return undefined;
  }
}

/** True when initdb and pg_ctl are on this machine (tests skip, saying so, when not). */
export function hasPostgres(): boolean {
  return postgresBinary("initdb") !== undefined && postgresBinary("pg_ctl") !== undefined;
}

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const address = server.address();
      const port = typeof address === "object" && address ? address.port : 0;
      server.close(() => resolve(port));
    });
  });
}

function asOwner(command: string, args: string[]): string[] {
  const root = typeof process.getuid === "function" && process.getuid() === 0;
  return root ? ["runuser", "-u", "postgres", "--", command, ...args] : [command, ...args];
}

function run(command: string, args: string[]): string {
  const [file, ...rest] = asOwner(command, args);
  return execFileSync(file!, rest, { encoding: "utf8", stdio: ["ignore", "pipe", "pipe"], cwd: "/" });
}

/** Tries to start the server this many times, each on a newly picked port, when its port was taken. */
const START_ATTEMPTS = 5;
/** What the server logs when another socket took its port between the pick and its bind. */
const PORT_TAKEN = /could not bind|Address already in use/i;

/**
 * Starts the server in `data` on a free loopback port; returns the port. The port is free when
 * picked, but the server binds it only seconds later, and meanwhile any socket of the (busy) machine
 * can take it: then it tries again on another port. Throws pg_ctl's error on any other failure.
 */
async function startOnFreePort(pgCtl: string, data: string, dir: string): Promise<number> {
  const log = join(dir, "log");
  for (let attempt = 1; ; attempt += 1) {
    const port = await freePort();
    const options = `-c listen_addresses=127.0.0.1 -p ${port} -k ${dir} -c fsync=off -c max_connections=200`;
    try {
      run(pgCtl, ["-D", data, "-l", log, "-o", options, "-w", "-t", "60", "start"]);
      return port;
    } catch (error) {
      const logged = existsSync(log) ? readFileSync(log, "utf8") : "";
      if (attempt >= START_ATTEMPTS || !PORT_TAKEN.test(logged)) throw error;
      // Start the next attempt's log afresh, so only its own failure is read.
      rmSync(log, { force: true });
    }
  }
}

/** Starts a fresh server and creates `database` on it. */
export async function startPostgres(database = "loopchart_test"): Promise<TestPostgres> {
  const initdb = postgresBinary("initdb");
  const pgCtl = postgresBinary("pg_ctl");
  if (!initdb || !pgCtl) throw new Error("initdb/pg_ctl not found: install Debian's postgresql package");
  const dir = mkdtempSync(join(tmpdir(), "loopchart-pg-"));
  const data = join(dir, "data");
  if (typeof process.getuid === "function" && process.getuid() === 0) {
    const uid = Number(execFileSync("id", ["-u", "postgres"], { encoding: "utf8" }).trim());
    const gid = Number(execFileSync("id", ["-g", "postgres"], { encoding: "utf8" }).trim());
    chownSync(dir, uid, gid);
  }
  chmodSync(dir, 0o700);
  run(initdb, ["-D", data, "-U", USER, "--auth=trust", "-E", "UTF8", "--no-sync", "--locale=C"]);
  const port = await startOnFreePort(pgCtl, data, dir);
  let stopped = false;
  const stop = (): void => {
    if (stopped) return;
    stopped = true;
    try {
      run(pgCtl, ["-D", data, "-m", "immediate", "-w", "stop"]);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  };
  const urlFor = (name: string): string => `postgres://${USER}:loopchart@127.0.0.1:${port}/${name}`;
  const createDatabase = (name: string): void => {
    const psql = postgresBinary("psql");
    if (!psql) throw new Error("psql not found");
    run(psql, ["-h", "127.0.0.1", "-p", String(port), "-U", USER, "-d", "postgres", "-c", `CREATE DATABASE "${name}"`]);
  };
  try {
    createDatabase(database);
  } catch (error) {
    stop();
    throw error;
  }
  return { url: urlFor(database), port, urlFor, createDatabase, stop };
}
