// Verifier for dependency-audit: the verdict of the dependency policy on every package of a synthetic
// lockfile, as a pure function of packages.lock.json, policy.txt and the policy tool's semantics
// (range operators, pre-releases, licence precedence, dev scope).
import { defineVerifier } from "kgate/verify";

// ---- The inputs: versions, licence expressions, the lockfile and the policy file ----

export interface Version {
  major: number;
  minor: number;
  patch: number;
  /** Dot-separated identifiers; numeric ones as numbers. Empty: a release. */
  prerelease: Array<string | number>;
}

/** A version as written in a range: minor and patch may be left out (or be `x` / `*` when `wildcard`). */
interface PartialVersion {
  major: number;
  minor?: number;
  patch?: number;
  prerelease: Array<string | number>;
  wildcard: boolean;
}

export interface Comparator {
  op: "=" | ">" | ">=" | "<" | "<=";
  v: Version;
}

const VERSION =
  /^(\d+)(?:\.(\d+|x|\*))?(?:\.(\d+|x|\*))?(?:-([0-9A-Za-z-]+(?:\.[0-9A-Za-z-]+)*))?(?:\+[0-9A-Za-z.-]+)?$/;

function parsePartial(text: string, allowWildcard: boolean): PartialVersion {
  const m = VERSION.exec(text);
  const wild = (s: string | undefined) => s === "x" || s === "*";
  if (!m || (!allowWildcard && (wild(m[2]) || wild(m[3])))) throw new Error(`"${text}" is not a version`);
  const prerelease = m[4] ? m[4].split(".").map((id) => (/^\d+$/.test(id) ? Number(id) : id)) : [];
  const minor = m[2] === undefined || wild(m[2]) ? undefined : Number(m[2]);
  const patch = m[3] === undefined || wild(m[3]) || minor === undefined ? undefined : Number(m[3]);
  return { major: Number(m[1]), minor, patch, prerelease, wildcard: wild(m[2]) || wild(m[3]) };
}

/** A full version of the lockfile (build metadata ignored); an error for anything else. */
export function parseVersion(text: string): Version {
  const v = parsePartial(text, false);
  if (v.minor === undefined || v.patch === undefined) throw new Error(`"${text}" is not a full version`);
  return { major: v.major, minor: v.minor, patch: v.patch, prerelease: v.prerelease };
}

/** SemVer 2.0.0 precedence: numbers, then a pre-release below its release, identifiers one by one. */
export function compareVersions(a: Version, b: Version): number {
  const core = a.major - b.major || a.minor - b.minor || a.patch - b.patch;
  if (core !== 0) return Math.sign(core);
  if (a.prerelease.length === 0 || b.prerelease.length === 0) {
    return Math.sign(b.prerelease.length - a.prerelease.length);
  }
  for (let i = 0; i < Math.min(a.prerelease.length, b.prerelease.length); i++) {
    const x = a.prerelease[i]!;
    const y = b.prerelease[i]!;
    if (x === y) continue;
    if (typeof x === "number" && typeof y === "number") return Math.sign(x - y);
    if (typeof x === "number") return -1;
    if (typeof y === "number") return 1;
    return x < y ? -1 : 1;
  }
  return Math.sign(a.prerelease.length - b.prerelease.length);
}

export type Licence = { kind: "id"; id: string } | { kind: "and" | "or"; parts: Licence[] };
export type LicenceVerdict = "allow" | "deny" | "unlisted";

/** An SPDX licence id in the policy's spelling: lower case, `+` as `-or-later`, a bare GNU id as `-only`. */
export function licenceId(text: string): string {
  const id = text.trim().toLowerCase();
  if (id.endsWith("+")) return `${id.slice(0, -1)}-or-later`;
  if (/^(a|l)?gpl-\d\.\d$/.test(id)) return `${id}-only`;
  return id;
}

