import type { AddressInfo } from "node:net";
import PostalMime from "postal-mime";
import { SMTPServer } from "smtp-server";

export interface CapturedMail {
  from: string | undefined;
  to: string[];
  subject: string | undefined;
  text: string | undefined;
  html: string | undefined;
  replyTo: string | undefined;
  messageId: string | undefined;
  raw: string;
}

/** A real SMTP server on 127.0.0.1 that keeps every message it accepts. */
export async function startSmtpCapture(options: { failNext?: number } = {}) {
  const messages: CapturedMail[] = [];
  /** Messages refused by a `failAfter` rule (parsed, never kept in `messages`). */
  const refused: CapturedMail[] = [];
  let failuresLeft = options.failNext ?? 0;
  let rule: { accept: number; refuse: number; match?: (mail: CapturedMail) => boolean; code: number } | undefined;
  /** While held, each message waits unanswered after its data: a client killed then never saw it accepted. */
  let holding: { release: Promise<void>; open: () => void } | undefined;
  let held = 0;
  const closedSessions = new Set<string>();
  let openSessions = 0;
  const server = new SMTPServer({
    authOptional: true,
    disabledCommands: ["STARTTLS"],
    logger: false,
    onConnect(_session, callback) {
      openSessions += 1;
      callback();
    },
    onClose(session) {
      openSessions -= 1;
      closedSessions.add(session.id);
    },
    onData(stream, session, callback) {
      const chunks: Buffer[] = [];
      stream.on("data", (chunk: Buffer) => chunks.push(chunk));
      const receive = async () => {
        if (holding) {
          held += 1;
          await holding.release;
          held -= 1;
          // The client went away before the answer: it was never told the message was accepted.
          if (closedSessions.has(session.id)) return callback(new Error("client gone"));
        }
        if (failuresLeft > 0) {
          failuresLeft -= 1;
          const error = new Error("temporary failure") as Error & { responseCode: number };
          error.responseCode = 451;
          return callback(error);
        }
        const raw = Buffer.concat(chunks).toString("utf8");
        const parsed = await PostalMime.parse(raw);
        const mail: CapturedMail = {
          from: parsed.from?.address,
          to: (parsed.to ?? []).map((address) => address.address ?? ""),
          subject: parsed.subject,
          text: parsed.text,
          html: parsed.html,
          replyTo: parsed.replyTo?.[0]?.address,
          messageId: parsed.messageId,
          raw,
        };
        if (rule && (!rule.match || rule.match(mail))) {
          if (rule.accept > 0) rule.accept -= 1;
          else if (rule.refuse > 0) {
            rule.refuse -= 1;
            refused.push(mail);
            const error = new Error(rule.code >= 500 ? "permanent failure" : "temporary failure") as Error & { responseCode: number };
            error.responseCode = rule.code;
            return callback(error);
          }
        }
        messages.push(mail);
        callback();
      };
      // A message that cannot be parsed is refused rather than leaving the client waiting for an answer.
      stream.on("end", () => void receive().catch((error: Error) => callback(error)));
    },
  });
  // A client killed mid-session resets its connection: that is the client's end, not a failure of the capture.
  server.on("error", (error: NodeJS.ErrnoException) => {
    if (error.code !== "ECONNRESET" && error.code !== "EPIPE") throw error;
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.server.address() as AddressInfo;
  return {
    url: `smtp://127.0.0.1:${port}`,
    messages,
    failNext(count: number) {
      failuresLeft = count;
    },
    /** Stops answering messages: each waits after its data until `release`. */
    hold() {
      let open!: () => void;
      const release = new Promise<void>((resolve) => (open = resolve));
      holding = { release, open };
    },
    /** How many messages wait for an answer now. */
    held: () => held,
    /** Client connections open now. */
    openSessions: () => openSessions,
    release() {
      holding?.open();
      holding = undefined;
    },
    refused,
    /**
     * Delivery that breaks part-way: of the messages `match` selects (all when omitted), accepts
     * the next `accept`, then refuses the `refuse` after them with `code` (451, "try later", unless
     * given), then accepts again.
     */
    failAfter(accept: number, refuse: number, match?: (mail: CapturedMail) => boolean, code = 451) {
      rule = { accept, refuse, match, code };
    },
    async waitFor(predicate: (messages: CapturedMail[]) => boolean, timeoutMs = 15_000) {
      const deadline = Date.now() + timeoutMs;
      while (!predicate(messages)) {
        if (Date.now() > deadline) throw new Error(`timed out waiting for mail; have ${messages.length}`);
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
      return messages;
    },
    stop: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
