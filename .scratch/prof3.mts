import Docker from "dockerode";
const d = new Docker();
const image = "kgate-sandbox:89645fea0212";
const spec = { Image: image, Cmd: ["sleep", "infinity"], User: "1000:1000", Labels: { kgate: "1", "kgate.run": "prof" }, NetworkDisabled: true, Volumes: { "/home/agent": {} },
  HostConfig: { NetworkMode: "none", CapDrop: ["ALL"], SecurityOpt: ["no-new-privileges"], Memory: 512 << 20, MemorySwap: 512 << 20, NanoCpus: 1e9, PidsLimit: 256, LogConfig: { Type: "none", Config: {} }, Init: true, ReadonlyRootfs: true, Tmpfs: { "/tmp": "rw,size=64m" } } };
const med = (v: number[]) => [...v].sort((a, b) => a - b)[Math.floor(v.length / 2)];
const stat = async (ct: any, p: string) => { const r = await ct.infoArchive({ path: p }); r.resume(); };
const get = async (ct: any, p: string) => { const s = await ct.getArchive({ path: p }); s.resume(); await new Promise((r) => s.on("end", r)); };
for (const mode of ["kill", "pause", "running", "kill", "pause", "running"]) {
  const a: number[] = [], b: number[] = [], c: number[] = [];
  for (let i = 0; i < 8; i++) {
    const ct = await d.createContainer(spec);
    await ct.start();
    let t0 = performance.now();
    if (mode === "kill") await ct.kill();
    if (mode === "pause") await ct.pause();
    a.push(performance.now() - t0); t0 = performance.now();
    await stat(ct, "/home/agent/work"); await stat(ct, "/home/agent/.profile"); await get(ct, "/home/agent/.bashrc");
    b.push(performance.now() - t0); t0 = performance.now();
    await ct.remove({ force: true, v: true });
    c.push(performance.now() - t0);
  }
  console.log(mode.padEnd(8), "halt", med(a).toFixed(0), "collect", med(b).toFixed(0), "remove", med(c).toFixed(0), "sum", (med(a)+med(b)+med(c)).toFixed(0));
}
