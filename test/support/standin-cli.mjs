// Test support: a small stand-in for an installed CLI harness, run inside the sandbox. Like Claude
// Code it reads the prompt on stdin, lists the skills in .claude/skills in its system prompt, calls
// the Anthropic Messages API at $ANTHROPIC_BASE_URL with $ANTHROPIC_API_KEY (streamed), runs `bash`
// tool calls, and prints a JSON result line. Plain Node (>= 18), no dependencies.
import { execFileSync } from "node:child_process";
import { existsSync, readdirSync, readFileSync } from "node:fs";

const base = process.env.ANTHROPIC_BASE_URL;
const key = process.env.ANTHROPIC_API_KEY;
const model = process.env.STANDIN_MODEL ?? "standin-model";
const maxTurns = Number(process.env.STANDIN_MAX_TURNS ?? "20");

function skills() {
  const dir = ".claude/skills";
  if (!existsSync(dir)) return [];
  return readdirSync(dir).flatMap((name) => {
    const file = `${dir}/${name}/SKILL.md`;
    if (!existsSync(file)) return [];
    const description = /^description:\s*(.*)$/m.exec(readFileSync(file, "utf8"))?.[1] ?? "";
    return [`- ${name} (${file}): ${description}`];
  });
}

async function call(messages, system) {
  const response = await fetch(`${base}/v1/messages`, {
    method: "POST",
    headers: { "content-type": "application/json", "x-api-key": key, "anthropic-version": "2023-06-01" },
    body: JSON.stringify({
      model,
      max_tokens: 1024,
      stream: true,
      system,
      messages,
      tools: [
        {
          name: "bash",
          description: "run a command",
          input_schema: {
            type: "object",
            properties: { command: { type: "string" } },
            required: ["command"],
          },
        },
      ],
    }),
  });
  const text = await response.text();
  if (!response.ok) throw new Error(`model call failed: ${response.status} ${text.slice(0, 300)}`);
  const content = [];
  let stop = null;
  for (const block of text.split("\n\n")) {
    const data = block.split("\n").find((l) => l.startsWith("data:"));
    if (!data) continue;
    const event = JSON.parse(data.slice(5));
    if (event.type === "content_block_start") content[event.index] = { ...event.content_block, json: "" };
    if (event.type === "content_block_delta" && event.delta.type === "text_delta")
      content[event.index].text += event.delta.text;
    if (event.type === "content_block_delta" && event.delta.type === "input_json_delta")
      content[event.index].json += event.delta.partial_json;
    if (event.type === "message_delta") stop = event.delta.stop_reason;
  }
  return {
    stop,
    content: content.map(({ json, ...b }) =>
      b.type === "tool_use" ? { ...b, input: JSON.parse(json || "{}") } : b,
    ),
  };
}

const prompt = readFileSync(0, "utf8");
const listed = skills();
const system = `You are a stand-in harness.${listed.length ? `\nSkills:\n${listed.join("\n")}` : ""}`;
const messages = [{ role: "user", content: prompt }];
let turns = 0;
try {
  for (; turns < maxTurns; ) {
    const reply = await call(messages, system);
    turns += 1;
    messages.push({ role: "assistant", content: reply.content });
    const uses = reply.content.filter((b) => b.type === "tool_use");
    if (uses.length === 0) break;
    messages.push({
      role: "user",
      content: uses.map((u) => {
        let output;
        let isError = false;
        try {
          output = execFileSync("bash", ["-c", String(u.input.command)], {
            encoding: "utf8",
            stdio: ["ignore", "pipe", "pipe"],
          });
        } catch (err) {
          output = `${err.stdout ?? ""}${err.stderr ?? ""}exit ${err.status}`;
          isError = true;
        }
        return { type: "tool_result", tool_use_id: u.id, content: output, is_error: isError };
      }),
    });
  }
  const subtype = turns >= maxTurns ? "error_max_turns" : "success";
  process.stdout.write(`${JSON.stringify({ type: "result", subtype, num_turns: turns })}\n`);
} catch (err) {
  process.stderr.write(`standin: ${err.message}\n`);
  process.stdout.write(
    `${JSON.stringify({ type: "result", subtype: "error_during_execution", num_turns: turns })}\n`,
  );
  process.exit(1);
}
