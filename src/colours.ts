// One colour policy for every output: colours only where a person reads them (the stream is a TTY
// and TERM is not dumb), never under NO_COLOR, always under FORCE_COLOR. picocolors alone also
// colours under CI=true, which garbles logs and machine output.
import picocolors from "picocolors";

export type Colours = ReturnType<typeof picocolors.createColors>;

/** Whether output written to `stream` gets colours. */
export function coloursOn(stream: { isTTY?: boolean }, env: NodeJS.ProcessEnv = process.env): boolean {
  if ("FORCE_COLOR" in env && env.FORCE_COLOR !== "0") return true;
  if ("NO_COLOR" in env) return false;
  return stream.isTTY === true && env.TERM !== "dumb";
}

/** Colours for a stream under the policy. */
export function coloursFor(stream: { isTTY?: boolean }, env: NodeJS.ProcessEnv = process.env): Colours {
  return picocolors.createColors(coloursOn(stream, env));
}

/** Colours for stdout (results). */
export const pc = coloursFor(process.stdout);
