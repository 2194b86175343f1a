/**
 * A quick look at the DBOS system database before a command hands it to the DBOS SDK,
 * which waits and retries for as long as the database is unreachable (by design, for
 * workflows): a CLI command should say at once that it cannot connect.
 */
import { CliFailure } from "./cli-failure.js";

/** How long the check waits for the database to accept a connection. */
export const DATABASE_CONNECT_TIMEOUT_MS = 10_000;

/** The part of `pg`'s client the check uses (pg comes with the DBOS SDK). */
interface PgClient {
  connect(): Promise<unknown>;
  end(): Promise<void>;
}
type PgModule = { default: { Client: new (config: { connectionString: string; connectionTimeoutMillis: number }) => PgClient } };

const PG_MODULE = "pg";

/** `url` with its password replaced, for messages. */
export function redactDatabaseUrl(url: string): string {
  try {
    const parsed = new URL(url);
    if (parsed.password !== "") parsed.password = "***";
    return parsed.toString();
  } catch {
    return "<the given database URL>";
  }
}

/**
 * Connects to `url` once and disconnects; throws a {@link CliFailure} (exit 1) naming the
 * database (password hidden) and the reason when that fails. Does nothing when `pg`
 * cannot be loaded: the SDK then reports what it finds.
 */
export async function checkDatabase(url: string): Promise<void> {
  let pg: PgModule;
  try {
    // A computed specifier: pg ships no types of its own, and loopchart does not depend on it directly.
    pg = (await import(PG_MODULE)) as PgModule;
  } catch {
    return;
  }
  const client = new pg.default.Client({ connectionString: url, connectionTimeoutMillis: DATABASE_CONNECT_TIMEOUT_MS });
  try {
    await client.connect();
  } catch (error) {
    throw new CliFailure(`cannot connect to the database ${redactDatabaseUrl(url)}: ${error instanceof Error ? error.message : String(error)}`, { cause: error });
  } finally {
    await client.end().catch(() => {});
  }
}
