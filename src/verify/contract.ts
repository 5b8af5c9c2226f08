// What a task's verifier module (verifiers/<id>.ts) exports, and what verification receives from a trial.

/**
 * verifiers/<id>.ts default-exports `defineVerifier({...})`: a reference solver that is a pure
 * function of the environment files and a set of conventions, plus the conventions of the artefact,
 * the curator's declared defaults (what a competent agent without the artefact would assume), and
 * each declared variant. Failure attribution compares an output with the answers under each set.
 *
 * What counts as equal (tolerance, string normalisation, keyed or ordered rows) is declared in
 * task.json `outputs[].compare` and `outputs[].key`; the module holds only code: the solver and,
 * where a deliverable is judged by named checks, its rubric.
 */
export interface TaskVerifier<C> {
  conventions: {
    artefact: C;
    default: C;
    /** One entry per variant declared in task.json (perturbed ones for attribution, compressed ones must equal artefact). */
    variants: Record<string, C>;
  };
  /**
   * Expected outputs keyed by output path (as in task.json outputs[].path): for csv an array of row
   * objects keyed by column name (numbers as numbers); for json the document; for text either the
   * expected string or, when the output has a rubric, whatever its criteria take as `expected`.
   */
  solve(environment: EnvironmentFiles, conventions: C): Record<string, unknown>;
  /**
   * Named deterministic checks per output path: required for text outputs judged by rubric. The
   * criteria's parameters are whatever the output holds (text, rows, document) and whatever solve()
   * returned for it, so they are open here: annotate them (`check: (text: string, rows: Row[]) =>`),
   * or declare the rubric as a `Rubric<string, Row[]>` for full checking. (They were `never`, which
   * failed tsc on a correct verifier that left them to inference.)
   */
  // biome-ignore lint/suspicious/noExplicitAny: the types differ per output; the author states them
  rubric?: Record<string, Rubric<any, any>>;
}

/**
 * K named criteria for one output; reward R = product of the criteria (all must pass), partial score
 * the weighted mean sum(w_k v_k) / sum(w_k). For csv/json outputs they run after, and beside, the
 * comparison with the reference, unless `judgesAlone`.
 */
export interface Rubric<A = unknown, E = unknown> {
  criteria: Array<Criterion<A, E>>;
  /**
   * csv/json outputs only: the criteria alone judge the output. The comparison with the reference
   * then adds no criterion of its own; it still attributes a failure and gives the diff. The
   * criteria must between them check every value the output carries.
   */
  judgesAlone?: boolean;
  /**
   * Text outputs only: a deliverable that meets every criterion for `expected`. `kgate check` renders
   * the answer of each convention set with it (e.g. the default-convention answer must fail).
   */
  render?: (expected: E) => string;
}

/** A rubric criterion: a deterministic check in code, or a model-graded judge criterion. */
export type Criterion<A = unknown, E = unknown> = CodeCriterion<A, E> | JudgeCriterion<E>;

export interface CodeCriterion<A = unknown, E = unknown> {
  kind?: "code";
  name: string;
  /** Its weight in the partial score (a positive number; 1 when left out). The reward ignores it. */
  weight?: number;
  /**
   * `actual` is the text (text outputs), the typed rows (csv: objects keyed by column) or the
   * document (json); `expected` is what solve() returned for the output. Must be deterministic;
   * a thrown error counts as a failed criterion.
   */
  check(actual: A, expected: E): boolean | { passed: boolean; detail?: string };
}

/**
 * A criterion a model judges (docs/verify.md#judge-criteria): the judge (an agent configuration of
 * kgate.config.json, called from the host after the code criteria) reads the outputs as data and
 * answers pass or fail with a short reason. `kgate check` calibrates it before any trial trusts it.
 */
export interface JudgeCriterion<E = unknown> {
  kind: "judge";
  name: string;
  /** Its weight in the partial score (a positive number; 1 when left out). The reward ignores it. */
  weight?: number;
  /** The agent configuration (`agents` of kgate.config.json) that judges. */
  judge: string;
  /**
   * What a right deliverable must do, in words: the judge's reference. A function of `expected` (what
   * solve() returned for this output; `answers`: for every output) when it states facts the
   * conventions decide, so that a deliverable written under other conventions fails it. Pure.
   */
  criterion: string | ((expected: E, answers: Readonly<Record<string, unknown>>) => string);
  /** The outputs the judge reads (declared output paths); default: this rubric's output. */
  reads?: string[];
}

export function isJudgeCriterion<E>(criterion: Criterion<unknown, E>): criterion is JudgeCriterion<E> {
  return criterion.kind === "judge";
}

/** Environment files by path relative to environment/, as UTF-8 text. */
export type EnvironmentFiles = Readonly<Record<string, string>>;

export function defineVerifier<C>(verifier: TaskVerifier<C>): TaskVerifier<C> {
  return verifier;
}

/** One declared output as a trial hands it to verification. */
export interface OutputForVerification {
  path: string;
  status: "collected" | "missing" | "rejected";
  /** The file's bytes when collected. */
  bytes?: Buffer;
  /** Why it is missing or was rejected. */
  reason?: string;
}
