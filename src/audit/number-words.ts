// Spelled-out numbers ("twelve percent", "two hundred thirty-five", "one point one two", "seven and
// a half percent", "a quarter", "three quarters", "one and a half times", and amounts with a
// currency: "thirty-eight euros fifty" is 38.50) read from the word stream and reported as number
// literals.
import { applyUnit, type NumberLiteral, unitAfter } from "./numbers.ts";
import { forEachWord, WordTable, wordHash } from "./words.ts";

const SMALL = [
  "zero",
  "one",
  "two",
  "three",
  "four",
  "five",
  "six",
  "seven",
  "eight",
  "nine",
  "ten",
  "eleven",
  "twelve",
  "thirteen",
  "fourteen",
  "fifteen",
  "sixteen",
  "seventeen",
  "eighteen",
  "nineteen",
];
const TENS = ["twenty", "thirty", "forty", "fifty", "sixty", "seventy", "eighty", "ninety"];

type Kind = "small" | "tens" | "hundred" | "scale" | "point" | "fraction";
interface Entry {
  word: string;
  kind: Kind;
  value: number;
}

const ENTRIES = new Map<number, Entry>();
/** The same words, for checking that a word of a text is one of them. */
const TABLE = new WordTable();
function add(word: string, kind: Kind, value: number): void {
  ENTRIES.set(wordHash(word), { word, kind, value });
  TABLE.add(word, 1);
}
for (const [i, w] of SMALL.entries()) add(w, "small", i);
for (const [i, w] of TENS.entries()) add(w, "tens", (i + 2) * 10);
add("hundred", "hundred", 100);
add("thousand", "scale", 1000);
add("million", "scale", 1_000_000);
add("point", "point", 0);
/**
 * Fraction words, read only after "a"/"an", after a number ("three quarters", "thirteen
 * twentieths"), or in "X and a half". Ordinals name the denominators 3 to 20, the tens, 100 and
 * 1000 ("second" is left out: "one second" is a time).
 */
const ORDINALS: Array<[string, number]> = [
  ["third", 3],
  ["fourth", 4],
  ["fifth", 5],
  ["sixth", 6],
  ["seventh", 7],
  ["eighth", 8],
  ["ninth", 9],
  ["tenth", 10],
  ["eleventh", 11],
  ["twelfth", 12],
  ["thirteenth", 13],
  ["fourteenth", 14],
  ["fifteenth", 15],
  ["sixteenth", 16],
  ["seventeenth", 17],
  ["eighteenth", 18],
  ["nineteenth", 19],
  ["twentieth", 20],
  ["thirtieth", 30],
  ["fortieth", 40],
  ["fiftieth", 50],
  ["sixtieth", 60],
  ["seventieth", 70],
  ["eightieth", 80],
  ["ninetieth", 90],
  ["hundredth", 100],
  ["thousandth", 1000],
];
for (const [word, value] of [
  ["half", 1 / 2],
  ["halves", 1 / 2],
  ["quarter", 1 / 4],
  ["quarters", 1 / 4],
  ...ORDINALS.flatMap(([word, d]) => [
    [word, 1 / d],
    [`${word}s`, 1 / d],
  ]),
] as Array<[string, number]>)
  add(word, "fraction", value);

/** "X and a half": the gap between the whole number and its fraction word. */
const AND_A = /^[\s-]+and[\s-]+an?[\s-]+$/i;
/** "a quarter", "an eighth": the article right before a fraction word (not the end of a longer word). */
const ARTICLE_BEFORE = /(?<![\p{L}\p{N}])an?[\s-]+$/iu;
/** "one and a half times": a multiplier written in words. */
const TIMES_AFTER = /^[\s-]+times(?![\p{L}\p{N}])/iu;

/**
 * "thirty-eight euros fifty", "twelve dollars and five cents": a currency word between the whole
 * amount and its hundredths (which must then be below one hundred).
 */
const CURRENCY_GAP =
  /^[\s-]+(?:euros?|dollars?|pounds?|francs?|pesos?|rupees?|yen|yuan|kronor|kroner|krona|zlotys?|rand|reais)(?:[\s-]+and)?[\s-]+$/i;

/** Words of one spelled-out number are separated by spaces or hyphens, and maybe "and". */
const GAP = /^[\s-]+(?:and[\s-]+)?$/i;
function isGap(text: string, from: number, to: number): boolean {
  return to > from && to - from <= 8 && GAP.test(text.slice(from, to));
}

/** Every word a spelled-out number is made of (the scan's word pass reports only these). */
export const NUMBER_WORDS: readonly string[] = [...ENTRIES.values()].map((e) => e.word);

/** Feeds every number word of `text` to a reader and finishes it (the scan uses its word pass). */
export function readNumberWords(text: string, onNumber: (lit: NumberLiteral) => void): void {
  const reader = new NumberWordReader(text, onNumber);
  forEachWord(text, (hash, start, end) => {
    if (TABLE.lookup(hash, text, start, end) !== 0) reader.word(hash, start, end);
  });
  reader.finish();
}

