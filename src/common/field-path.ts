// A zod issue's path as a reader writes it: `limits.timeoutSec`, `outputs[0].path`, `(root)`.

export function fieldPath(path: readonly PropertyKey[]): string {
  let out = "";
  for (const segment of path) {
    if (typeof segment === "number") out += `[${segment}]`;
    else out += out ? `.${String(segment)}` : String(segment);
  }
  return out || "(root)";
}
