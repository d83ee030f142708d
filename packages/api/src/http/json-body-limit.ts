import { AppError } from "@meridian/domain";
import { bodyLimit } from "hono/body-limit";

export const MAX_JSON_BODY_BYTES = 1024 * 1024;

/**
 * 413 PAYLOAD_TOO_LARGE for a body past MAX_JSON_BODY_BYTES. A REST operation runs it after its
 * credential check (rest-adapter.ts), so a protected one answers 401 before it looks at the input;
 * tRPC runs it before the batch is parsed (app.ts).
 */
export const jsonBodyLimit = bodyLimit({
  maxSize: MAX_JSON_BODY_BYTES,
  onError: () => {
    throw new AppError("PAYLOAD_TOO_LARGE", `Request bodies may be at most ${MAX_JSON_BODY_BYTES} bytes`);
  },
});
