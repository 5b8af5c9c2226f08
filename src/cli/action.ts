// What every verb's registration gets from the router (src/cli.ts): an action that hands the parsed
// line to the verb's module; and the one way a repeatable option collects its values.

/** An action for `verb`: commander calls it with the positional arguments, the options, the command. */
export type ActionFor = (verb: string) => (...args: unknown[]) => Promise<void>;

/** The help of every model-calling verb's --no-ping (the endpoint ping before the first trial). */
export const NO_PING_HELP =
  "do not ping the agents' endpoints before the first trial (by default one that does not answer stops the command)";

/** A repeatable option: every value, in order. */
export function collect(value: string, previous: string[] | undefined): string[] {
  return [...(previous ?? []), value];
}
