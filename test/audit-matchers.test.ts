// The matchers and their helpers: normalisation with offset maps, Aho-Corasick, number forms with
// displayed roundings, prose shingles, and the decoding of wrappers.
import { describe, expect, it } from "vitest";
import { AhoCorasick } from "../src/audit/aho-corasick.ts";
import { decodeBase64, inlineWrappers } from "../src/audit/decode.ts";
import { JsonPathWalker, KeyStrings } from "../src/audit/extract-json.ts";
import { keywordsIn } from "../src/audit/findings.ts";
import { FormIndex, leadingCode } from "../src/audit/forms.ts";
import { docOffset, normalise, normalisePattern } from "../src/audit/normalise.ts";
import { type NumberLiteral, scanNumbers } from "../src/audit/numbers.ts";
import { ShingleSet } from "../src/audit/shingles.ts";
import { tokenPass } from "../src/audit/token-pass.ts";
import { WordTable } from "../src/audit/words.ts";

function matches(patterns: string[], text: string): Array<[string, string]> {
  const ac = new AhoCorasick(patterns.map(normalisePattern));
  const out: Array<[string, string]> = [];
  ac.scan(text, (p, s, e) => out.push([ac.patterns[p]!, text.slice(s, e)]));
  return out;
}

describe("normalise", () => {
  it("applies NFKC, folds case, strips zero-width characters and unifies dashes, quotes and spaces", () => {
    const view = normalise("Ｏｖｅｒ\u200bhead \u2212１２％ \u201cA\u2013B\u201d\u00a0Straße");
    // ASCII letters keep their case: the matchers fold them as they read.
    expect(view.text).toBe('overhead -12% "A-B" Strasse');
  });

  it("maps every normalised offset back to the original text", () => {
    const original = "ab \u200b１２％ x";
    const view = normalise(original);
    const at = view.text.indexOf("12%");
    expect(original.slice(docOffset(view, at), docOffset(view, at + 3))).toBe("１２％");
  });

  it("leaves ASCII text as it is, without a copy or a map", () => {
    const text = "Plain ASCII, 12%";
    const view = normalise(text);
    expect(view.text).toBe(text);
    expect(view.map).toBeUndefined();
  });
});

describe("AhoCorasick", () => {
  it("finds every pattern in one pass, overlapping ones included", () => {
    expect(matches(["zero fill", "fill rule", "zero fill rule"], "the zero fill rule")).toEqual([
      ["zero fill", "zero fill"],
      ["zero fill rule", "zero fill rule"],
      ["fill rule", "fill rule"],
    ]);
  });

  it("runs around each pattern's anchor word, and finds patterns without one by their text", () => {
    const ac = new AhoCorasick(["b75f4da1d38a-x", "04:00", "12-345"].map(normalisePattern));
    expect(ac.anchorWords).toEqual(["b75f4da1d38a"]);
    expect(
      matches(["3577487f-b75f4da1d38a", "04:00", "12-345"], "id 3577487F-B75F4DA1D38A at 04:00, 12-345"),
    ).toEqual([
      ["3577487f-b75f4da1d38a", "3577487F-B75F4DA1D38A"],
      ["04:00", "04:00"],
      ["12-345", "12-345"],
    ]);
    // An anchor is a whole word: a pattern inside a longer word is not looked for.
    expect(matches(["he", "hers"], "ushers")).toEqual([]);
  });

  it("folds case, reads whitespace runs as one space and skips Markdown emphasis", () => {
    expect(matches(["compounded per BOM level"], "x Compounded\n   **per** `BOM` level y")).toEqual([
      ["compounded per bom level", "Compounded\n   **per** `BOM` level"],
    ]);
  });

  it("matches non-ASCII patterns in normalised text", () => {
    const view = normalise("Die Straße und ÜBER");
    expect(matches(["straße", "über"], view.text).map(([p]) => p)).toEqual(["strasse", "über"]);
  });
});

