// Generates tasks/dependency-audit/environment/ (packages.lock.json, policy.txt): a synthetic lockfile
// and policy from a fixed seed, built around the cases where the policy tool's semantics matter, and
// refuses data on which a convention would not bite. Run: npx tsx tasks/dependency-audit/generate.ts [out_dir] [--check]
import { readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { uniformInt } from "pure-rand/distribution/uniformInt";
import { xoroshiro128plus } from "pure-rand/generator/xoroshiro128plus";
import verifier, {
  audit,
  type DependencyAuditConventions,
  parseLockfile,
  parsePolicy,
} from "../../verifiers/dependency-audit.ts";

const SEED = 4242;
const ENVIRONMENT = path.join(import.meta.dirname, "environment");
const FILLERS = 24;

const ADJECTIVES = [
  "amber",
  "brisk",
  "cobalt",
  "dapper",
  "ember",
  "fable",
  "gilded",
  "harbor",
  "ivory",
  "jolly",
];
const MORE = ["kindred", "lunar", "maple", "nimble", "opal", "pebble", "quartz", "rustic", "sable", "tidal"];
const NOUNS = ["queue", "parser", "cache", "logger", "router", "stream", "codec", "schema", "bridge", "lens"];
const MORE_NOUNS = ["forge", "vault", "relay", "loom", "sketch", "ledger"];

const ALLOW = ["MIT", "Apache-2.0", "BSD-2-Clause", "BSD-3-Clause", "ISC", "CC0-1.0", "LGPL-2.1-or-later"];
const DENY = [
  "GPL-2.0-only",
  "GPL-2.0-or-later",
  "GPL-3.0-only",
  "GPL-3.0-or-later",
  "AGPL-3.0-only",
  "SSPL-1.0",
];
/** Common licences of filler packages (allowed ones, a few written as expressions). */
const FILLER_LICENCES = [
  "MIT",
  "MIT",
  "MIT",
  "Apache-2.0",
  "Apache-2.0",
  "ISC",
  "BSD-3-Clause",
  "BSD-2-Clause",
];

type Scope = "runtime" | "dev";
interface Case {
  /** Policy lines for this package: `ban RANGE` or `exception allow|deny RANGE`. */
  rules: string[];
  versions: Array<[version: string, licence: string, scope?: Scope]>;
}

/**
 * The cases the semantics decide (the note says which convention each one exercises); every package
 * of a case gets its own name. The artefact's and the default semantics' answers are in the tests.
 */
const CASES: Case[] = [
  // hyphen: the upper bound of a hyphen range, full and partial
  {
    rules: ["ban 1.2.0 - 1.6.0"],
    versions: [
      ["1.6.0", "MIT"],
      ["1.3.4", "MIT"],
    ],
  },
  { rules: ["ban 2.0.0 - 2.4"], versions: [["2.4.1", "Apache-2.0"]] },
  // caret on 0.x
  { rules: ["ban ^0.4.1"], versions: [["0.7.2", "MIT"]] },
  { rules: ["exception allow ^0.3.0"], versions: [["0.5.0", "MPL-2.0"]] },
  // partial versions in plain comparators
  { rules: ["ban >1.2"], versions: [["1.2.5", "ISC"]] },
  { rules: ["exception allow <=2.1"], versions: [["2.1.3", "EPL-2.0"]] },
  {
    rules: ["ban =3.1"],
    versions: [
      ["3.1.4", "BSD-3-Clause"],
      ["3.1.0", "BSD-3-Clause"],
    ],
  },
  // a comma between the parts of a range list
  {
    rules: ["ban <1.0.0, >=2.5.0"],
    versions: [
      ["2.6.1", "MIT"],
      ["1.4.0", "MIT"],
    ],
  },
  { rules: ["exception allow ~1.4, ~2.0"], versions: [["2.0.3", "EPL-2.0"]] },
  // pre-releases, and their precedence (numeric and alphanumeric identifiers)
  { rules: ["ban >=2.0.0 <3.0.0"], versions: [["3.0.0-beta.2", "MIT"]] },
  { rules: ["exception allow ^1.2.0"], versions: [["1.9.0-rc.1", "Zlib"]] },
  { rules: ["ban >=4.0.0-rc.2 <4.0.0"], versions: [["4.0.0-rc.10", "Apache-2.0"]] },
  { rules: ["exception deny >=1.0.0-alpha.1 <1.0.0-beta"], versions: [["1.0.0-alpha.beta", "MIT"]] },
  // precedence of exceptions, bans and the licence lists
  { rules: ["exception allow ^3.0.0"], versions: [["3.2.0", "GPL-3.0-only"]] },
  { rules: ["exception allow >=2.0.0"], versions: [["2.2.2", "Apache-2.0 AND GPL-3.0-or-later"]] },
  { rules: ["ban <1.1.0", "exception allow >=1.0.0"], versions: [["1.0.5", "MIT"]] },
  { rules: ["exception deny ~5.2"], versions: [["5.2.9", "MIT"]] },
  // dev dependencies
  { rules: [], versions: [["4.1.0", "AGPL-3.0-only", "dev"]] },
  { rules: ["ban ^2.0.0"], versions: [["2.3.1", "MIT", "dev"]] },
  { rules: [], versions: [["0.9.4", "MPL-2.0", "dev"]] },
  { rules: ["exception deny *"], versions: [["6.0.1", "GPL-2.0", "dev"]] },
  // licence expressions and spellings (the same under every semantics)
  { rules: [], versions: [["2.8.0", "MIT OR GPL-3.0-only"]] },
  { rules: [], versions: [["1.1.1", "Apache-2.0 AND GPL-2.0"]] },
  { rules: [], versions: [["3.3.0", "(MIT OR Zlib) AND BSD-3-Clause"]] },
  { rules: [], versions: [["2.0.0", "LGPL-2.1+"]] },
  { rules: [], versions: [["1.5.2", "Zlib"]] },
  { rules: [], versions: [["0.2.0", "NOASSERTION"]] },
  { rules: [], versions: [["7.1.0", "mit"]] },
  // build metadata, tilde and wildcards (the same under every semantics)
  { rules: ["ban =1.9.3"], versions: [["1.9.3+build.14", "MIT"]] },
  {
    rules: ["exception allow ~1.2.3"],
    versions: [
      ["1.2.9", "BSL-1.0"],
      ["1.3.0", "BSL-1.0"],
    ],
  },
  { rules: ["ban 1.4.x"], versions: [["1.4.7", "ISC"]] },
];

function rng(seed: number) {
  const generator = xoroshiro128plus(seed);
  const int = (lo: number, hi: number) => uniformInt(generator, lo, hi);
  const pick = <T>(items: readonly T[]): T => items[int(0, items.length - 1)]!;
  const shuffle = <T>(items: readonly T[]): T[] => {
    const out = [...items];
    for (let i = out.length - 1; i > 0; i--) {
      const j = int(0, i);
      [out[i], out[j]] = [out[j]!, out[i]!];
    }
    return out;
  };
  return { int, pick, shuffle };
}

export function generate(seed = SEED): Record<string, string> {
  const r = rng(seed);
  const names = r
    .shuffle(
      [...ADJECTIVES, ...MORE].flatMap((a) => [...NOUNS, ...MORE_NOUNS].map((n) => `@fixture/${a}-${n}`)),
    )
    .slice(0, CASES.length + FILLERS);
  const packages: Array<{ name: string; version: string; licence: string; scope: Scope }> = [];
  const bans: string[] = [];
  const exceptions: string[] = [];
  CASES.forEach((c, i) => {
    const name = names[i]!;
    for (const rule of c.rules) {
      const [kind, ...rest] = rule.split(" ");
      if (kind === "ban") bans.push(`${name} ${rest.join(" ")}`);
      else exceptions.push(`${name} ${rest.join(" ")}`);
    }
    for (const [version, licence, scope = "runtime"] of c.versions)
      packages.push({ name, version, licence, scope });
  });
  for (const name of names.slice(CASES.length)) {
    const major = r.int(0, 5);
    const version = `${major}.${r.int(0, 12)}.${r.int(0, 20)}`;
    packages.push({
      name,
      version,
      licence: r.pick(FILLER_LICENCES),
      scope: r.int(1, 4) === 1 ? "dev" : "runtime",
    });
  }
  packages.sort((a, b) => (a.name === b.name ? (a.version < b.version ? -1 : 1) : a.name < b.name ? -1 : 1));
  const lock = { lockfileVersion: 3, name: "storefront", packages };
  const id = (prefix: string, i: number) => `${prefix}${String(i + 1).padStart(2, "0")}`;
  const policy = [
    "# Dependency policy of the storefront service (a synthetic fixture: no real project or package).",
    "# Lines: ban ID PACKAGE RANGE | exception ID PACKAGE allow|deny RANGE | allow ID LICENCE | deny ID LICENCE",
    "",
    ...r.shuffle(bans).map((b, i) => `ban ${id("B", i)} ${b}`),
    "",
    ...exceptions.map((e, i) => `exception ${id("E", i)} ${e}`),
    "",
    ...ALLOW.map((l, i) => `allow ${id("L", i)} ${l}`),
    ...DENY.map((l, i) => `deny ${id("L", ALLOW.length + i)} ${l}`),
  ];
  return {
    "packages.lock.json": `${JSON.stringify(lock, null, 2)}\n`,
    "policy.txt": `${policy.join("\n")}\n`,
  };
}

/** The properties the task relies on; throws with the reason when the data lacks one. */
export function checkGate(files: Record<string, string>): void {
  const { conventions } = verifier;
  const lock = parseLockfile(files["packages.lock.json"]);
  const policy = parsePolicy(files["policy.txt"]);
  const solve = (c: DependencyAuditConventions) => audit(lock, policy, c);
  const artefact = solve(conventions.artefact);
  const differing = (c: DependencyAuditConventions) =>
    solve(c).filter((row, i) => row.verdict !== artefact[i]!.verdict || row.rule !== artefact[i]!.rule)
      .length;
  for (const rule of ["banned", "licence-denied", "exception", "licence-allowed", "unlisted", "dev-only"]) {
    if (!artefact.some((row) => row.rule === rule)) throw new Error(`no package is decided by ${rule}`);
  }
  const apart = differing(conventions.default);
  if (apart < 12) throw new Error(`the default semantics decide only ${apart} packages differently`);
  const perturbed = differing(conventions.variants.perturbed!);
  if (perturbed < 4) throw new Error(`the perturbed semantics decide only ${perturbed} packages differently`);
  // Every convention alone at its default decides at least two packages differently.
  for (const key of Object.keys(conventions.artefact) as Array<keyof DependencyAuditConventions>) {
    const changed = differing({ ...conventions.artefact, [key]: conventions.default[key] });
    if (changed < 2) throw new Error(`${key} at its default changes only ${changed} package(s)`);
  }
}

if (process.argv[1] && path.resolve(process.argv[1]) === path.resolve(import.meta.filename)) {
  const files = generate();
  checkGate(files);
  // An out_dir argument writes there instead (`kgate check` reruns the generator into a fresh folder).
  const outDir = process.argv.slice(2).find((a) => !a.startsWith("--")) ?? ENVIRONMENT;
  for (const [name, content] of Object.entries(files)) {
    const file = path.join(outDir, name);
    if (process.argv.includes("--check")) {
      if (readFileSync(file, "utf8") !== content)
        throw new Error(`${name} differs from the generator's output`);
    } else writeFileSync(file, content);
  }
  process.stdout.write(
    `dependency-audit: ${Object.keys(files).join(", ")} ${process.argv.includes("--check") ? "match" : "written"}\n`,
  );
}
