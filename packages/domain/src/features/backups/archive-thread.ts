import net from "node:net";
import type { Readable, Writable } from "node:stream";
import { parentPort, workerData } from "node:worker_threads";
import { constants, createBrotliCompress, type BrotliOptions } from "node:zlib";
import postgres from "postgres";
import { ARCHIVE_END, BATCH_BYTES, SECTION_END, SectionDigest, sectionHeader } from "./archive-format";
import {
  CHUNK_CREDITS,
  type ArchiveParentMessage,
  type ArchiveThreadData,
  type ArchiveThreadMessage,
  type SectionDone,
  type SectionPlan,
} from "./archive-thread-protocol";

/**
 * One of a backup's reader threads: it imports the parent's exported snapshot on a connection of
 * its own and writes the parts it is given, each a brotli stream of sections (a whole collection,
 * or a block range of a large one) sent to the parent in compressed chunks for that part's upload.
 * Several run at once, each with its own backend producing COPY text (ADR 23). A thread of its own,
 * because its garbage (a buffer per row, millions of rows) is collected far more cheaply in a
 * small heap than in the worker's, and the worker's own thread stays free.
 */

const PROGRESS_MS = 1000;

/**
 * Brotli at this quality makes a smaller archive than gzip at its default level (pg_dump's) for
 * about a third of the CPU time, on two cores shared with the backend that produces the rows.
 */
const BROTLI_QUALITY = 1;

const port = parentPort!;
const data = (workerData as { data: ArchiveThreadData }).data;
const send = (message: ArchiveThreadMessage) => port.postMessage(message);

let credits = CHUNK_CREDITS;
let onCredit: (() => void) | undefined;
/** Parts (or the finish) the parent has given and the thread not yet taken. */
const orders: Array<Exclude<ArchiveParentMessage, { type: "credit" }>> = [];
let onOrder: (() => void) | undefined;
port.on("message", (message: ArchiveParentMessage) => {
  if (message.type === "credit") {
    credits += 1;
    onCredit?.();
    onCredit = undefined;
    return;
  }
  orders.push(message);
  onOrder?.();
  onOrder = undefined;
});

async function nextOrder() {
  while (orders.length === 0) await new Promise<void>((resolve) => (onOrder = resolve));
  return orders.shift()!;
}

/** Writes a chunk, and resolves once the stream can take more (at once unless it is over its high-water mark). */
function writeChunk(sink: Writable, chunk: Buffer): Promise<void> | undefined {
  if (sink.write(chunk)) return undefined;
  return new Promise((resolve) => sink.once("drain", resolve));
}

/** One COPY's rows into the compressor, taken as events and written in batches, each hashed and counted once. */
function copySection(rows: Readable, sink: Writable, digest: SectionDigest): Promise<void> {
  return new Promise((resolve, reject) => {
    let pending: Buffer[] = [];
    let pendingBytes = 0;
    const sendPending = () => {
      const batch = Buffer.concat(pending, pendingBytes);
      pending = [];
      pendingBytes = 0;
      digest.add(batch);
      const drained = writeChunk(sink, batch);
      if (drained) {
        rows.pause();
        void drained.then(() => rows.resume());
      }
    };
    rows.once("error", reject);
    rows.on("data", (row: Buffer) => {
      pending.push(row);
      pendingBytes += row.length;
      if (pendingBytes >= BATCH_BYTES) sendPending();
    });
    rows.once("end", () => {
      if (pendingBytes > 0) sendPending();
      resolve();
    });
  });
}

/**
 * Sends the compressor's output to the parent in chunks of about BATCH_BYTES (it hands over a few
 * kilobytes at a time), each moved rather than copied, and never more than CHUNK_CREDITS
 * chunks ahead of the parent's writes.
 */
async function forward(compressed: Readable) {
  let pending: Buffer[] = [];
  let pendingBytes = 0;
  const post = async () => {
    while (credits === 0) await new Promise<void>((resolve) => (onCredit = resolve));
    credits -= 1;
    // A chunk of its own, so moving its memory takes nothing else with it.
    const chunk = new Uint8Array(pendingBytes);
    let at = 0;
    for (const part of pending) {
      chunk.set(part, at);
      at += part.length;
    }
    pending = [];
    pendingBytes = 0;
    port.postMessage({ type: "chunk", chunk } satisfies ArchiveThreadMessage, [chunk.buffer]);
  };
  for await (const output of compressed as AsyncIterable<Buffer>) {
    pending.push(output);
    pendingBytes += output.length;
    if (pendingBytes >= BATCH_BYTES) await post();
  }
  if (pendingBytes > 0) await post();
}

/** A read under this size means the reader is waiting on PostgreSQL's 8 KiB sends: the socket is held to let more arrive. */
const SMALL_READ_BYTES = 32 * 1024;
const HOLD_MS = 1;
/** postgres.js's own default connect timeout. */
const CONNECT_TIMEOUT_MS = 30_000;

/**
 * A socket that reads COPY's stream in large pieces. PostgreSQL sends it in 8 KiB writes, and a
 * waiting reader woke for each: about 110,000 reads, each a wake-up, a system call, a buffer and
 * a pass through the driver, for a million observations. After a small read the socket stops
 * reading for a millisecond while the kernel queues what follows (the backend keeps sending; the
 * socket's buffer holds megabytes), then reads it in 64 KiB pieces: a sixth as many reads, and a
 * quarter less of the reader's CPU. The driver's own pauses (back-pressure) are kept apart and
 * always win: the socket reads again only once neither holds it.
 */
