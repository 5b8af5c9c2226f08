// The closed failure taxonomy: every way a trial can end in error, who failed, whether the engine
// retries it and whether it counts in pass rates. Retry and rate decisions read this table only.
import { z } from "zod";

/** Who failed: the agent (its own outcome), or something that says nothing about the agent. */
export const FailureOwner = z.enum([
  "agent",
  "provider",
  "sandbox",
  "verifier",
  "judge",
  "kgate",
  "cancelled",
]);
export type FailureOwner = z.infer<typeof FailureOwner>;

export interface FailureKindInfo {
  owner: FailureOwner;
  /** Does the engine start another attempt in the same session? */
  retried: boolean;
  /** Does the trial count in pass rates (as a failed trial)? */
  counted: boolean;
  /** One line for docs and reports. */
  meaning: string;
}

const agent = (meaning: string): FailureKindInfo => ({
  owner: "agent",
  retried: false,
  counted: true,
  meaning,
});
const infra = (owner: FailureOwner, retried: boolean, meaning: string): FailureKindInfo => ({
  owner,
  retried,
  counted: false,
  meaning,
});

/** The table itself: the docs' taxonomy table is generated from it (docs/architecture.md). */
export const FAILURE_KINDS = {
  timeout: agent("the agent did not finish within the task's wall-clock budget"),
  "context-overflow": agent("the agent's conversation outgrew the model's context"),
  "solution-failed": agent("the oracle's solution script exited non-zero"),
  "agent-exit": agent("the harness died while the agent's own commands ran (the agent killed it)"),
  "disk-full": agent("the agent filled its writable disk"),
  "rate-limit": infra("provider", true, "the model provider rate-limited the calls past their retries"),
  "provider-outage": infra("provider", true, "the model provider answered 5xx, 408 or 409 past the retries"),
  "provider-unreachable": infra("provider", true, "the model endpoint did not answer (connection error)"),
  auth: infra("provider", false, "the provider refused the key (401/403)"),
  "provider-rejected": infra("provider", false, "the provider refused the request (4xx) or sent a bad reply"),
  config: infra("provider", false, "the configuration cannot run here (missing key, bad setting)"),
  sandbox: infra("sandbox", true, "the sandbox failed (container vanished, API error)"),
  "sandbox-unavailable": infra("sandbox", true, "the sandbox provider did not answer (daemon down)"),
  "host-down": infra(
    "sandbox",
    true,
    "the sandbox's Docker host stopped answering (another host takes the retry)",
  ),
  "sandbox-timeout": infra(
    "sandbox",
    true,
    "a sandbox phase (create, copy in/out, remove) overran its bound",
  ),
  image: infra("sandbox", false, "the sandbox or harness image could not be built or found"),
  "harness-start": infra("sandbox", true, "the installed harness failed before the agent could act"),
  "harness-exit": infra(
    "sandbox",
    true,
    "the installed harness exited without a result, not by the agent's doing",
  ),
  relay: infra("provider", true, "the model relay between the harness and the provider failed"),
  "verifier-timeout": {
    owner: "verifier",
    retried: false,
    counted: true,
    meaning: "the verifier overran its time limit on the agent's output (a failed verdict: format)",
  },
  "verifier-crash": {
    owner: "verifier",
    retried: false,
    counted: true,
    meaning: "the verifier threw on the agent's output (a failed verdict: format)",
  },
  "verifier-broken": infra(
    "verifier",
    false,
    "the verifier fails whatever the output (cannot load, solve() throws, answer off its contract): the task's bug",
  ),
  judge: infra(
    "judge",
    false,
    "the judge of a judge criterion gave no verdict (its provider failed past the retries, its key or configuration is missing): never the agent's failure, never a pass",
  ),
  "evidence-write": infra("kgate", false, "the record or trajectory could not be written to disk"),
  internal: infra(
    "kgate",
    false,
    "kgate's own code threw: a bug (printed with its stack; the command fails)",
  ),
  cancelled: infra(
    "cancelled",
    false,
    "the run was cancelled (Ctrl-C, SIGTERM); a resume runs the trial again",
  ),
} as const satisfies Record<string, FailureKindInfo>;

export type FailureKind = keyof typeof FAILURE_KINDS;
export const FailureKind = z.enum(Object.keys(FAILURE_KINDS) as [FailureKind, ...FailureKind[]]);

export const TrialError = z.object({
  kind: FailureKind,
  /** Derived from the kind; stored so a reader needs no table. */
  owner: FailureOwner,
  message: z.string(),
  /** The stack of an `internal` error. */
  stack: z.string().optional(),
});
export type TrialError = z.infer<typeof TrialError>;

/** A TrialError of `kind`, its owner filled in from the table. */
export function trialError(kind: FailureKind, message: string, stack?: string): TrialError {
  return { kind, owner: FAILURE_KINDS[kind].owner, message, ...(stack ? { stack } : {}) };
}

/** An exception of kgate's own code, as a record's error. */
export function internalError(err: unknown): TrialError {
  const e = err instanceof Error ? err : new Error(String(err));
  return trialError("internal", e.message, e.stack);
}

/** Kinds of version-1 records, which stored free strings (with class agent|infra). */
const LEGACY_KINDS: Record<string, FailureKind> = {
  harness: "harness-start",
  aborted: "cancelled",
  "record-write": "evidence-write",
  verifier: "verifier-crash",
  setup: "internal",
  create: "sandbox",
  copyIn: "sandbox",
  provider: "provider-outage",
};

/** Reads a version-1 error ({class, kind, message}) into the taxonomy. */
export function legacyError(old: { class?: string; kind?: string; message?: string }): TrialError {
  const raw = old.kind ?? "";
  const kind: FailureKind = Object.hasOwn(FAILURE_KINDS, raw)
    ? (raw as FailureKind)
    : Object.hasOwn(LEGACY_KINDS, raw)
      ? LEGACY_KINDS[raw]!
      : old.class === "agent"
        ? "agent-exit"
        : "internal";
  return trialError(kind, old.message ?? "");
}

/** How many errors of each kind, most frequent first (reports show a run's errors by kind). */
export function errorsByKind(
  errors: ReadonlyArray<Pick<TrialError, "kind"> | null | undefined>,
): Partial<Record<FailureKind, number>> {
  const counts = new Map<FailureKind, number>();
  for (const e of errors) if (e) counts.set(e.kind, (counts.get(e.kind) ?? 0) + 1);
  return Object.fromEntries([...counts].sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0])));
}

/** `rate-limit 2, cancelled 1`, or null when there is none. */
export function errorKindsLine(counts: Partial<Record<FailureKind, number>>): string | null {
  const parts = Object.entries(counts).map(([kind, n]) => `${kind} ${n}`);
  return parts.length ? parts.join(", ") : null;
}
