import Docker from "dockerode";
const d = new Docker();
const image = "kgate-sandbox:89645fea0212";
const base = { Image: image, Cmd: ["sleep", "infinity"], User: "1000:1000", Labels: { kgate: "1", "kgate.run": "prof" }, NetworkDisabled: true };
const hc = { NetworkMode: "none", CapDrop: ["ALL"], SecurityOpt: ["no-new-privileges"], Memory: 512 << 20, MemorySwap: 512 << 20, NanoCpus: 1e9, PidsLimit: 256, LogConfig: { Type: "none", Config: {} } };
const variants: Record<string, any> = {
  minimal: { ...base, HostConfig: { ...hc } },
  volume: { ...base, Volumes: { "/home/agent": {} }, HostConfig: { ...hc } },
  init: { ...base, HostConfig: { ...hc, Init: true } },
  tmpfs_ro: { ...base, HostConfig: { ...hc, ReadonlyRootfs: true, Tmpfs: { "/tmp": "rw,size=64m" } } },
  full: { ...base, Volumes: { "/home/agent": {} }, HostConfig: { ...hc, Init: true, ReadonlyRootfs: true, Tmpfs: { "/tmp": "rw,size=64m" } } },
};
const med = (v: number[]) => [...v].sort((a, b) => a - b)[Math.floor(v.length / 2)];
for (let round = 0; round < 1; round++)
for (const [name, spec] of Object.entries(variants)) {
  const c: number[] = [], s: number[] = [], r: number[] = [];
  for (let i = 0; i < 10; i++) {
    let t0 = performance.now();
    const ct = await d.createContainer(spec);
    c.push(performance.now() - t0); t0 = performance.now();
    await ct.start();
    s.push(performance.now() - t0); t0 = performance.now();
    await ct.remove({ force: true, v: true });
    r.push(performance.now() - t0);
  }
  console.log(name.padEnd(10), "create", med(c).toFixed(0), "start", med(s).toFixed(0), "remove", med(r).toFixed(0));
}