class BatchedReadSocket extends net.Socket {
  private driverPaused = false;
  private held = false;

  constructor() {
    super();
    // Registered before the driver's listener: it sees every read first.
    this.on("data", (chunk: Buffer) => {
      if (this.held || chunk.length >= SMALL_READ_BYTES) return;
      this.held = true;
      super.pause();
      setTimeout(() => {
        this.held = false;
        if (!this.driverPaused) super.resume();
      }, HOLD_MS);
    });
  }

  override pause() {
    this.driverPaused = true;
    return super.pause();
  }

  override resume() {
    this.driverPaused = false;
    if (!this.held) super.resume();
    return this;
  }
}

/**
 * The reader's socket to PostgreSQL, given to postgres.js ready connected; only for a plain
 * connection to one server (TLS reads the socket below these pauses, and several hosts need the
 * driver's own failover), where `undefined` leaves the socket to the driver.
 */
function batchedSocketFactory(connection: ArchiveThreadData["connection"]) {
  const hosts = connection.host.split(",");
  if (connection.ssl || (hosts.length !== 1 && !connection.path)) return undefined;
  return () =>
    new Promise<net.Socket>((resolve, reject) => {
      const socket = new BatchedReadSocket();
      socket.once("error", reject);
      socket.setTimeout(CONNECT_TIMEOUT_MS, () => socket.destroy(new Error("the backup reader could not reach PostgreSQL")));
      const connected = () => {
        socket.off("error", reject);
        socket.setTimeout(0);
        resolve(socket);
      };
      if (connection.path) return socket.connect(connection.path, connected);
      const at = hosts[0]!.lastIndexOf(":");
      socket.connect(Number(hosts[0]!.slice(at + 1)), hosts[0]!.slice(0, at).replace(/^\[|\]$/g, ""), connected);
    });
}

const quoted = (name: string) => `"${name.replaceAll('"', '""')}"`;

/**
 * A section's COPY: the whole table, or the rows of a block range, found by a TID range scan
 * (PostgreSQL 14 and later; older servers filter a sequential scan, slower but the same rows).
 * COPY takes no parameters, so the statement is built from quoted names and checked integers.
 */
function copyStatement(section: SectionPlan): string {
  const columns = section.columns.map(quoted).join(", ");
  if (!section.blocks) return `copy ${quoted(section.collection)} (${columns}) to stdout`;
  const { from, to } = section.blocks;
  if (!Number.isInteger(from) || (to !== null && !Number.isInteger(to))) throw new Error("a block range is not whole numbers");
  const upTo = to === null ? "" : ` and ctid < '(${to},0)'::tid`;
  return `copy (select ${columns} from ${quoted(section.collection)} where ctid >= '(${from},0)'::tid${upTo}) to stdout`;
}

async function readParts() {
  // A snapshot id is hex digits and dashes; it is checked because SET TRANSACTION SNAPSHOT takes no parameter.
  if (!/^[0-9A-F-]+$/i.test(data.snapshot)) throw new Error(`not a snapshot id: ${data.snapshot}`);
  // postgres.js takes a `socket` factory (documented, missing from its types).
  const socket = batchedSocketFactory(data.connection);
  const sql = postgres({
    ...data.connection,
    ssl: data.connection.ssl as postgres.Options<never>["ssl"],
    max: 1,
    onnotice: () => undefined,
    ...(socket ? ({ socket } as object) : {}),
  });
  let rowsBefore = 0;
  let digest: SectionDigest | undefined;
  const progress = setInterval(() => send({ type: "rows", rows: rowsBefore + (digest?.rows ?? 0) }), PROGRESS_MS);
  try {
    // Not inTransaction: this thread has no Deps, only its own connection, which imports the exporting transaction's snapshot.
    await sql.begin("isolation level repeatable read read only", async (tx) => {
      await tx.unsafe(`set transaction snapshot '${data.snapshot}'`);
      send({ type: "ready" });
      for (let order = await nextOrder(); order.type === "part"; order = await nextOrder()) {
        const compressor = createBrotliCompress(brotliOptions);
        const forwarded = forward(compressor);
        // On a failure the compressor is destroyed below, and what forwarding says of it adds nothing.
        forwarded.catch(() => undefined);
        const done: SectionDone[] = [];
        try {
          for (const section of order.sections) {
            await writeChunk(compressor, sectionHeader({ collection: section.collection, columns: section.columns }));
            digest = new SectionDigest();
            const rows = (await tx.unsafe(copyStatement(section)).readable()) as Readable;
            await copySection(rows, compressor, digest);
            await writeChunk(compressor, SECTION_END);
            done.push({ ...section, ...digest.digest() });
            rowsBefore += digest.rows;
            digest = undefined;
          }
          compressor.end(ARCHIVE_END);
          await forwarded;
        } catch (error) {
          compressor.destroy();
          throw error;
        }
        send({ type: "part", sections: done });
      }
    });
  } finally {
    clearInterval(progress);
    await sql.end({ timeout: 5 });
  }
}

const brotliOptions: BrotliOptions & { writableHighWaterMark: number } = {
  params: { [constants.BROTLI_PARAM_QUALITY]: BROTLI_QUALITY, [constants.BROTLI_PARAM_MODE]: constants.BROTLI_MODE_TEXT },
  // Four batches may wait for the compressor while the next rows arrive: reading and compressing overlap.
  writableHighWaterMark: 4 * BATCH_BYTES,
};

readParts().then(
  () => send({ type: "done" }),
  (error: unknown) => send({ type: "error", message: error instanceof Error ? error.message : String(error) }),
);
