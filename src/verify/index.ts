// The verification concern's public face: the verifier contract, loading, verifyTrial and its parts.

export { type CsvProblem, type CsvVisitor, csvProblemText, readCsv } from "../common/index.ts";
// What verifyTrial returns, for the package's `kgate/verify` entry (the schemas live in src/record).
export {
  Attribution,
  CriterionResult,
  Evidence,
  JudgeOutcome,
  JudgeVerdict,
  UNVERIFIED,
  Verdict,
} from "../record/index.ts";
export {
  ATTRIBUTION_THRESHOLD,
  type AttributionResult,
  attribute,
  attributeFrom,
  type Candidate,
} from "./attribution.ts";
export { type Agreement, agreement, compareTables, type TableComparison } from "./compare.ts";
export * from "./contract.ts";
export { type CsvParse, type CsvText, csvField, parseCsv } from "./csv.ts";
export { DIFF_CAP } from "./diff.ts";
export { environmentRows, environmentText } from "./environment.ts";
export { criterionText, type JudgeCandidate } from "./judge-criteria.ts";
export {
  attributionNeeded,
  JUDGES_NOT_EXPORTED,
  judgesNotAsked,
  leftToJudge,
  pendingJudgeCriteria,
  settleJudged,
  withoutJudges,
} from "./judged.ts";
export { verifyKillable } from "./killable.ts";
export {
  EMPTY_ARRAY,
  EMPTY_OBJECT,
  type Leaf,
  type LeafRule,
  leavesMatch,
  normaliseString,
  numbersMatch,
} from "./leaf.ts";
export { type LoadedVerifier, loadVerifier, VerifierLoadError } from "./load.ts";
export { decodeOutput, type ParsedOutput, parseActual, parseExpected } from "./parse.ts";
export {
  type ConventionSet,
  conventionsOf,
  type ExpectedOutputs,
  expectedOutputs,
  parseAnswers,
  readEnvironment,
  solveOrExplain,
  solveRaw,
  VerifierError,
} from "./reference.ts";
export { renderAnswers, renderOutput } from "./render.ts";
export { roundHalfAway, roundHalfEven, roundToStep, type StepRounding } from "./rounding.ts";
export { failedReason, rewardAndScore, runCriterion } from "./rubric.ts";
export { leafAt, type Table, tableFromCsv, tableFromJson, tableFromRows, tableFromText } from "./table.ts";
export { throwSite } from "./throw-site.ts";
export { verifyTrial, verifyWith } from "./verify.ts";
export { VerifierRunError } from "./worker-pool.ts";
