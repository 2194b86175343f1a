/**
 * Who may talk to a viewer server (`loopchart view`, `loopchart inspect`): only its user.
 *
 * - **Host**: a request's `Host` must name the address the server is bound to (or `localhost`
 *   when that address is a loopback one; any IP literal when it is bound to every interface)
 *   and its port. A DNS-rebinding page reaches the server under a name of its own, so it is
 *   refused.
 * - **Origin**: a WebSocket upgrade that carries an `Origin` (a browser page) must come from
 *   the server's own origin; one without `Origin` is a program (`loopchart run --inspect`,
 *   `createWebSocketInspector` in Node) and needs only the token.
 * - **Token**: a random token, printed in the server's URLs (`?token=…`). The page's URL
 *   carries it once; the server answers it with a cookie (`HttpOnly`, `SameSite=Strict`, named
 *   after the port) and a redirect to the bare URL, and the page's own requests then carry the
 *   cookie. Programs pass the token in the query (`ws://127.0.0.1:N/?token=…`).
 */
import { randomBytes, timingSafeEqual } from "node:crypto";
import type { IncomingMessage } from "node:http";
import { isIP } from "node:net";

/** Random bytes in a token (base64url: 32 characters). */
const TOKEN_BYTES = 24;

/** A fresh random token. */
export function createToken(): string {
  return randomBytes(TOKEN_BYTES).toString("base64url");
}

/** Where a server listens, as `server.address()` says. */
export interface BoundAddress {
  address: string;
  port: number;
}

const LOOPBACK_V4 = /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/u;
const isLoopback = (address: string) => LOOPBACK_V4.test(address) || address === "::1";
const isWildcard = (address: string) => address === "0.0.0.0" || address === "::";

/** Splits a `Host` value (`name:port`, `[v6]:port`) into a bare hostname and its port (80 when absent). */
function splitHost(value: string): { hostname: string; port: number } | undefined {
  const match = /^(\[[0-9a-fA-F:.]+\]|[^:[\]]+)(?::(\d{1,5}))?$/u.exec(value.trim());
  if (!match) return undefined;
  const hostname = (match[1] as string).replace(/^\[|\]$/gu, "").toLowerCase();
  return { hostname, port: match[2] === undefined ? 80 : Number(match[2]) };
}

/**
 * Whether a `Host` value names this server: its port, and its own address (`localhost` too
 * when bound to loopback; any IP literal or `localhost` when bound to every interface).
 */
export function hostNamesServer(host: string | undefined, bound: BoundAddress): boolean {
  if (host === undefined) return false;
  const parsed = splitHost(host);
  if (!parsed || parsed.port !== bound.port) return false;
  const own = bound.address.toLowerCase();
  if (parsed.hostname === own) return true;
  if (parsed.hostname === "localhost") return isLoopback(own) || isWildcard(own);
  return isWildcard(own) && isIP(parsed.hostname) !== 0;
}

/** Whether an `Origin` value is this server's own (`http://` + a Host value it accepts). Absent: not a browser, allowed. */
export function originAllowed(origin: string | undefined, bound: BoundAddress): boolean {
  if (origin === undefined) return true;
  let url: URL;
  try {
    url = new URL(origin);
  } catch {
    return false;
  }
  return url.protocol === "http:" && hostNamesServer(url.host, bound);
}

/** The cookie that keeps the token for the page; named after the port, since cookies do not tell ports apart. */
export function tokenCookieName(port: number): string {
  return `loopchart-token-${port}`;
}

/** The `Set-Cookie` value that keeps `token` for the page's own requests. */
export function tokenCookie(token: string, port: number): string {
  return `${tokenCookieName(port)}=${token}; Path=/; HttpOnly; SameSite=Strict`;
}

function cookieValue(header: string | undefined, name: string): string | undefined {
  if (!header) return undefined;
  for (const part of header.split(";")) {
    const at = part.indexOf("=");
    if (at > 0 && part.slice(0, at).trim() === name) return part.slice(at + 1).trim();
  }
  return undefined;
}

/** Compares in constant time. */
export function sameToken(given: string | null | undefined, token: string): boolean {
  if (typeof given !== "string") return false;
  const a = Buffer.from(given);
  const b = Buffer.from(token);
  return a.length === b.length && timingSafeEqual(a, b);
}

/** How a request carried the token: in its query (`?token=`), in the cookie, or not at all. */
export function tokenOf(request: IncomingMessage, url: URL, token: string, port: number): "query" | "cookie" | undefined {
  if (sameToken(url.searchParams.get("token"), token)) return "query";
  if (sameToken(cookieValue(request.headers.cookie, tokenCookieName(port)), token)) return "cookie";
  return undefined;
}
