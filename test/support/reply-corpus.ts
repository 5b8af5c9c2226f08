// Test support: replies to an exported row, right and wrong, for the parity test of the Python reward
// module: the answer text of each output mutated (CSV: numbers within and beyond 1e-4, formatting,
// rows, columns, quoting, encodings; JSON: values, structure, syntax, schema) and the reply around
// it mutated (fences, labels, prose), plus one-word choices. Each case has a name; whether it passes
// is for kgate's verification to say (the test compares the Python module with it).
import { parse } from "csv-parse/sync";
import type { CsvOutput, OutputSpec } from "../../src/task/index.ts";

export interface Case {
  name: string;
  reply: string;
}

/** A reply with one fenced block per output (`fence` and `indent` for the first block only). */
export function replyWith(
  outputs: ReadonlyArray<{ path: string; text: string }>,
  o: {
    fence?: string;
    label?: (path: string) => string;
    indent?: string;
    before?: string;
    after?: string;
  } = {},
): string {
  const blocks = outputs.map(({ path, text }, i) => {
    const fence = i === 0 ? (o.fence ?? "```") : "```";
    const indent = i === 0 ? (o.indent ?? "") : "";
    const label = o.label ? o.label(path) : path;
    return `${indent}${fence}${label}\n${text}${text.endsWith("\n") ? "" : "\n"}${indent}${fence}\n`;
  });
  return `${o.before ?? "Here is my answer.\n\n"}${blocks.join("\n")}${o.after ?? ""}`;
}

/** One CSV line's fields (csv-parse: quotes, doubled quotes). */
function fields(line: string): string[] {
  return (parse(line) as string[][])[0] ?? [""];
}

