// Judges of judge criteria: the prompt with the deliverable as delimited data, the forced answer and
// its schema, and the panel that calls a project's judge configurations from the host.
export { JudgeAnswer, MAX_REASON_CHARS, readAnswer } from "./answer.ts";
export {
  JUDGE_CALL_TIMEOUT_MS,
  JUDGE_MAX_OUTPUT_TOKENS,
  type JudgeCallResult,
  type JudgePanel,
  type JudgePanelOptions,
  JudgeUnavailableError,
  judgePanel,
} from "./panel.ts";
export { type Deliverable, JUDGE_SYSTEM_PROMPT, judgeMessages, markerTag, VERDICT_TOOL } from "./prompt.ts";
