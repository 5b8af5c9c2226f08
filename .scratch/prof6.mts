import Docker from "dockerode";
import tar from "tar-stream";
const d = new Docker();
const image = "kgate-sandbox:89645fea0212";
const K = ["bash", "-c", "trap 'exit 0' TERM; while :; do sleep 86400 & wait $!; done"];
const spec = { Image: image, Cmd: K, User: "1000:1000", Labels: { kgate: "1", "kgate.run": "prof" }, NetworkDisabled: true, Volumes: { "/home/agent": {} },
  HostConfig: { NetworkMode: "none", CapDrop: ["ALL"], SecurityOpt: ["no-new-privileges"], Memory: 512 << 20, MemorySwap: 512 << 20, NanoCpus: 1e9, PidsLimit: 256, LogConfig: { Type: "none", Config: {} }, ReadonlyRootfs: true, Tmpfs: { "/tmp": "rw,size=64m" } } };
const pack = () => { const p = tar.pack(); for (let i = 0; i < 10; i++) p.entry({ name: `data/part-${i}.txt`, uid: 1000, gid: 1000 }, Buffer.from(`${i}`.repeat(10240))); p.finalize(); return p; };
const med = (v: number[]) => [...v].sort((a, b) => a - b)[Math.floor(v.length / 2)]!;
const res: Record<string, number[]> = {};
for (let i = 0; i < 12; i++) {
  for (const order of ["put-then-start", "start-then-put", "remove-stopped"]) {
    const t0 = performance.now();
    const ct = await d.createContainer(spec);
    if (order === "put-then-start") { await ct.putArchive(pack() as any, { path: "/home/agent/work" }); await ct.start(); }
    else { await ct.start(); await ct.putArchive(pack() as any, { path: "/home/agent/work" }); }
    (res[order] ??= []).push(performance.now() - t0);
    const t1 = performance.now();
    if (order === "remove-stopped") { await ct.kill(); await ct.remove({ v: true }); } else await ct.remove({ force: true, v: true });
    (res[order + " rm"] ??= []).push(performance.now() - t1);
  }
}
for (const [k, v] of Object.entries(res)) console.log(k.padEnd(22), med(v).toFixed(0));
