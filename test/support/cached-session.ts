// Test support: a scripted long agent session for prompt-caching tests and the caching benchmark:
// each turn runs one bash command whose output (about 1.2 KB) grows the conversation; the last turn
// calls finish. Works in every wire format (the turn is read from the request).
import { type Script, turnIndex } from "./model-server.ts";

/** A session of `turns` model calls: turns - 1 bash calls, then finish. */
export function longSession(turns: number): Script {
  return (request) => {
    const turn = turnIndex(request);
    if (turn >= turns - 1) return { text: "All steps done.", toolCalls: [{ name: "finish", input: {} }] };
    const from = turn * 300 + 1;
    return {
      text: `Step ${turn + 1}: listing the next block.`,
      toolCalls: [{ name: "bash", input: { command: `seq ${from} ${from + 299}` } }],
    };
  };
}
