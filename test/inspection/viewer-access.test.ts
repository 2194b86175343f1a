/** Which Host and Origin values a viewer server takes as its own (src/cli/viewer-access.ts), per address it is bound to. */
import { describe, expect, it } from "vitest";
import { createToken, hostNamesServer, originAllowed, sameToken } from "../../src/cli/viewer-access.js";

describe("hostNamesServer", () => {
  it("bound to 127.0.0.1: its address or localhost, with its port; nothing else", () => {
    const bound = { address: "127.0.0.1", port: 4242 };
    expect(["127.0.0.1:4242", "localhost:4242", "LOCALHOST:4242"].map((host) => hostNamesServer(host, bound))).toEqual([true, true, true]);
    expect(
      ["127.0.0.1:4243", "127.0.0.1", "evil.example:4242", "127.0.0.1.nip.io:4242", "localhost.evil.example:4242", "[::1]:4242", "", "127.0.0.1:4242:1", "a b:4242"].map((host) =>
        hostNamesServer(host, bound),
      ),
    ).toEqual([false, false, false, false, false, false, false, false, false]);
    expect(hostNamesServer(undefined, bound)).toBe(false);
  });

  it("bound to ::1: [::1] and localhost", () => {
    const bound = { address: "::1", port: 80 };
    expect(["[::1]:80", "[::1]", "localhost"].map((host) => hostNamesServer(host, bound))).toEqual([true, true, true]);
    expect(hostNamesServer("evil.example", bound)).toBe(false);
  });

  it("bound to another address (--host): that address only", () => {
    const bound = { address: "192.168.1.5", port: 4242 };
    expect(hostNamesServer("192.168.1.5:4242", bound)).toBe(true);
    expect(hostNamesServer("localhost:4242", bound)).toBe(false);
  });

  it("bound to every interface: any IP literal or localhost, never a name (DNS rebinding)", () => {
    const bound = { address: "0.0.0.0", port: 4242 };
    expect(["10.0.0.7:4242", "localhost:4242", "[fe80::1]:4242"].map((host) => hostNamesServer(host, bound))).toEqual([true, true, true]);
    expect(hostNamesServer("evil.example:4242", bound)).toBe(false);
  });
});

describe("originAllowed", () => {
  const bound = { address: "127.0.0.1", port: 4242 };
  it("allows no Origin (a program) and the server's own http origin only", () => {
    expect(originAllowed(undefined, bound)).toBe(true);
    expect(originAllowed("http://127.0.0.1:4242", bound)).toBe(true);
    expect(originAllowed("http://localhost:4242", bound)).toBe(true);
    for (const origin of ["https://127.0.0.1:4242", "http://127.0.0.1:4243", "http://evil.example", "null", "", "file://"]) expect(originAllowed(origin, bound), origin).toBe(false);
  });
});

describe("tokens", () => {
  it("are 32 URL-safe characters, fresh each time, and compared exactly", () => {
    const a = createToken();
    expect(a).toMatch(/^[\w-]{32}$/u);
    expect(createToken()).not.toBe(a);
    expect(sameToken(a, a)).toBe(true);
    expect(sameToken(`${a}x`, a)).toBe(false);
    expect(sameToken(null, a)).toBe(false);
    expect(sameToken("", a)).toBe(false);
  });
});
