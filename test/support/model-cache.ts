// Test support: prompt-cache accounting for the loopback model server, by prefix, as the providers
// bill it. Anthropic: explicit `cache_control` breakpoints over tools -> system -> messages; a hit is
// the longest cached prefix ending at a block boundary up to 20 blocks before a breakpoint; the rest
// up to the last breakpoint is written; what follows it is uncached input. OpenAI-style Chat
// Completions: automatic, the longest previously seen prefix of whole messages. Either way a prefix
// shorter than `minTokens` is never cached. Tokens are estimated as ceil(JSON length / 4) per block (breakpoints left out).
import { createHash, type Hash } from "node:crypto";
import type { ReplyUsage } from "./model-wire.ts";

export interface PromptCacheOptions {
  /** Shortest cacheable prefix in tokens (Anthropic: 1024 for most models; OpenAI: 1024). */
  minTokens?: number;
}

const LOOKBACK_BLOCKS = 20;

interface Block {
  value: unknown;
  breakpoint: boolean;
}

function hasBreakpoint(value: unknown): boolean {
  return (value as { cache_control?: unknown } | null)?.cache_control != null;
}

/** Tools, then system, then message content, as Anthropic orders the prompt for caching. */
function anthropicBlocks(body: Record<string, unknown>): Block[] {
  const blocks: Block[] = [];
  for (const tool of (body.tools as unknown[] | undefined) ?? [])
    blocks.push({ value: tool, breakpoint: hasBreakpoint(tool) });
  const system = body.system;
  if (typeof system === "string") blocks.push({ value: system, breakpoint: false });
  else
    for (const b of (system as unknown[] | undefined) ?? [])
      blocks.push({ value: b, breakpoint: hasBreakpoint(b) });
  for (const m of (body.messages as Array<{ role: string; content: unknown }> | undefined) ?? []) {
    if (typeof m.content === "string")
      blocks.push({ value: { role: m.role, text: m.content }, breakpoint: false });
    else
      for (const b of m.content as unknown[])
        blocks.push({ value: { role: m.role, b }, breakpoint: hasBreakpoint(b) });
  }
  return blocks;
}

/** Whole messages (and the tools first), for automatic prefix caching. */
function chatBlocks(body: Record<string, unknown>): Block[] {
  const tools = body.tools ? [{ value: body.tools, breakpoint: false }] : [];
  const messages = (body.messages as unknown[] | undefined) ?? [];
  return [...tools, ...messages.map((m) => ({ value: m, breakpoint: false }))];
}

/** A block as the cache sees it: its content, not whether it carries a breakpoint. */
const content = (value: unknown) => JSON.stringify(value, (k, v) => (k === "cache_control" ? undefined : v));

/** The hash of every prefix (after block i) and its token count, with the model mixed in. */
function prefixes(model: string, blocks: Block[]): Array<{ key: string; tokens: number }> {
  const hash: Hash = createHash("sha256").update(model);
  let tokens = 0;
  return blocks.map((b) => {
    const text = content(b.value);
    hash.update(text).update("\u0000");
    tokens += Math.max(1, Math.ceil(text.length / 4));
    return { key: hash.copy().digest("hex"), tokens };
  });
}

export class PromptCache {
  private readonly cached = new Set<string>();
  private readonly minTokens: number;

  constructor(options: PromptCacheOptions = {}) {
    this.minTokens = options.minTokens ?? 1024;
  }

  /** Input-side usage of one request (output is the caller's), and the cache updated by it. */
  account(api: "anthropic" | "openai-chat", body: Record<string, unknown>): Omit<ReplyUsage, "output"> {
    const model = String(body.model ?? "");
    const blocks = api === "anthropic" ? anthropicBlocks(body) : chatBlocks(body);
    const ends = prefixes(model, blocks);
    const total = ends.at(-1)?.tokens ?? 0;
    const cacheable = (i: number) => ends[i]!.tokens >= this.minTokens;
    if (api === "openai-chat") {
      let hit = -1;
      ends.forEach((e, i) => {
        if (this.cached.has(e.key)) hit = i;
      });
      ends.forEach((e, i) => {
        if (cacheable(i)) this.cached.add(e.key);
      });
      const cacheRead = hit >= 0 ? ends[hit]!.tokens : 0;
      return { input: total - cacheRead, cacheRead, cacheWrite: 0 };
    }
    const breakpoints = blocks.flatMap((b, i) => (b.breakpoint ? [i] : []));
    const last = breakpoints.at(-1);
    if (last === undefined) return { input: total, cacheRead: 0, cacheWrite: 0 };
    let hit = -1;
    for (const bp of breakpoints) {
      for (let i = bp; i >= Math.max(0, bp - LOOKBACK_BLOCKS); i--) {
        if (this.cached.has(ends[i]!.key)) {
          hit = Math.max(hit, i);
          break;
        }
      }
    }
    for (const bp of breakpoints) if (cacheable(bp)) this.cached.add(ends[bp]!.key);
    const cacheRead = hit >= 0 ? ends[hit]!.tokens : 0;
    const cachedUpTo = cacheable(last) ? ends[last]!.tokens : cacheRead;
    return { input: total - cachedUpTo, cacheRead, cacheWrite: cachedUpTo - cacheRead };
  }
}