/** An SPDX expression: AND binds tighter than OR, parentheses group. */
export function parseLicence(text: string): Licence {
  const tokens = text.match(/\(|\)|[^\s()]+/g) ?? [];
  let i = 0;
  const fail = (why: string): never => {
    throw new Error(`licence "${text}": ${why}`);
  };
  const operand = (): Licence => {
    const t = tokens[i++];
    if (t === undefined) return fail("ends early");
    if (t === "(") {
      const inner = either();
      if (tokens[i++] !== ")") fail("a parenthesis is not closed");
      return inner;
    }
    if (t === ")" || t === "AND" || t === "OR") return fail(`unexpected ${t}`);
    return { kind: "id", id: licenceId(t) };
  };
  const chain = (kind: "and" | "or", next: () => Licence): Licence => {
    const parts = [next()];
    while (tokens[i] === kind.toUpperCase()) {
      i++;
      parts.push(next());
    }
    return parts.length === 1 ? parts[0]! : { kind, parts };
  };
  const both = () => chain("and", operand);
  const either = () => chain("or", both);
  if (tokens.length === 0) return { kind: "id", id: "noassertion" };
  const expression = either();
  if (i !== tokens.length) fail(`unexpected ${tokens[i]}`);
  return expression;
}

export interface Lockfile {
  packages: Array<{ name: string; version: string; licence: string; scope: "runtime" | "dev" }>;
}

export function parseLockfile(text: string | undefined): Lockfile {
  if (text === undefined) throw new Error("packages.lock.json is missing");
  const doc = JSON.parse(text) as { packages?: unknown };
  if (!Array.isArray(doc.packages)) throw new Error("packages.lock.json: packages: expected an array");
  return {
    packages: doc.packages.map((p: Record<string, unknown>, i) => {
      const field = (name: string) => {
        if (typeof p[name] !== "string")
          throw new Error(`packages.lock.json: packages[${i}].${name}: expected a string`);
        return p[name] as string;
      };
      const scope = field("scope");
      if (scope !== "runtime" && scope !== "dev") {
        throw new Error(`packages.lock.json: packages[${i}].scope: expected runtime or dev`);
      }
      return { name: field("name"), version: field("version"), licence: field("licence"), scope };
    }),
  };
}

export interface Policy {
  bans: Array<{ id: string; package: string; range: string }>;
  exceptions: Array<{ id: string; package: string; verdict: "allow" | "deny"; range: string }>;
  licences: Map<string, "allow" | "deny">;
}

