const CONNECTION_ERRORS = new Set(["ECONNECTION", "ETIMEDOUT", "ECONNREFUSED", "ECONNRESET", "ESOCKET", "EDNS"]);

/** No SMTP reply at all: the mail server could not be reached, which is no message's fault. */
export function isConnectionError(error: unknown): boolean {
  const { responseCode, code } = (error ?? {}) as { responseCode?: unknown; code?: unknown };
  return typeof responseCode !== "number" && typeof code === "string" && CONNECTION_ERRORS.has(code);
}

/** SMTP 5xx: the message or address will never be accepted; 4xx ("try later") and anything else are retried. */
export const isPermanentRefusal = (error: unknown) => {
  const { responseCode } = (error ?? {}) as { responseCode?: unknown };
  return typeof responseCode === "number" && responseCode >= 500;
};

export const errorText = ({ error, length }: { error: unknown; length: number }) => String((error as Error)?.message ?? error).slice(0, length);