describe("FormIndex", () => {
  const index = new FormIndex([
    { item: 0, value: 0.12, as: "rate", equivalents: [] },
    { item: 1, value: 235, as: "quantity", equivalents: [] },
    { item: 2, value: 1 / 3, as: "quantity", equivalents: [] },
  ]);
  const kinds = (text: string) => {
    const out: string[] = [];
    scanNumbers(text, (lit: NumberLiteral) =>
      index.match(lit, (f, exact) => out.push(`${f.item}:${f.kind}:${exact}`)),
    );
    return out;
  };

  it.each([
    ["0.12", "0:value:true"],
    ["12%", "0:value:true"],
    ["12", "0:percent:true"],
    ["1.12", "0:multiplier:true"],
    ["0.88", "0:complement:true"],
    ["3/25", "0:value:true"],
    ["1200 bp", "0:value:true"],
    ["235", "1:value:true"],
    ["2.35e2", "1:value:true"],
    ["1/235", "1:reciprocal:true"],
    ["0.00426", "1:reciprocal:false"],
    ["0.333", "2:value:false"],
  ])("%s shows %s", (text, expected) => {
    expect(kinds(text)).toEqual([expected]);
  });

  it("needs three significant digits for a displayed rounding, and half a unit at most", () => {
    expect(kinds("0.0043")).toEqual([]);
    expect(kinds("0.1")).toEqual([]);
    expect(kinds("0.125")).toEqual([]);
    expect(kinds("0.3334")).toEqual([]);
  });

  it("does not read a percent-marked literal as the bare percent form", () => {
    expect(kinds("0.12%")).toEqual([]);
  });
});

describe("the word pass", () => {
  const text = "Rates: x1.12 and .5, 1,200 bp, A12 v2 12px 3rd; twelve TWELVE-fold QUJDREVGR0hJSktM.5 tail";

  it("reads the same numbers as scanNumbers", () => {
    const passed: string[] = [];
    tokenPass(text, {
      delimiter: -1,
      onNumber: (lit) => passed.push(text.slice(lit.start, lit.end)),
      onRun: () => {},
    });
    const scanned: string[] = [];
    scanNumbers(text, (lit) => scanned.push(text.slice(lit.start, lit.end)));
    expect(passed).toEqual(scanned);
    expect(passed).toEqual(["1.12", ".5", "1,200 bp"]);
  });

  it("reports the table's words with their flags, case folded, and never words glued to numbers", () => {
    const words = new WordTable();
    words.add("twelve", 1);
    words.add("fold", 2);
    words.add("twelve", 4);
    const seen: string[] = [];
    tokenPass(`${text} 12twelve`, {
      delimiter: -1,
      words,
      onWord: (flags, _h, s, e) => seen.push(`${text.slice(s, e)}:${flags}`),
      onRun: () => {},
    });
    expect(seen).toEqual(["twelve:5", "TWELVE:5", "fold:2"]);
  });

  it("reports base64 runs of 12 or more characters, ended by points", () => {
    const runs: string[] = [];
    tokenPass(text, { delimiter: -1, onRun: (a, b) => runs.push(text.slice(a, b)) });
    expect(runs).toEqual(["QUJDREVGR0hJSktM"]);
  });
});

describe("the leading-digit prefilter of the word pass", () => {
  it("computes leading codes", () => {
    expect([0.12, 12, 1200, 1, -1, 0.0042553, 0].map(leadingCode)).toEqual([120, 120, 120, 100, 100, 425, 0]);
  });

  it("skips only numbers that cannot show a form: the same matches as reading every number", () => {
    const index = new FormIndex([
      { item: 0, value: 0.12, as: "rate", equivalents: [] },
      { item: 1, value: 235, as: "quantity", equivalents: [0.0999, 0.123456] },
    ]);
    let seed = 7;
    const rnd = () => {
      seed = (Math.imul(seed, 1103515245) + 12345) & 0x7fffffff;
      return seed / 0x7fffffff;
    };
    const samples = [
      "0.12",
      "12%",
      "1,200 bp",
      "3/25",
      "1/235",
      "0.00426",
      "2.35e2",
      "0.100",
      "1.12x",
      "88%",
      "235",
      "0.004255",
      "0.0042553",
      "1.120",
      "12.00 %",
      "235.0",
      "0.1235",
      "0.123",
      "0.1",
      "0.10",
      "0.09990",
      "999",
      "8.80e-1",
    ];
    const parts: string[] = [];
    for (let i = 0; i < 3000; i++) {
      parts.push(
        rnd() < 0.2
          ? samples[Math.floor(rnd() * samples.length)]!
          : (rnd() * 10 ** Math.floor(rnd() * 5)).toFixed(Math.floor(rnd() * 4)),
      );
    }
    const text = parts.join(rnd() < 0.5 ? " " : ", ");
    const found = (codes?: Uint8Array) => {
      const out: string[] = [];
      tokenPass(text, {
        delimiter: -1,
        onNumber: (lit) => index.match(lit, (f) => out.push(`${lit.start}:${f.key}`)),
        codes,
        onRun: () => {},
      });
      return out;
    };
    const all = found();
    expect(all.length).toBeGreaterThan(100);
    expect(found(index.codes)).toEqual(all);
  });
});