/** policy.txt: `ban ID PACKAGE RANGE`, `exception ID PACKAGE allow|deny RANGE`, `allow|deny ID LICENCE`; `#` comments. */
export function parsePolicy(text: string | undefined): Policy {
  if (text === undefined) throw new Error("policy.txt is missing");
  const policy: Policy = { bans: [], exceptions: [], licences: new Map() };
  text.split("\n").forEach((raw, i) => {
    const line = raw.replace(/#.*/, "").trim();
    if (!line) return;
    const [kind, id, a, b, ...rest] = line.split(/\s+/);
    const fail = (): never => {
      throw new Error(`policy.txt: line ${i + 1}: cannot read "${line}"`);
    };
    if (kind === "ban" && id && a && b) policy.bans.push({ id, package: a, range: [b, ...rest].join(" ") });
    else if (kind === "exception" && id && a && (b === "allow" || b === "deny") && rest.length > 0)
      policy.exceptions.push({ id, package: a, verdict: b, range: rest.join(" ") });
    else if ((kind === "allow" || kind === "deny") && id && a && !b) policy.licences.set(licenceId(a), kind);
    else fail();
  });
  return policy;
}

// ---- The policy tool's semantics ----

export interface DependencyAuditConventions {
  /** What a comma between the parts of a range list means: alternatives (`or`) or more conditions (`and`). */
  alternatives: "or" | "and";
  /** A partial version in `=`, bare, `>`, `>=`, `<`, `<=`: padded with zeros, or an npm X-range. */
  partial: "zero" | "x-range";
  /** `^V` with major 0: still up to the next major, or (npm) up to the next left-most non-zero component. */
  caret: "major" | "leftmost-nonzero";
  /** The upper bound of `A - B`: excluded (partial B padded with zeros), or (npm) included. */
  hyphen: "exclusive" | "inclusive";
  /**
   * A pre-release version satisfies a comparator set: by precedence like any version; (npm) only when a
   * comparator of the set names a pre-release of the same major.minor.patch; or only by an exact pin.
   */
  prerelease: "precedence" | "same-tuple" | "never";
  /** Dev dependencies: bans and exceptions only, licences not evaluated; like runtime; or exempt from all rules. */
  devScope: "licences-skipped" | "checked" | "exempt";
  /** The order of the decisions: ban, denied licence, exception, allowed licence; or an exception before the lists; or before the bans too. */
  precedence: "deny-first" | "exception-first" | "exception-over-ban";
}

export const OUTPUT = "output/audit.csv";

export type Rule = "banned" | "licence-denied" | "exception" | "licence-allowed" | "unlisted" | "dev-only";

export interface AuditRow {
  package: string;
  version: string;
  verdict: "allow" | "review" | "deny";
  rule: Rule;
}

type Op = Comparator["op"];

const ZERO = { major: 0, minor: 0, patch: 0, prerelease: [] as Array<string | number> };

/** The comparators one token of a range stands for (a hyphen range is handled by the caller). */
function desugar(token: string, c: DependencyAuditConventions): Comparator[] {
  if (token === "*" || token === "x") return [];
  const m = /^(\^|~|>=|<=|>|<|=)?(.+)$/.exec(token)!;
  const op = m[1] ?? "=";
  const v = parsePartial(m[2]!, op === "=");
  const full = (major: number, minor = 0, patch = 0): Version => ({ major, minor, patch, prerelease: [] });
  const at: Version = { major: v.major, minor: v.minor ?? 0, patch: v.patch ?? 0, prerelease: v.prerelease };
  if (v.wildcard) {
    if (v.minor === undefined)
      return [
        { op: ">=", v: full(v.major) },
        { op: "<", v: full(v.major + 1) },
      ];
    return [
      { op: ">=", v: full(v.major, v.minor) },
      { op: "<", v: full(v.major, v.minor + 1) },
    ];
  }
  if (op === "^") {
    let upper = full(v.major + 1);
    if (c.caret === "leftmost-nonzero" && v.major === 0) {
      if (v.minor === undefined) upper = full(1);
      else if (v.minor > 0 || v.patch === undefined) upper = full(0, v.minor + 1);
      else upper = full(0, 0, v.patch + 1);
    }
    return [
      { op: ">=", v: at },
      { op: "<", v: upper },
    ];
  }
  if (op === "~") {
    const upper = v.minor === undefined ? full(v.major + 1) : full(v.major, v.minor + 1);
    return [
      { op: ">=", v: at },
      { op: "<", v: upper },
    ];
  }
  if (c.partial === "x-range" && v.patch === undefined) {
    // npm: a partial version is the range of everything it leaves open.
    const next = v.minor === undefined ? full(v.major + 1) : full(v.major, v.minor + 1);
    const low = full(v.major, v.minor ?? 0);
    const ranges: Record<string, Comparator[]> = {
      "=": [
        { op: ">=", v: low },
        { op: "<", v: next },
      ],
      ">": [{ op: ">=", v: next }],
      ">=": [{ op: ">=", v: low }],
      "<": [{ op: "<", v: low }],
      "<=": [{ op: "<", v: next }],
    };
    return ranges[op]!;
  }
  return [{ op: op as Op, v: at }];
}

function hyphen(from: string, to: string, c: DependencyAuditConventions): Comparator[] {
  const a = parsePartial(from, false);
  const b = parsePartial(to, false);
  const low: Comparator = {
    op: ">=",
    v: { major: a.major, minor: a.minor ?? 0, patch: a.patch ?? 0, prerelease: a.prerelease },
  };
  const padded: Version = {
    major: b.major,
    minor: b.minor ?? 0,
    patch: b.patch ?? 0,
    prerelease: b.prerelease,
  };
  if (c.hyphen === "exclusive") return [low, { op: "<", v: padded }];
  if (b.patch !== undefined) return [low, { op: "<=", v: padded }];
  const next =
    b.minor === undefined ? { ...ZERO, major: b.major + 1 } : { ...ZERO, major: b.major, minor: b.minor + 1 };
  return [low, { op: "<", v: next }];
}

/** The comparator sets (alternatives of conjunctions) of a range list. */
export function parseRange(text: string, c: DependencyAuditConventions): Comparator[][] {
  const sets = text.split(",").map((part) => {
    const tokens = part.trim().split(/\s+/).filter(Boolean);
    const out: Comparator[] = [];
    for (let i = 0; i < tokens.length; i++) {
      if (tokens[i + 1] === "-") {
        out.push(...hyphen(tokens[i]!, tokens[i + 2]!, c));
        i += 2;
      } else out.push(...desugar(tokens[i]!, c));
    }
    return out;
  });
  return c.alternatives === "or" ? sets : [sets.flat()];
}

function holds(version: Version, { op, v }: Comparator): boolean {
  const d = compareVersions(version, v);
  return { "=": d === 0, ">": d > 0, ">=": d >= 0, "<": d < 0, "<=": d <= 0 }[op];
}

export function satisfies(version: Version, sets: Comparator[][], c: DependencyAuditConventions): boolean {
  return sets.some((set) => {
    if (!set.every((comparator) => holds(version, comparator))) return false;
    if (version.prerelease.length === 0 || c.prerelease === "precedence") return true;
    if (c.prerelease === "never") return set.some((k) => k.op === "=" && compareVersions(k.v, version) === 0);
    return set.some(
      (k) =>
        k.v.prerelease.length > 0 &&
        k.v.major === version.major &&
        k.v.minor === version.minor &&
        k.v.patch === version.patch,
    );
  });
}

/** allow > unlisted > deny: OR takes the best alternative, AND the worst part. */
const RANK: Record<LicenceVerdict, number> = { deny: 0, unlisted: 1, allow: 2 };

export function licenceVerdict(expression: Licence, policy: Policy): LicenceVerdict {
  if (expression.kind === "id") return policy.licences.get(expression.id) ?? "unlisted";
  const verdicts = expression.parts.map((p) => licenceVerdict(p, policy));
  const pick = expression.kind === "or" ? Math.max : Math.min;
  const rank = pick(...verdicts.map((v) => RANK[v]));
  return (Object.keys(RANK) as LicenceVerdict[]).find((v) => RANK[v] === rank)!;
}

export function audit(lock: Lockfile, policy: Policy, c: DependencyAuditConventions): AuditRow[] {
  const ranges = new Map<string, Comparator[][]>();
  const matches = (range: string, version: Version) => {
    if (!ranges.has(range)) ranges.set(range, parseRange(range, c));
    return satisfies(version, ranges.get(range)!, c);
  };
  return lock.packages.map((p): AuditRow => {
    const row = (verdict: AuditRow["verdict"], rule: Rule) => ({
      package: p.name,
      version: p.version,
      verdict,
      rule,
    });
    const version = parseVersion(p.version);
    const dev = p.scope === "dev";
    if (dev && c.devScope === "exempt") return row("allow", "dev-only");
    const banned = policy.bans.some((b) => b.package === p.name && matches(b.range, version));
    const exception = policy.exceptions.find((e) => e.package === p.name && matches(e.range, version));
    const licence =
      dev && c.devScope === "licences-skipped" ? null : licenceVerdict(parseLicence(p.licence), policy);
    const steps: Array<() => AuditRow | null> = [
      () => (banned ? row("deny", "banned") : null),
      () => (licence === "deny" ? row("deny", "licence-denied") : null),
      () => (exception ? row(exception.verdict, "exception") : null),
    ];
    // deny-first: ban, denied licence, exception; exception-first: ban, exception, denied licence;
    // exception-over-ban: exception, ban, denied licence.
    const order =
      c.precedence === "deny-first" ? [0, 1, 2] : c.precedence === "exception-first" ? [0, 2, 1] : [2, 0, 1];
    for (const i of order) {
      const decided = steps[i]!();
      if (decided) return decided;
    }
    if (licence === null) return row("allow", "dev-only");
    return licence === "allow" ? row("allow", "licence-allowed") : row("review", "unlisted");
  });
}

const artefact: DependencyAuditConventions = {
  alternatives: "or",
  partial: "zero",
  caret: "major",
  hyphen: "exclusive",
  prerelease: "precedence",
  devScope: "licences-skipped",
  precedence: "deny-first",
};

export default defineVerifier<DependencyAuditConventions>({
  conventions: {
    artefact,
    // Without the specification: npm's range semantics (node-semver), a comma joining conditions as in
    // pip, Cargo and Composer, every dependency checked, and the specific exception before the lists.
    default: {
      alternatives: "and",
      partial: "x-range",
      caret: "leftmost-nonzero",
      hyphen: "inclusive",
      prerelease: "same-tuple",
      devScope: "checked",
      precedence: "exception-first",
    },
    variants: {
      perturbed: { ...artefact, prerelease: "never", devScope: "exempt", precedence: "exception-over-ban" },
      compressed: artefact,
    },
  },
  solve(files, c) {
    const lock = parseLockfile(files["packages.lock.json"]);
    const policy = parsePolicy(files["policy.txt"]);
    return { [OUTPUT]: audit(lock, policy, c) };
  },
});
