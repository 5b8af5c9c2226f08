// The one canonical JSON of kgate's digests (src/common/canonical-json.ts): the text written out by
// hand for nested objects, arrays, undefined members and non-ASCII keys, and the digests of agent
// configurations and plan settings still resting on it.
import { createHash } from "node:crypto";
import { describe, expect, it } from "vitest";
import { canonicalDigest, canonicalJson } from "../src/common/index.ts";

describe("canonical JSON", () => {
  it("sorts keys at every level by UTF-16 code units and leaves undefined members out", () => {
    const value = { b: 1, a: [{ d: undefined, c: "x" }, 2], é: true, Z: null, n: 1e21, f: 0.1 };
    // "Z" (U+005A) < "a" < "b" < "f" < "n" < "é" (U+00E9); d is undefined and dropped; arrays keep order.
    expect(canonicalJson(value)).toBe('{"Z":null,"a":[{"c":"x"},2],"b":1,"f":0.1,"n":1e+21,"é":true}');
  });

  it("gives equal text, and so an equal digest, whatever the order the keys were written in", () => {
    const one = { model: "m", pricing: { outputPerMTok: 25, inputPerMTok: 5 } };
    const two = { pricing: { inputPerMTok: 5, outputPerMTok: 25 }, model: "m" };
    expect(canonicalJson(one)).toBe(canonicalJson(two));
    const text = '{"model":"m","pricing":{"inputPerMTok":5,"outputPerMTok":25}}';
    expect(canonicalDigest(two)).toBe(createHash("sha256").update(text).digest("hex"));
  });

  it("orders keys by UTF-16 code units, not code points, and writes undefined in an array as null", () => {
    // U+1F600 is the surrogate pair D83D DE00 in UTF-16; U+FB01 is one unit FB01: D83D < FB01, so the
    // emoji key comes first (by code point, 0x1F600 > 0xFB01, it would come last).
    const value = { "\uFB01": 1, "\u{1F600}": [undefined, 2] };
    expect(canonicalJson(value)).toBe('{"\u{1F600}":[null,2],"\uFB01":1}');
  });

  it("refuses a value with no JSON text", () => {
    expect(() => canonicalJson(undefined)).toThrow(/no JSON text/);
    expect(() => canonicalJson(() => 1)).toThrow(/no JSON text/);
  });
});
