import type { AddressInfo } from "node:net";
import PostalMime from "postal-mime";
import { SMTPServer } from "smtp-server";

export interface CapturedMail {
  from: string | undefined;
  to: string[];
  subject: string | undefined;
  text: string | undefined;
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
  let rule: { accept: number; refuse: number; match?: (mail: CapturedMail) => boolean } | undefined;
  const server = new SMTPServer({
    authOptional: true,
    disabledCommands: ["STARTTLS"],
    logger: false,
    onData(stream, _session, callback) {
      const chunks: Buffer[] = [];
      stream.on("data", (chunk: Buffer) => chunks.push(chunk));
      stream.on("end", async () => {
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
          replyTo: parsed.replyTo?.[0]?.address,
          messageId: parsed.messageId,
          raw,
        };
        if (rule && (!rule.match || rule.match(mail))) {
          if (rule.accept > 0) rule.accept -= 1;
          else if (rule.refuse > 0) {
            rule.refuse -= 1;
            refused.push(mail);
            const error = new Error("temporary failure") as Error & { responseCode: number };
            error.responseCode = 451;
            return callback(error);
          }
        }
        messages.push(mail);
        callback();
      });
    },
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.server.address() as AddressInfo;
  return {
    url: `smtp://127.0.0.1:${port}`,
    messages,
    failNext(count: number) {
      failuresLeft = count;
    },
    refused,
    /**
     * Delivery that breaks part-way: of the messages `match` selects (all when omitted), accepts
     * the next `accept`, then refuses the `refuse` after them with 451, then accepts again.
     */
    failAfter(accept: number, refuse: number, match?: (mail: CapturedMail) => boolean) {
      rule = { accept, refuse, match };
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
