// What a path relative to the sandbox work directory may look like (task.json's artefact and output
// paths): shared by the task schema and the leak audit's view of task.json.

export const WORK_PATH_RULE =
  "must be a relative path inside the work directory (no leading '/', no '..', no empty segment, no backslash, no NUL or control character)";

// biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what it refuses.
const CONTROL = /[\u0000-\u001f\u007f]/;

export function isWorkPath(p: string): boolean {
  return (
    !p.startsWith("/") &&
    !p.includes("\\") &&
    !CONTROL.test(p) &&
    !p.split("/").some((s) => s === ".." || s === "")
  );
}
