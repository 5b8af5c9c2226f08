// The copy-in archive that carries a volume's seed: tarBody walks a folder's tar (as Docker's archive
// API writes one) to its end-of-archive blocks, and seededPack appends the files after the seed so
// that one extraction does both.
import tar from "tar-stream";
import { describe, expect, it } from "vitest";
import { seededPack, tarBody } from "../src/sandbox/archive.ts";

interface Entry {
  name: string;
  type?: "file" | "directory";
  bytes?: Buffer;
  uid?: number;
}

async function tarOf(entries: readonly Entry[]): Promise<Buffer> {
  const pack = tar.pack();
  for (const e of entries)
    pack.entry({ name: e.name, type: e.type ?? "file", uid: e.uid ?? 0 }, e.bytes ?? "");
  pack.finalize();
  const chunks: Buffer[] = [];
  for await (const c of pack) chunks.push(c as Buffer);
  return Buffer.concat(chunks);
}

/** Every entry of a tar stream: name, type, owner and content. */
async function entriesOf(stream: AsyncIterable<unknown>): Promise<Array<Required<Entry>>> {
  const extract = tar.extract();
  const found: Array<Required<Entry>> = [];
  const done = (async () => {
    for await (const entry of extract) {
      const chunks: Buffer[] = [];
      for await (const c of entry) chunks.push(c as Buffer);
      const h = entry.header;
      found.push({
        name: h.name,
        type: h.type as "file" | "directory",
        bytes: Buffer.concat(chunks),
        uid: h.uid ?? -1,
      });
    }
  })();
  for await (const chunk of stream) extract.write(chunk as Buffer);
  extract.end(() => {});
  await done;
  return found;
}

/** The image's home as Docker archives `/home/agent/.`: the folder, a dot file, the work folder. */
const SEED: Entry[] = [
  { name: "./", type: "directory", uid: 1000 },
  { name: "./.bashrc", bytes: Buffer.from("# bashrc\n"), uid: 1000 },
  { name: "./work/", type: "directory", uid: 1000 },
];

describe("tarBody", () => {
  it("keeps the entries without the end-of-archive blocks and names the folders", async () => {
    const whole = await tarOf(SEED);
    const body = tarBody(whole);
    // Three headers of 512 bytes, and .bashrc's 9 bytes padded to one block: 4 * 512 = 2048.
    expect(body?.bytes.length).toBe(2048);
    // Everything after it is zeros (the end-of-archive blocks and the record's padding).
    expect(whole.subarray(2048).every((b) => b === 0)).toBe(true);
    expect([...(body?.folders ?? [])].sort()).toEqual(["", "work"]);
  });

  it("is null for a tar cut inside an entry", async () => {
    const whole = await tarOf([{ name: "big", bytes: Buffer.alloc(4000, 1) }]);
    // The header and 1000 of the 4000 bytes (8 blocks): the entry runs past the end.
    expect(tarBody(whole.subarray(0, 512 + 1000))).toBeNull();
  });
});

describe("seededPack", () => {
  it("sends the seed's entries, then the files under the folder, their parents made but not the folder", async () => {
    const seed = tarBody(await tarOf(SEED));
    if (!seed) throw new Error("the seed did not parse");
    const files = [
      { path: "data/a.txt", bytes: Buffer.from("a") },
      { path: "b.txt", bytes: Buffer.from("bb") },
    ];
    const entries = await entriesOf(seededPack(seed, "work", files, { uid: 1000, gid: 1000 }));
    expect(entries.map((e) => [e.name, e.type, e.uid])).toEqual([
      ["./", "directory", 1000],
      ["./.bashrc", "file", 1000],
      ["./work/", "directory", 1000],
      // work/ itself is the seed's: only the files' own parents are new entries
      ["work/data/", "directory", 1000],
      ["work/data/a.txt", "file", 1000],
      ["work/b.txt", "file", 1000],
    ]);
    expect(entries.map((e) => e.bytes.toString())).toEqual(["", "# bashrc\n", "", "", "a", "bb"]);
  });
});
