// The labels every provider puts on its sandboxes (and whatever it makes for them), so that a sweep
// finds what a dead kgate process left and an interrupted run's sandboxes can be removed by run.
import { ownerLabel } from "../common/index.ts";

export const LABEL = "kgate";
export const LABEL_RUN = "kgate.run";
export const LABEL_TRIAL = "kgate.trial";
const LABEL_TASK = "kgate.task";
/** `<host>/<pid>/<process start time>`: tells a live owner from a dead one whose pid was reused. */
export const LABEL_OWNER = "kgate.owner";

export function containerLabels(ids: {
  runId: string;
  trialId: string;
  taskId: string;
}): Record<string, string> {
  return {
    [LABEL]: "1",
    [LABEL_RUN]: ids.runId,
    [LABEL_TRIAL]: ids.trialId,
    [LABEL_TASK]: ids.taskId,
    [LABEL_OWNER]: ownerLabel(),
  };
}
