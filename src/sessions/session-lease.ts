/**
 * The lease that makes one process the owner of a durable session. A process that
 * runs, resumes or answers a session takes the lease first and keeps it alive with
 * a heartbeat; a second process is refused (`SessionBusyError`) until the holder
 * releases it or is found dead: its pid gone on this host, or its heartbeat older
 * than {@link LeaseTiming.staleMs}. Every write of the holder carries the lease's
 * token (fencing), so an owner that was paused past the timeout and taken over
 * cannot write over its successor.
 */
import { randomUUID } from "node:crypto";
import { hostname } from "node:os";

/** Who holds a lease, as its lock file or lease row records it. */
export interface LeaseHolder {
  pid: number;
  host: string;
  /** ISO time the lease was taken. */
  startedAt: string;
  /** ISO time of the holder's last heartbeat. */
  heartbeatAt: string;
  /** The fencing token: unique to this taking of the lease. */
  token: string;
}

/** A lease this process holds on a session. */
export interface SessionLease {
  readonly sessionId: string;
  readonly holder: LeaseHolder;
  /** The lease this one replaced, and why its holder counted as dead. */
  readonly tookOver?: { holder: LeaseHolder; reason: string };
  /** Stops the heartbeat and gives the lease up (a no-op once released, or when it was taken over). */
  release(): Promise<void>;
}

/** How often a holder refreshes its heartbeat, and after how long without one a lease is taken over. */
export interface LeaseTiming {
  heartbeatMs: number;
  staleMs: number;
}

/** A heartbeat every 5 s; taken over after 30 s of silence (six missed heartbeats). */
export const DEFAULT_LEASE_TIMING: LeaseTiming = { heartbeatMs: 5_000, staleMs: 30_000 };

/** Tokens of the leases this process holds now: a lease with this pid but another token is left from an earlier process. */
const heldHere = new Set<string>();

/** A new holder record for this process; its token counts as held here until {@link forgetHolder}. */
export function newHolder(now: Date = new Date()): LeaseHolder {
  const at = now.toISOString();
  const holder = { pid: process.pid, host: hostname(), startedAt: at, heartbeatAt: at, token: randomUUID() };
  heldHere.add(holder.token);
  return holder;
}

/** Marks a holder's lease as no longer held by this process (released or never taken). */
export function forgetHolder(holder: LeaseHolder): void {
  heldHere.delete(holder.token);
}

/** Whether a process of this pid exists on this host (EPERM: it exists but is not ours). */
function pidAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "EPERM";
  }
}

/**
 * Why `holder`'s lease may be taken over, or undefined while it is alive: its pid is
 * gone on this host (or is this very process, so a lock of an earlier life), or its
 * heartbeat is older than `staleMs`.
 */
export function staleReason(holder: LeaseHolder, staleMs: number, now: number = Date.now()): string | undefined {
  if (holder.host === hostname()) {
    if (holder.pid === process.pid) return heldHere.has(holder.token) ? undefined : `pid ${holder.pid} is this process, so the lease is left from an earlier process`;
    if (!pidAlive(holder.pid)) return `its process (pid ${holder.pid}) is gone`;
  }
  const silent = now - Date.parse(holder.heartbeatAt);
  if (!(silent <= staleMs)) return `its last heartbeat is ${Math.round(silent / 1000)} s old (more than ${Math.round(staleMs / 1000)} s)`;
  return undefined;
}

/** Reads a holder record, or undefined when `value` is not one. */
export function asHolder(value: unknown): LeaseHolder | undefined {
  const v = value as Partial<LeaseHolder> | null;
  if (typeof v !== "object" || v === null) return undefined;
  if (!Number.isInteger(v.pid) || typeof v.host !== "string" || typeof v.startedAt !== "string" || typeof v.heartbeatAt !== "string" || typeof v.token !== "string") return undefined;
  return v as LeaseHolder;
}

/** How a lease taken over is described: "pid 12 on host since … (its process is gone)". */
export function describeTakeover(sessionId: string, tookOver: { holder: LeaseHolder; reason: string }): string {
  const { holder, reason } = tookOver;
  return `Session "${sessionId}" was held by pid ${holder.pid} on ${holder.host} since ${holder.startedAt}, but ${reason}: taking it over.`;
}
