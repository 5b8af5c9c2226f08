// workdirCopies: which build-context files a Harbor Dockerfile places under its final WORKDIR, and at
// which path there (what `kgate import harbor` turns into the kgate task's environment).
import { describe, expect, it } from "vitest";
import { workdirCopies } from "../src/export/dockerfile-copies.ts";

const context = ["Dockerfile", "data/a.csv", "data/sub/b.csv", "notes.txt", "run.py"];

describe("workdirCopies", () => {
  it.each([
    [
      "a folder into the WORKDIR",
      "WORKDIR /app\nCOPY data/ /app/data/\n",
      [
        ["data/a.csv", "data/a.csv"],
        ["data/sub/b.csv", "data/sub/b.csv"],
      ],
    ],
    [
      "a folder's contents to the WORKDIR itself, --chown ignored",
      "WORKDIR /w\nCOPY --chown=1000:1000 data/ /w/\n",
      [
        ["data/a.csv", "a.csv"],
        ["data/sub/b.csv", "sub/b.csv"],
      ],
    ],
    [
      "relative destinations resolve against the WORKDIR of the time",
      "WORKDIR /app\nCOPY run.py notes.txt ./bin/\n",
      [
        ["run.py", "bin/run.py"],
        ["notes.txt", "bin/notes.txt"],
      ],
    ],
    ["a single file renamed", "WORKDIR /app\nCOPY notes.txt /app/README\n", [["notes.txt", "README"]]],
    [
      "the whole context, continuation lines joined",
      "WORKDIR /srv\nCOPY \\\n  . .\n",
      context.map((f) => [f, f]),
    ],
    [
      "nothing outside the final WORKDIR, nothing from another stage",
      "WORKDIR /app\nCOPY notes.txt /opt/\nCOPY --from=build /out /app/out\nWORKDIR /elsewhere\nCOPY run.py /app/run.py\n",
      [],
    ],
  ])("%s", (_what, dockerfile, expected) => {
    const found = workdirCopies(dockerfile, context).map((c) => [c.from, c.to]);
    expect(found.sort()).toEqual([...expected].sort());
  });
});
