import type { Readable } from "node:stream";
import type { FileDoc, StoredDocument } from "@meridian/db";
import { ZipFile } from "yazl";
import type { UserActor } from "../../platform/actor";
import type { Deps } from "../../platform/deps";
import { AppError } from "../../platform/errors";
import { loadObservationAccess } from "./access";
import { filesOf, storedObjects } from "./files";

/** Names as given, a second file of the same name as `name (2).ext`, and so on: a ZIP holds one entry per name. */
function uniqueNames() {
  const taken = new Set<string>();
  return (given: string) => {
    // yazl refuses what could escape the folder it is unpacked into ("..", "C:name"); the upload allows neither slashes nor these.
    const name = given === "." || given === ".." || /^[a-z]:/i.test(given) ? `_${given}` : given;
    const dot = name.lastIndexOf(".");
    const [stem, extension] = dot > 0 ? [name.slice(0, dot), name.slice(dot)] : [name, ""];
    let candidate = name;
    for (let copy = 2; taken.has(candidate.toLowerCase()); copy += 1) candidate = `${stem} (${copy})${extension}`;
    taken.add(candidate.toLowerCase());
    return candidate;
  };
}

const missingNote = (files: Array<StoredDocument<FileDoc>>) =>
  "These files of the observation are recorded, but object storage no longer holds their bytes, so they are not in this archive:\r\n\r\n" +
  files.map((file) => `${file.doc.filename}\t${file.doc.sizeBytes} bytes\tsha256 ${file.doc.sha256}\r\n`).join("");

/**
 * A ZIP of stored files made while it is read: each file is fetched only when the archive reaches it
 * and piped through stored, not compressed. Files without a size in `sizes` (storage no longer holds
 * them) are left out and listed in MISSING.txt by `missingNote`. `size` is the archive's exact length.
 */
export async function zipOfStoredFiles(options: {
  deps: Deps;
  files: Array<StoredDocument<FileDoc>>;
  sizes: Map<string, number>;
  missingNote: (files: Array<StoredDocument<FileDoc>>) => string;
}) {
  const { deps, sizes } = options;
  const zip = new ZipFile();
  const output = zip.outputStream as Readable;
  const nameOf = uniqueNames();
  const missing: Array<StoredDocument<FileDoc>> = [];
  let reading: Readable | undefined;
  for (const file of options.files) {
    const size = sizes.get(file.doc.objectKey);
    if (size === undefined) {
      missing.push(file);
      continue;
    }
    zip.addReadStreamLazy(nameOf(file.doc.filename), { compress: false, size, mtime: file.createdAt }, (give) => {
      deps.storage.get(file.doc.objectKey).then(
        (object) => {
          if (!object) return give(new Error(`${file.doc.objectKey} left storage while its archive was being sent`), undefined as never);
          reading = object.body;
          // yazl pipes the body without watching it: a broken fetch ends the archive, which the reader sees cut short.
          object.body.once("error", (error) => output.destroy(error));
          give(null, object.body);
        },
        (error: unknown) => give(error, undefined as never),
      );
    });
  }
  if (missing.length > 0) zip.addBuffer(Buffer.from(options.missingNote(missing)), nameOf("MISSING.txt"), { compress: false, mtime: deps.now() });
  zip.on("error", (error: Error) => output.destroy(error));
  // The reader gone: stop fetching the file under way too.
  output.once("close", () => reading?.destroy());
  const size = await new Promise<number>((resolve) => zip.end(undefined, ((total: number) => resolve(total)) as () => void));
  return { body: output, size: size >= 0 ? size : undefined };
}

/**
 * A ZIP of an observation's files, for its readers, made while it is read: each file is fetched
 * from object storage only when the archive reaches it and piped through (stored, not compressed:
 * FITS barely compresses), so the process holds a few chunks whatever the set weighs, and a slow
 * reader slows the fetch. Files storage no longer holds are left out and named in MISSING.txt.
 * yazl switches to ZIP64 by itself past 4 GiB or 65,534 entries. `size` is the archive's exact
 * length, known before the first byte since every entry's size is.
 */
export async function openObservationArchive(options: { deps: Deps; actor: UserActor; observationId: string }) {
  const { deps, actor, observationId } = options;
  const { observation } = await loadObservationAccess({ db: deps.db, actor, observationId });
  const files = await filesOf({ db: deps.db, observationId });
  const stored = await storedObjects({ deps, observationId, files });
  if (!stored) throw new AppError("SERVICE_UNAVAILABLE", "Object storage did not say which files it holds; try again shortly");
  const { body, size } = await zipOfStoredFiles({ deps, files, sizes: stored, missingNote });
  return { filename: `${observation.doc.name}.zip`, body, size };
}