const quote = (f: string) => (/[",\r\n]|^\s|\s$/.test(f) ? `"${f.replaceAll('"', '""')}"` : f);
const join = (fs: readonly string[]) => fs.map(quote).join(",");

/** The CSV text as header + rows of fields; `set` rewrites row r's column c. */
function csvCases(text: string, output: CsvOutput): Case[] {
  const lines = text.split(/\r?\n/).filter((l) => l !== "");
  const header = fields(lines[0]!);
  const rows = lines.slice(1).map(fields);
  const csv = (h: string[], rs: string[][]) => `${[h, ...rs].map(join).join("\n")}\n`;
  const set = (r: number, c: number, value: string) =>
    csv(
      header,
      rows.map((row, i) => (i === r ? row.map((f, j) => (j === c ? value : f)) : row)),
    );
  const cases: Case[] = [
    { name: "crlf", reply: `${lines.join("\r\n")}\r\n` },
    { name: "bom", reply: `\ufeff${text}` },
    { name: "no final line break", reply: lines.join("\n") },
    { name: "blank lines", reply: `\n${lines.join("\n\n")}\n\n\n` },
    { name: "rows reversed", reply: csv(header, [...rows].reverse()) },
    {
      name: "columns rotated",
      reply: csv(
        [...header.slice(1), header[0]!],
        rows.map((r) => [...r.slice(1), r[0]!]),
      ),
    },
    {
      name: "every field quoted",
      reply: `${[header, ...rows].map((r) => r.map((f) => `"${f}"`).join(",")).join("\n")}\n`,
    },
    { name: "last row dropped", reply: csv(header, rows.slice(0, -1)) },
    { name: "first row twice", reply: csv(header, [rows[0]!, ...rows]) },
    { name: "extra row", reply: csv(header, [...rows, rows[0]!.map((f, j) => (j === 0 ? `${f}-X` : f))]) },
    {
      name: "last column dropped",
      reply: csv(
        header.slice(0, -1),
        rows.map((r) => r.slice(0, -1)),
      ),
    },
    {
      name: "extra column",
      reply: csv(
        [...header, "note"],
        rows.map((r) => [...r, "x"]),
      ),
    },
    { name: "column renamed", reply: csv([`${header[0]}_`, ...header.slice(1)], rows) },
    { name: "column name padded", reply: csv([` ${header[0]}`, ...header.slice(1)], rows) },
    { name: "header twice", reply: csv(header, [header, ...rows]) },
    { name: "header only", reply: `${join(header)}\n` },
    { name: "empty", reply: "" },
    { name: "white space only", reply: "  \n\t\n" },
    { name: "tab separated", reply: `${[header, ...rows].map((r) => r.join("\t")).join("\n")}\n` },
    { name: "semicolon separated", reply: `${[header, ...rows].map((r) => r.join(";")).join("\n")}\n` },
    { name: "unclosed quote", reply: text.replace(/\n/, '\n"') },
    {
      name: "text after a closing quote",
      reply: `${join(header)}\n"${rows[0]![0]}"x,${rows[0]!.slice(1).join(",")}\n`,
    },
    {
      // Refused by kgate's CSV reader (csv-parse) with a hint to quote the field; the reward module too.
      name: "a quote inside an unquoted field",
      reply: `${join(header)}\n${rows[0]![0]}"x,${join(rows[0]!.slice(1))}\n${rows.slice(1).map(join).join("\n")}\n`,
    },
    { name: "a field too many", reply: `${lines[0]}\n${lines[1]},\n${lines.slice(2).join("\n")}\n` },
    { name: "over maxBytes", reply: `${text}${"\n".repeat(output.maxBytes + 1)}` },
    { name: "lone surrogate in a key", reply: set(0, 0, `${rows[0]![0]}\ud800`) },
    { name: "NUL in a key", reply: set(0, 0, `${rows[0]![0]}\u0000`) },
  ];
  output.columns.forEach((column, c0) => {
    const c = header.indexOf(column.name);
    const first = rows[0]?.[c] ?? "";
    const last = rows.at(-1)?.[c] ?? "";
    const at = (name: string, value: string, r = 0) =>
      cases.push({ name: `${column.name}: ${name}`, reply: set(r, c, value) });
    if (column.type === "string") {
      at("padded", `  ${first} `);
      at("upper case", first.toUpperCase());
      at(
        "full width",
        first.replace(/[A-Za-z0-9]/g, (ch) => String.fromCharCode(ch.charCodeAt(0) + 0xfee0)),
      );
      at("changed", `${first}Z`);
      at("non-breaking space", `\u00a0${first}\u3000`);
      if (c0 === 0) at("empty", "");
      return;
    }
    const v = Number(first);
    const near = (d: number) => String(Number((v + d).toPrecision(15)));
    at("within 1e-4", near(5e-5));
    at("beyond 1e-4", near(2e-4));
    at("last row beyond 1e-4", String(Number(last) - 3e-4), rows.length - 1);
    at("scaled 1%", String(v * 1.01 + 0.01));
    at("exponent", v.toExponential());
    at("plus sign", `+${first}`);
    at("padded", ` ${first}\t`);
    at("decimal comma", first.replace(".", ","));
    at("NaN", "NaN");
    at("Infinity", "Infinity");
    at("1e400", "1e400");
    at("empty", "");
    at("words", "n/a");
    at("hex", "0x10");
    at("trailing dot", `${Math.trunc(v)}.`);
    at("leading dot", `.${String(v).split(".")[1] ?? "0"}`);
    at(
      "full-width digits",
      first.replace(/[0-9]/g, (d) => String.fromCharCode(d.charCodeAt(0) + 0xfee0)),
    );
    at(
      "arabic-indic digits",
      first.replace(/[0-9]/g, (d) => String.fromCharCode(d.charCodeAt(0) + 0x0630)),
    );
    at("rounded to 2 places", v.toFixed(2));
    at("negative zero", v === 0 ? "-0" : `-${first}`);
    if (column.type !== "integer") return;
    at("as a float", `${Math.trunc(v)}.0`);
    at("a half", `${Math.trunc(v)}.5`);
  });
  return cases;
}

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };

/** Every path to a number leaf, and a copy of `doc` with the leaf at `p` replaced. */
function numberPaths(doc: Json, p: Array<string | number> = []): Array<Array<string | number>> {
  if (typeof doc === "number") return [p];
  if (Array.isArray(doc)) return doc.flatMap((d, i) => numberPaths(d, [...p, i]));
  if (doc && typeof doc === "object")
    return Object.entries(doc).flatMap(([k, d]) => numberPaths(d, [...p, k]));
  return [];
}

function setAt(doc: Json, p: ReadonlyArray<string | number>, value: Json): Json {
  if (p.length === 0) return value;
  const copy = structuredClone(doc) as Record<string | number, Json>;
  copy[p[0]!] = setAt(copy[p[0]!]!, p.slice(1), value);
  return copy as Json;
}

function jsonCases(text: string): Case[] {
  const doc = JSON.parse(text) as Record<string, Json>;
  const [firstList, items] = Object.entries(doc).find(([, v]) => Array.isArray(v)) as [string, Json[]];
  const leaf = numberPaths(doc)[0]!;
  const v =
    numberPaths(doc).length > 0
      ? (leaf.reduce<Json>((d, k) => (d as Record<string | number, Json>)[k]!, doc) as number)
      : 0;
  const item = items[0] as Record<string, Json>;
  const s = (d: Json) => JSON.stringify(d, null, 2);
  const raw = (num: string) => s(setAt(doc, leaf, 0.123456)).replace("0.123456", num);
  return [
    { name: "compact", reply: JSON.stringify(doc) },
    { name: "keys reversed", reply: s(Object.fromEntries(Object.entries(doc).reverse())) },
    { name: "keyed array reversed", reply: s({ ...doc, [firstList]: [...items].reverse() }) },
    { name: "element dropped", reply: s({ ...doc, [firstList]: items.slice(1) }) },
    { name: "element twice", reply: s({ ...doc, [firstList]: [item, ...items] }) },
    { name: "extra root property", reply: s({ ...doc, note: "x" }) },
    {
      name: "extra element property",
      reply: s({ ...doc, [firstList]: [{ ...item, note: 1 }, ...items.slice(1)] }),
    },
    { name: "element is not an object", reply: s({ ...doc, [firstList]: [1, ...items.slice(1)] }) },
    { name: "root is an array", reply: s([doc]) },
    { name: "empty object", reply: "{}" },
    { name: "empty list", reply: s({ ...doc, [firstList]: [] }) },
    { name: "trailing comma", reply: `${JSON.stringify(doc).slice(0, -1)},}` },
    { name: "comment", reply: `// answer\n${s(doc)}` },
    { name: "single quotes", reply: s(doc).replaceAll('"', "'") },
    {
      name: "duplicate key, the right one last",
      reply: `{"${firstList}": [], ${JSON.stringify(doc).slice(1)}`,
    },
    {
      name: "duplicate key, the right one first",
      reply: `${JSON.stringify(doc).slice(0, -1)}, "${firstList}": []}`,
    },
    { name: "BOM", reply: `\ufeff${s(doc)}` },
    {
      name: "unicode escapes",
      reply: JSON.stringify(doc).replace(/[A-Za-z]/, (c) => `\\u00${c.charCodeAt(0).toString(16)}`),
    },
    { name: "nested 300 deep", reply: `${"[".repeat(300)}${"]".repeat(300)}` },
    { name: "nested 5000 deep", reply: `${"[".repeat(5000)}${"]".repeat(5000)}` },
    { name: "number within 1e-4", reply: s(setAt(doc, leaf, v + 5e-5)) },
    { name: "number beyond 1e-4", reply: s(setAt(doc, leaf, v + 2e-4)) },
    { name: "number as a string", reply: s(setAt(doc, leaf, String(v))) },
    { name: "number null", reply: s(setAt(doc, leaf, null)) },
    { name: "number true", reply: s(setAt(doc, leaf, true)) },
    { name: "NaN literal", reply: raw("NaN") },
    { name: "Infinity literal", reply: raw("Infinity") },
    { name: "1e400", reply: raw("1e400") },
    { name: "20-digit integer", reply: raw("12345678901234567890") },
    { name: "exponent", reply: raw(v.toExponential()) },
    { name: "leading zero", reply: raw(`0${Math.abs(Math.trunc(v))}`) },
    { name: "negative zero", reply: raw(v === 0 ? "-0" : "-0.0") },
    {
      name: "key id padded",
      reply: s({
        ...doc,
        [firstList]: [
          { ...item, [Object.keys(item)[0]!]: ` ${item[Object.keys(item)[0]!]}` },
          ...items.slice(1),
        ],
      }),
    },
    { name: "control character in a string", reply: s(doc).replace(/"([A-Za-z])/, '"\u0001$1') },
  ];
}

/** The reply-level cases around the right answer: fences, labels, prose. */
function replyCases(answers: ReadonlyArray<{ path: string; text: string }>): Case[] {
  const path = answers[0]!.path;
  const withBody = (body: string) => [{ path, text: body }, ...answers.slice(1)];
  return [
    { name: "plain", reply: replyWith(answers) },
    { name: "./ label", reply: replyWith(answers, { label: (p) => `./${p}` }) },
    { name: "tilde fence", reply: replyWith(answers, { fence: "~~~" }) },
    { name: "four backticks", reply: replyWith(answers, { fence: "````" }) },
    { name: "indented three", reply: replyWith(answers, { indent: "   " }) },
    { name: "indented four", reply: replyWith(answers, { indent: "    " }) },
    { name: "info string after the label", reply: replyWith(answers, { label: (p) => `${p} (final)` }) },
    { name: "backtick in the info string", reply: replyWith(answers, { label: (p) => `${p} \`x\`` }) },
    { name: "label in upper case", reply: replyWith(answers, { label: (p) => p.toUpperCase() }) },
    { name: "wrong label", reply: replyWith(answers, { label: (p) => `${p}.bak` }) },
    { name: "no block", reply: `The answer is in ${path}.` },
    { name: "block twice", reply: replyWith([...answers, answers[0]!]) },
    { name: "never closed", reply: `\`\`\`${path}\n${answers[0]!.text}` },
    { name: "closed by tildes", reply: `\`\`\`${path}\n${answers[0]!.text}~~~\n` },
    { name: "closing fence indented four", reply: `\`\`\`${path}\n${answers[0]!.text}    \`\`\`\n` },
    { name: "closing fence with trailing spaces", reply: `\`\`\`${path}\n${answers[0]!.text}\`\`\`   \n` },
    { name: "a fence inside the body", reply: replyWith(withBody(`${answers[0]!.text}\`\`\`\nmore\n`)) },
    { name: "crlf reply", reply: replyWith(answers).replaceAll("\n", "\r\n") },
    {
      name: "reasoning first",
      reply: replyWith(answers, { before: "<think>\nFirst ```the rows``` then sum.\n</think>\n" }),
    },
    { name: "python block first", reply: replyWith(answers, { before: "```python\nprint(1)\n```\n\n" }) },
    { name: "prose after", reply: replyWith(answers, { after: "\nDone. ```" }) },
  ];
}

/** Every case of one row: the reply-level ones, then the answer-level ones of each output. */
export function corpus(
  outputs: readonly OutputSpec[],
  answers: ReadonlyArray<{ path: string; text: string }>,
): Case[] {
  const cases = replyCases(answers);
  outputs.forEach((output, i) => {
    const text = answers[i]!.text;
    const mutated =
      output.format === "csv"
        ? csvCases(text, output)
        : output.format === "json"
          ? jsonCases(text)
          : [{ name: "changed", reply: `${text}x` }];
    for (const m of mutated) {
      const swapped = answers.map((a, j) => (j === i ? { path: a.path, text: m.reply } : a));
      cases.push({ name: `${output.path}: ${m.name}`, reply: replyWith(swapped) });
    }
  });
  return cases;
}

/** One-word (or nearly) choices, read strictly: some are choices, most are answers. */
export const CHOICE_REPLIES = [
  "REQUEST_SPEC",
  "DECLINE",
  "request spec",
  "Request-Spec",
  "**DECLINE**",
  "  `REQUEST_SPEC`  ",
  "Decline.",
  "«DECLINE»",
  "DECLINE 🙂",
  "\u00a0REQUEST_SPEC\u3000",
  "ANSWER_DIRECTLY",
  "I will DECLINE",
  "REQUEST_SPEC or DECLINE",
  "DECLINE\n\nActually, here is the answer.",
  "ＲＥＱＵＥＳＴ_SPEC",
  `REQUEST_SPEC${" ".repeat(200)}`,
  "decline\u00ad",
  "",
];
