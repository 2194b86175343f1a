import { execFileSync } from "node:child_process";
import { describe, expect, it } from "vitest";
import { hasPostgres, postgresBinary, startPostgres } from "../support/postgres.js";

describe.skipIf(!hasPostgres())("the test Postgres (skipped when Debian's postgresql is not installed)", () => {
  it("should start on a loopback port, answer a query, and stop leaving nothing running", async () => {
    const pg = await startPostgres("harness");
    try {
      const out = execFileSync(postgresBinary("psql")!, [pg.url, "-tAc", "select current_database()"], { encoding: "utf8" });
      expect(out.trim()).toBe("harness");
    } finally {
      pg.stop();
    }
    expect(() => execFileSync(postgresBinary("psql")!, [pg.url, "-tAc", "select 1"], { stdio: "pipe" })).toThrow();
  }, 60_000);
});
