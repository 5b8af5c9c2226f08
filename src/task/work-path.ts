// What a path relative to the sandbox work directory may look like (task.json's artefact and output
// paths): shared by the task schema and the leak audit's view of task.json.

export const WORK_PATH_RULE =
  "must be a relative path inside the work directory (no leading '/', no '..', no empty segment)";

export function isWorkPath(p: string): boolean {
  return !p.startsWith("/") && !p.includes("\\") && !p.split("/").some((s) => s === ".." || s === "");
}