function sigDigits(value: number): number {
  return String(Math.abs(value)).replace(".", "").replace(/^0+/, "").length || 1;
}

/** Feed it every number word (hash, start, end) in order, and only those, then call finish(). */
export class NumberWordReader {
  private total = 0;
  private current = 0;
  private decimals = "";
  /** The fraction word's part of the value ("and a half": 0.5). */
  private fraction = 0;
  private inDecimals = false;
  /** The whole amount before a currency word, while its hundredths are read ("euros fifty"). */
  private whole: number | null = null;
  private count = 0;
  private start = -1;
  private end = -1;
  private lastWordEnd = -1;
  private lastKind: Kind | null = null;
  private readonly lit: NumberLiteral = {
    value: 0,
    start: 0,
    end: 0,
    halfUnit: 0,
    sig: 0,
    unit: "none",
    sci: false,
    times: false,
    words: true,
  };

  constructor(
    private readonly text: string,
    private readonly onNumber: (lit: NumberLiteral) => void,
  ) {}

  /** `hash` and the span are a number word's (the caller has looked it up in a word table). */
  word(hash: number, start: number, end: number): void {
    const entry = ENTRIES.get(hash)!;
    if (entry.kind === "fraction") {
      this.fractionWord(entry.value, start, end);
      return;
    }
    if (this.count > 0 && !isGap(this.text, this.lastWordEnd, start)) {
      const currency =
        this.whole === null &&
        !this.inDecimals &&
        this.fraction === 0 &&
        (entry.kind === "small" || entry.kind === "tens") &&
        CURRENCY_GAP.test(this.text.slice(this.lastWordEnd, start));
      if (!currency) this.flush();
      else {
        this.whole = this.total + this.current;
        this.total = this.current = 0;
        this.lastKind = null;
      }
    }
    if (this.whole !== null && entry.kind !== "small" && entry.kind !== "tens") this.flush();
    if (this.count === 0 && (entry.kind === "point" || entry.kind === "hundred" || entry.kind === "scale")) {
      return;
    }
    if (this.inDecimals) {
      if (entry.kind !== "small" || entry.value > 9) {
        this.flush();
        if (entry.kind === "small" || entry.kind === "tens") this.word(hash, start, end);
        return;
      }
      this.decimals += String(entry.value);
    } else {
      switch (entry.kind) {
        case "small":
        case "tens":
          if (this.lastKind === "small" || (this.lastKind === "tens" && entry.kind === "tens")) {
            this.flush();
            this.word(hash, start, end);
            return;
          }
          this.current += entry.value;
          break;
        case "hundred":
          this.current = (this.current || 1) * 100;
          break;
        case "scale":
          this.total += (this.current || 1) * entry.value;
          this.current = 0;
          break;
        case "point":
          this.inDecimals = true;
          break;
      }
    }
    if (this.count === 0) this.start = start;
    this.count++;
    if (entry.kind !== "point") this.end = end;
    this.lastWordEnd = end;
    this.lastKind = entry.kind;
  }

  /** A fraction word ends the number it belongs to: "seven and a half", "three quarters", "a third". */
  private fractionWord(value: number, start: number, end: number): void {
    const plain = this.count > 0 && !this.inDecimals && this.lastKind !== "point";
    if (plain && AND_A.test(this.text.slice(this.lastWordEnd, start))) {
      this.fraction = value; // "seven and a half": 7 + 1/2
    } else if (
      plain &&
      isGap(this.text, this.lastWordEnd, start) &&
      (this.lastKind === "small" || this.lastKind === "tens") &&
      this.total === 0
    ) {
      this.fraction = this.current * value; // "three quarters": 3 x 1/4
      this.current = 0;
    } else {
      if (this.count > 0) this.flush();
      const article = ARTICLE_BEFORE.exec(this.text.slice(Math.max(0, start - 8), start));
      if (!article) return; // "half the cost" is not a number
      this.start = start - article[0].length;
      this.current = 0;
      this.fraction = value;
      this.count = 1;
    }
    this.end = end;
    this.lastWordEnd = end;
    this.lastKind = "fraction";
    this.flush();
  }

  finish(): void {
    if (this.count > 0) this.flush();
  }

  private flush(): void {
    const integer = this.total + this.current;
    const value =
      this.whole !== null
        ? Math.round((this.whole + integer / 100) * 100) / 100
        : this.decimals
          ? Number(`${integer}.${this.decimals}`)
          : integer + this.fraction;
    const lit = this.lit;
    lit.value = value;
    lit.start = this.start;
    lit.end = this.end;
    lit.halfUnit = 0;
    lit.sig = sigDigits(value);
    lit.unit = "none";
    lit.times = false;
    const unit = unitAfter(this.text, this.end);
    if (unit) applyUnit(lit, unit[0], unit[1]);
    else if (TIMES_AFTER.test(this.text.slice(this.end, this.end + 12))) lit.times = true;
    this.total = this.current = this.count = this.fraction = 0;
    this.decimals = "";
    this.inDecimals = false;
    this.whole = null;
    this.lastKind = null;
    this.onNumber(lit);
  }
}