describe("ShingleSet", () => {
  const artefact =
    "A leaf part without a price is costed at zero under the fill rule and flagged for review.";

  function runs(set: ShingleSet, text: string) {
    return set.scan(text).map((r) => [text.slice(r.start, r.end), r.words]);
  }

  it("reports a copied run of k or more words once, with its full extent", () => {
    const set = new ShingleSet(artefact, 8);
    const text = "Note: a LEAF part without a price is costed at zero under the fill rule, then go on.";
    expect(runs(set, text)).toEqual([
      ["a LEAF part without a price is costed at zero under the fill rule", 14],
    ]);
  });

  it("ignores runs shorter than k words", () => {
    const set = new ShingleSet(artefact, 8);
    expect(runs(set, "a leaf part without a price is fine")).toEqual([]);
  });
});

describe("decoding wrappers", () => {
  it("decodes a base64 blob to a child view mapped onto the blob", () => {
    const text = "cfg: b3ZlcmhlYWQgcmF0ZTogMTIl end";
    const child = decodeBase64(normalise(text), 5, 29);
    expect(child?.text).toBe("overhead rate: 12%");
    expect(child?.via).toEqual(["base64"]);
    expect(docOffset(child!, 0)).toBe(5);
    expect(docOffset(child!, child!.text.length)).toBe(29);
  });

  it("rejects blobs that do not decode to readable text", () => {
    expect(decodeBase64(normalise("internationalization"), 0, 20)).toBeUndefined();
  });

  it("decodes percent-encoded tokens and HTML entities in place, with their context", () => {
    const children = inlineWrappers(normalise("overhead%3A%2012%25 and &#49;&#50;&percnt; done"));
    expect(children.map((c) => [c.via[0], c.text.slice(c.focus[0], c.focus[1])])).toEqual([
      ["percent-encoding", "overhead: 12%"],
      ["html-entities", "12%"],
    ]);
  });
});

describe("keywordsIn", () => {
  it("finds every keyword in one pass, overlapping ones and any case included", () => {
    const keywords = ["over", "overhead", "head", "day count", "surcharge"];
    expect([...keywordsIn("The OVERHEAD rate; Day Count", keywords)].sort()).toEqual(
      ["day count", "head", "over", "overhead"].sort(),
    );
    expect(keywordsIn("nothing here", keywords).size).toBe(0);
    expect(keywordsIn("anything", []).size).toBe(0);
  });

  it("counts only the occurrences its filter accepts", () => {
    const text = "overhead here, surcharge there";
    expect([...keywordsIn(text, ["overhead", "surcharge"], (at) => at > 10)]).toEqual(["surcharge"]);
  });
});

describe("JsonPathWalker (the key path of an offset)", () => {
  const json = '{"a": {"b\\"c": [1, {"d\\u00e9": "x\\"y", "e": [[{"f": 2}]]}], "g": "h"}, "": {"": 3}}';

  it("names keys decoded, arrays as [], a key itself with (key), and starts again for an earlier offset", () => {
    const walker = new JsonPathWalker(json);
    const paths = ["1", "d\\u", "x\\", "f", "2", "h", '""', "3"].map((word) => walker.at(json.indexOf(word)));
    expect(paths).toEqual([
      'a.b"c[]',
      'a.b"c[].d\u00e9 (key)',
      'a.b"c[].d\u00e9',
      'a.b"c[].e[][].f (key)',
      'a.b"c[].e[][].f',
      "a.g",
      "(root) (key)",
      ".",
    ]);
    expect(walker.at(json.indexOf("h"))).toBe("a.g");
    expect(walker.at(json.length)).toBe("(root)");
  });
});

describe("KeyStrings (which JSON offsets can be in a key path)", () => {
  const json =
    '{"overhead": {"note": "the 5\\" day pipe", "tags": ["cycle"]}, "surcharge": 1, "rate" :\n "count"}';
  const at = (word: string) => json.indexOf(word);

  it("takes keys and array strings, not values after a colon nor text outside strings", () => {
    const keys = new KeyStrings(json);
    const words = ["overhead", "note", '\\"', "day", "tags", "cycle", "surcharge", "rate", "count"];
    // '\\"' is asked at its quote: the one a backslash escapes, inside a value.
    const offset = (word: string) => at(word) + (word.startsWith("\\") ? 1 : 0);
    expect(words.map((word) => [word, keys.at(offset(word))])).toEqual([
      ["overhead", true],
      ["note", true],
      ['\\"', false],
      ["day", false],
      ["tags", true],
      ["cycle", true],
      ["surcharge", true],
      ["rate", true],
      ["count", false],
    ]);
    expect(keys.at(json.length - 1)).toBe(false);
  });

  it("starts again when asked for an earlier offset", () => {
    const keys = new KeyStrings(json);
    expect(keys.at(at("count"))).toBe(false);
    expect(keys.at(at("overhead"))).toBe(true);
  });
});
