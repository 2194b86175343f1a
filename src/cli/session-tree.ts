/**
 * `loopchart sessions --tree`: the sessions of a store with each fork under the session
 * it was forked from, named with its fork point.
 */
import type { SessionSummary } from "../sessions/session-store.js";

/** One line of the tree: the session, and its id drawn with the branches leading to it. */
export interface SessionTreeLine {
  session: SessionSummary;
  /** `main`, `├─ main.at-2 (at 2)`, `│  └─ …`. */
  label: string;
}

/**
 * The sessions as a tree, in the list's order (most recently active first) at every
 * level: a fork follows its parent, drawn one level in and labelled with its checkpoint;
 * a fork whose parent is not in the store is a root that says where it came from.
 */
export function sessionTree(sessions: readonly SessionSummary[]): SessionTreeLine[] {
  const ids = new Set(sessions.map((session) => session.id));
  const children = new Map<string, SessionSummary[]>();
  const roots: SessionSummary[] = [];
  for (const session of sessions) {
    const parent = session.forkedFrom?.session;
    if (parent !== undefined && ids.has(parent) && parent !== session.id) children.set(parent, [...(children.get(parent) ?? []), session]);
    else roots.push(session);
  }
  const lines: SessionTreeLine[] = [];
  const seen = new Set<string>();
  const visit = (session: SessionSummary, lead: string, branch: string, depth: number) => {
    if (seen.has(session.id)) return;
    seen.add(session.id);
    const fork = session.forkedFrom;
    const point = fork === undefined ? "" : depth === 0 ? ` (forked from ${fork.session} at ${fork.at})` : ` (at ${fork.at})`;
    lines.push({ session, label: `${lead}${branch}${session.id}${point}` });
    const kids = children.get(session.id) ?? [];
    const nextLead = depth === 0 ? "" : `${lead}${branch === "└─ " ? "   " : "│  "}`;
    kids.forEach((kid, index) => visit(kid, nextLead, index === kids.length - 1 ? "└─ " : "├─ ", depth + 1));
  };
  for (const root of roots) visit(root, "", "", 0);
  // A cycle of forks (a hand-edited record) has no root: list what is left flat rather than lose it.
  for (const session of sessions) visit(session, "", "", 0);
  return lines;
}
