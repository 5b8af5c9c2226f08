// The task folder's light face: what `kgate audit` (the pre-commit hook) needs from src/task without
// loading the task schemas (classic zod): the task listing, problems, the canary line, the work-path rule.
export { extractCanary } from "./canary.ts";
export { listTaskIds, noTaskMessage } from "./listing.ts";
export { type Problem, parseJsonText, problemsFromZod } from "./problems.ts";
export { isWorkPath, WORK_PATH_RULE } from "./work-path.ts";
