import { describe, expect, it } from "vitest";
import { describeThrown, MAX_THROWN_DESCRIPTION_LENGTH } from "../../src/describe-thrown.js";
import { describeValue, safeJson } from "../../src/describe-value.js";

describe("describeThrown", () => {
  it("should give an Error's message", () => {
    expect(describeThrown(new Error("queue offline"))).toBe("queue offline");
    expect(describeThrown(new RangeError("too far"))).toBe("too far");
  });

  it("should say the error type when the message is empty", () => {
    expect(describeThrown(new TypeError(""))).toBe("TypeError");
    expect(describeThrown(new Error())).toBe("Error");
    expect(describeThrown(new Error("   "))).toBe("Error");
  });

  it("should name a subclass that keeps the inherited name", () => {
    class QuotaError extends Error {}
    expect(describeThrown(new QuotaError(""))).toBe("QuotaError");
    class NamedError extends Error {
      override name = "NamedError";
    }
    expect(describeThrown(new NamedError())).toBe("NamedError");
  });

  it("should survive an Error whose message getter throws", () => {
    const error = new SyntaxError("x");
    Object.defineProperty(error, "message", {
      get() {
        throw new Error("no");
      },
    });
    expect(describeThrown(error)).toBe("SyntaxError");
  });

  it("should describe strings, empty strings and primitives", () => {
    expect(describeThrown("socket exploded")).toBe("socket exploded");
    expect(describeThrown("")).toBe("an empty string");
    expect(describeThrown(undefined)).toBe("undefined");
    expect(describeThrown(null)).toBe("null");
    expect(describeThrown(42)).toBe("42");
    expect(describeThrown(false)).toBe("false");
    expect(describeThrown(12n)).toBe("12n");
    expect(describeThrown(Symbol("boom"))).toBe("Symbol(boom)");
    expect(describeThrown(function namedThrower() {})).toBe("a function (namedThrower)");
  });

  it("should show a plain object as JSON", () => {
    expect(describeThrown({ code: 7, reason: "busy" })).toBe('{"code":7,"reason":"busy"}');
  });

  it("should not throw on a circular object", () => {
    const circular: Record<string, unknown> = { name: "loop" };
    circular.self = circular;
    expect(describeThrown(circular)).toBe('{"name":"loop","self":"[Circular]"}');
  });

  it("should not throw on a BigInt inside an object", () => {
    expect(describeThrown({ size: 10n })).toBe('{"size":"10n"}');
  });

  it("should not throw on an object with a throwing getter", () => {
    const hostile = {
      get field(): never {
        throw new Error("getter exploded");
      },
    };
    expect(describeThrown(hostile)).toBe("an object of class Object with keys field that cannot be serialized");
  });

  it("should not throw on a throwing toJSON or toString", () => {
    const hostile = {
      toJSON(): never {
        throw new Error("no json");
      },
      toString(): never {
        throw new Error("no string");
      },
    };
    expect(describeThrown(hostile)).toMatch(/cannot be serialized/);
  });

  it("should use an instance's own toString when JSON shows nothing", () => {
    class Failure {
      toString() {
        return "Failure(disk full)";
      }
    }
    expect(describeThrown(new Failure())).toBe("Failure(disk full)");
  });

  it("should not throw on a revoked proxy", () => {
    const { proxy, revoke } = Proxy.revocable({}, {});
    revoke();
    expect(typeof describeThrown(proxy)).toBe("string");
    expect(typeof describeValue(proxy)).toBe("string");
  });

  it("should cut a huge thrown object", () => {
    const huge = { data: "x".repeat(MAX_THROWN_DESCRIPTION_LENGTH * 2) };
    const text = describeThrown(huge);
    expect(text).toHaveLength(MAX_THROWN_DESCRIPTION_LENGTH);
    expect(text.endsWith("…")).toBe(true);
  });
});

describe("describeValue", () => {
  it("should say what kind of value it got", () => {
    expect(describeValue("2")).toBe('the string "2"');
    expect(describeValue(2)).toBe("the number 2");
    expect(describeValue(undefined)).toBe("undefined");
    expect(describeValue(null)).toBe("null");
    expect(describeValue([1, 2])).toBe("an array [1,2]");
    expect(describeValue({ content: "not an array" })).toBe('an object {"content":"not an array"}');
    expect(describeValue(new TypeError("bad"))).toBe("an Error instance (TypeError: bad)");
  });

  it("should cut long previews", () => {
    expect(describeValue("y".repeat(1000)).length).toBeLessThan(250);
  });
});

describe("safeJson", () => {
  it("should keep repeated but not circular references", () => {
    const shared = { a: 1 };
    expect(safeJson({ left: shared, right: shared })).toBe('{"left":{"a":1},"right":{"a":1}}');
  });
});
