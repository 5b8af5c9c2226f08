import Docker from "dockerode";
import { spawnSync } from "node:child_process";
import tar from "tar-stream";
const d = new Docker();
const image = "kgate-sandbox:89645fea0212";
const hc = { NetworkMode: "none", CapDrop: ["ALL"], SecurityOpt: ["no-new-privileges"], Memory: 512 << 20, MemorySwap: 512 << 20, NanoCpus: 1e9, PidsLimit: 256, LogConfig: { Type: "none", Config: {} }, Tmpfs: { "/tmp": "rw,size=64m" } };
const base = { Image: image, Cmd: ["sleep", "infinity"], User: "1000:1000", Labels: { kgate: "1", "kgate.run": "prof" }, NetworkDisabled: true };
const K = ["bash", "-c", "trap 'exit 0' TERM; while :; do sleep 86400 & wait $!; done"];
const variants: Record<string, any> = {
  roVolume: { ...base, Cmd: K, Volumes: { "/home/agent": {} }, HostConfig: { ...hc, ReadonlyRootfs: true } },
  rw: { ...base, Cmd: K, HostConfig: { ...hc } },
};
const med = (v: number[]) => [...v].sort((a, b) => a - b)[Math.floor(v.length / 2)];
const pack = () => { const p = tar.pack(); for (let i = 0; i < 10; i++) p.entry({ name: `data/part-${i}.txt`, uid: 1000, gid: 1000 }, Buffer.from(`${i}`.repeat(10240))); p.finalize(); return p; };
const stat = async (ct: any, p: string) => { const r = await ct.infoArchive({ path: p }); r.resume(); };
const get = async (ct: any, p: string) => { const s = await ct.getArchive({ path: p }); s.resume(); await new Promise((r) => s.on("end", r)); };
async function exec(ct: any) { const e = await ct.exec({ Cmd: ["true"], AttachStdout: true, AttachStderr: true }); const s = await e.start({ hijack: true, stdin: false }); s.resume(); await new Promise((r) => s.on("end", r)); await e.inspect(); }
const res: Record<string, number[]> = {};
for (let i = 0; i < 24; i++) {
  for (const [name, spec] of Object.entries(variants)) {
    const t0 = performance.now();
    const ct = await d.createContainer(spec);
    await ct.start();
    await ct.putArchive(pack() as any, { path: "/home/agent/work" });
    await exec(ct);
    await stat(ct, "/home/agent/work/data"); await stat(ct, "/home/agent/work/data/part-0.txt"); await get(ct, "/home/agent/work/data/part-0.txt");
    await ct.remove({ force: true, v: true });
    (res[name] ??= []).push(performance.now() - t0);
  }
  const t0 = performance.now();
  spawnSync("docker", ["run", "--rm", image, "true"]);
  (res.cli ??= []).push(performance.now() - t0);
}
for (const [k, v] of Object.entries(res)) console.log(k.padEnd(14), med(v).toFixed(0), (med(v) / med(res.cli)).toFixed(2));
