import fs from "node:fs/promises";
import path from "node:path";
import type { Env } from "@meridian/config";
import nodemailer from "nodemailer";

export interface MailMessage {
  from: string;
  to: string;
  subject: string;
  text: string;
  html?: string;
  replyTo?: string;
  messageId: string;
}

export interface MailTransport {
  readonly description: string;
  send(message: MailMessage): Promise<void>;
  close(): void;
}

/** SMTP when SMTP_URL is set; otherwise each message is written as an .eml file under DATA_DIR/mail. */
export function createMailTransport(options: { env: Env; pooled?: boolean }): MailTransport {
  const { env } = options;
  if (env.SMTP_URL) {
    const url = new URL(env.SMTP_URL);
    if (options.pooled) {
      // Messages reuse open connections instead of a handshake each (nodemailer reads these from the URL).
      url.searchParams.set("pool", "true");
      url.searchParams.set("maxConnections", String(env.SMTP_POOL_SIZE));
      url.searchParams.set("maxMessages", "1000");
    }
    const transporter = nodemailer.createTransport(url.toString());
    return {
      description: `SMTP ${new URL(env.SMTP_URL).host}`,
      async send(message) {
        await transporter.sendMail(message);
      },
      close: () => transporter.close(),
    };
  }
  const directory = path.join(env.DATA_DIR, "mail");
  const renderer = nodemailer.createTransport({ streamTransport: true, buffer: true, newline: "unix" });
  return {
    description: `files in ${directory}`,
    async send(message) {
      const info = await renderer.sendMail(message);
      await fs.mkdir(directory, { recursive: true });
      const name = message.messageId.replace(/[<>]/g, "").replace(/[^\w.@-]/g, "_");
      await fs.writeFile(path.join(directory, `${name}.eml`), info.message as Buffer);
    },
    close: () => renderer.close(),
  };
}
