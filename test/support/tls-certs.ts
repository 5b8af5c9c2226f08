// Test support: a throw-away CA, a server certificate for 127.0.0.1 and a client certificate, made
// with openssl, as a Docker daemon's --tlsverify and kgate's `sandbox.hosts[].tls` take them.
import { spawnSync } from "node:child_process";
import { writeFileSync } from "node:fs";
import path from "node:path";
import { tempDir } from "./project.ts";

export interface TlsFiles {
  dir: string;
  ca: string;
  serverCert: string;
  serverKey: string;
  cert: string;
  key: string;
}

function openssl(args: string[], cwd: string): void {
  const r = spawnSync("openssl", args, { cwd, encoding: "utf8" });
  if (r.status !== 0) throw new Error(`openssl ${args.join(" ")}: ${r.stderr}`);
}

/** Made in a folder removed after the test file (they are made in its beforeAll). */
export function makeTlsFiles(): TlsFiles {
  const dir = tempDir("kgate-tls-", "file");
  openssl(
    [
      "req",
      "-x509",
      "-newkey",
      "rsa:2048",
      "-nodes",
      "-days",
      "1",
      "-subj",
      "/CN=kgate test CA",
      "-keyout",
      "ca-key.pem",
      "-out",
      "ca.pem",
    ],
    dir,
  );
  writeFileSync(path.join(dir, "server.ext"), "subjectAltName=IP:127.0.0.1\nextendedKeyUsage=serverAuth\n");
  writeFileSync(path.join(dir, "client.ext"), "extendedKeyUsage=clientAuth\n");
  for (const who of ["server", "client"]) {
    openssl(
      [
        "req",
        "-newkey",
        "rsa:2048",
        "-nodes",
        "-subj",
        `/CN=${who === "server" ? "127.0.0.1" : "kgate"}`,
        "-keyout",
        `${who}-key.pem`,
        "-out",
        `${who}.csr`,
      ],
      dir,
    );
    openssl(
      [
        "x509",
        "-req",
        "-in",
        `${who}.csr`,
        "-CA",
        "ca.pem",
        "-CAkey",
        "ca-key.pem",
        "-CAcreateserial",
        "-days",
        "1",
        "-extfile",
        `${who}.ext`,
        "-out",
        `${who}-cert.pem`,
      ],
      dir,
    );
  }
  const at = (f: string) => path.join(dir, f);
  return {
    dir,
    ca: at("ca.pem"),
    serverCert: at("server-cert.pem"),
    serverKey: at("server-key.pem"),
    cert: at("client-cert.pem"),
    key: at("client-key.pem"),
  };
}
