// workdirCopies: which build-context files a Harbor Dockerfile places under its final WORKDIR, and at
// which path there (what `kgate import harbor` turns into the kgate task's environment).
import { describe, expect, it } from "vitest";
import { finalWorkdir, workdirCopies } from "../src/export/dockerfile-copies.ts";

const context = ["Dockerfile", "data/a.csv", "data/sub/b.csv", "my notes.txt", "notes.txt", "run.py"];

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
    // Issue 44: each of these found no file, or the wrong ones, with the hand-written reader.
    ["a glob source: COPY data/*.csv ./", "WORKDIR /app\nCOPY data/*.csv ./\n", [["data/a.csv", "a.csv"]]],
    [
      "the JSON form, a path with a space",
      'WORKDIR /app\nCOPY ["data/a.csv", "my notes.txt", "in/"]\n',
      [
        ["data/a.csv", "in/a.csv"],
        ["my notes.txt", "in/my notes.txt"],
      ],
    ],
    [
      "WORKDIR from an ARG default",
      "FROM debian\nARG W=/app\nWORKDIR $W\nCOPY run.py .\n",
      [["run.py", "run.py"]],
    ],
    [
      "a multi-stage build: only the final stage's copies",
      "FROM node AS build\nWORKDIR /app\nCOPY . .\nFROM debian\nWORKDIR /app\nCOPY --from=build /app/out ./out\nCOPY notes.txt ./\n",
      [["notes.txt", "notes.txt"]],
    ],
    [
      "a final stage built FROM an earlier one keeps that stage's WORKDIR and copies",
      "FROM debian AS base\nWORKDIR /srv\nCOPY run.py .\nFROM base\nCOPY notes.txt .\n",
      [
        ["run.py", "run.py"],
        ["notes.txt", "notes.txt"],
      ],
    ],
  ])("%s", (_what, dockerfile, expected) => {
    const found = workdirCopies(dockerfile, context).map((c) => [c.from, c.to]);
    expect(found.sort()).toEqual([...expected].sort());
  });
});

describe("finalWorkdir", () => {
  it("is the final stage's, ARG and ENV defaults expanded", () => {
    expect(
      finalWorkdir(
        "FROM a AS one\nWORKDIR /first\nFROM b\nENV HOME_DIR=/home/agent\nWORKDIR $" + "{HOME_DIR}/w\n",
      ),
    ).toBe("/home/agent/w");
    expect(finalWorkdir("FROM a\n")).toBe("/");
  });

  it("refuses a variable without a default, naming the line, instead of making /$W", () => {
    expect(() => finalWorkdir("FROM debian\nARG W\nWORKDIR $W\n")).toThrow(
      /^Dockerfile line 3: WORKDIR \$W: the variable has no ARG or ENV default here/,
    );
  });
});
