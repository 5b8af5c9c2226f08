// The zip container of an xlsx workbook, read through yauzl with caps: an entry that declares more
// than its cap is refused before a byte is inflated, and one that inflates past what it declared is
// stopped there (yauzl checks every entry's size), so a zip bomb in an imported task is refused,
// not inflated. Entries are streamed, chunk by chunk, into the caller's parser.
import { StringDecoder } from "node:string_decoder";
import yauzl from "yauzl";

export interface ZipCaps {
  /** Most bytes one entry may inflate to. */
  entryBytes: number;
  /** Most bytes every entry read may inflate to together. */
  totalBytes: number;
}

/** 64 MiB an entry, 256 MiB in all: far above any real sheet an audit reads, far below memory. */
export const XLSX_CAPS: ZipCaps = { entryBytes: 64 * 1024 * 1024, totalBytes: 256 * 1024 * 1024 };

export interface ZipReader {
  names: ReadonlySet<string>;
  /** Streams one entry's text (UTF-8) into `onText`; resolves when it has all been given. */
  readText(name: string, onText: (chunk: string) => void): Promise<void>;
  close(): void;
}

function entriesOf(zip: yauzl.ZipFile): Promise<Map<string, yauzl.Entry>> {
  return new Promise((resolve, reject) => {
    const entries = new Map<string, yauzl.Entry>();
    zip.on("entry", (entry: yauzl.Entry) => {
      entries.set(entry.fileName, entry);
      zip.readEntry();
    });
    zip.on("end", () => resolve(entries));
    zip.on("error", reject);
    zip.readEntry();
  });
}

/** Opens the zip in `bytes`; `what` names the file in every error. */
export async function openZip(bytes: Buffer, what: string, caps: ZipCaps = XLSX_CAPS): Promise<ZipReader> {
  const zip = await yauzl.fromBufferPromise(bytes, { lazyEntries: true, autoClose: false });
  const entries = await entriesOf(zip);
  let total = 0;
  const readText = (name: string, onText: (chunk: string) => void) =>
    new Promise<void>((resolve, reject) => {
      const entry = entries.get(name);
      if (!entry) return reject(new Error(`${what}: no ${name} in the zip`));
      if (entry.uncompressedSize > caps.entryBytes)
        return reject(
          new Error(
            `${what}: ${name} declares ${entry.uncompressedSize} bytes, over the cap of ${caps.entryBytes} (a zip bomb?)`,
          ),
        );
      total += entry.uncompressedSize;
      if (total > caps.totalBytes)
        return reject(
          new Error(`${what}: the entries read declare over ${caps.totalBytes} bytes together (a zip bomb?)`),
        );
      zip.openReadStream(entry, (err, stream) => {
        if (err) return reject(new Error(`${what}: ${name}: ${err.message}`));
        const decoder = new StringDecoder("utf8");
        stream.on("data", (chunk: Buffer) => {
          try {
            onText(decoder.write(chunk));
          } catch (e) {
            stream.destroy();
            reject(e);
          }
        });
        stream.on("error", (e) => reject(new Error(`${what}: ${name}: ${e.message}`)));
        stream.on("end", () => {
          try {
            onText(decoder.end());
            resolve();
          } catch (e) {
            reject(e);
          }
        });
      });
    });
  return { names: new Set(entries.keys()), readText, close: () => zip.close() };
}
