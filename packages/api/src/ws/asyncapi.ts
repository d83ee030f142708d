import { SERVER_VERSION } from "@meridian/config";
import { fileSchema } from "@meridian/domain/observations";
import { PLUGIN_VERSION_MAX_LENGTH, pluginToServerMessageSchema, serverToPluginMessageSchema } from "@meridian/rules/observatory-protocol";
import { z } from "zod";

/** What each message is for, in a plugin author's words. */
const summaries: Record<string, string> = {
  hello:
    "First message of a connection: the plugin's version (and optionally its system and equipment). Every other message before it " +
    "is refused with HELLO_REQUIRED. Answered ack; an outdated plugin also gets update_required and no assignments while it stays below. " +
    "`equipment.filters` names the filters of its filter wheel: it is then sent only observations whose exposures ask for those " +
    "(compared case-insensitively; the others wait with queue code FILTER_MISSING).",
  heartbeat: "Sent at least once per heartbeat timeout (admin settings, 90 s by default); a connection silent longer is closed with 4408.",
  config:
    "The plugin's system information and equipment changed. A report replaces the last one: `equipment.filters` given is the " +
    "observatory's filter list from now on, and an equipment report without it lifts the filter restriction.",
  observation_status:
    "A move of the assigned observation: in_progress, acquisition_complete, completed, failed, aborted. Answered ack or error INVALID_TRANSITION.",
  safety: "The observatory's safety monitor: unsafe holds new work (queue code UNSAFE).",
  weather: "A weather hold on or off: on holds new work.",
  goodbye:
    "The plugin is going away on purpose: the observatory is offline at once and its unstarted observation goes back to pending " +
    "(one that may run at other observatories keeps its assignment until the observatory has been away REASSIGN_AFTER_MINUTES). " +
    "Like every message but hello it needs a hello first (else HELLO_REQUIRED), and after it the connection is as before hello: " +
    "a hello on the same socket makes it the observatory's live connection again; any other message, another goodbye included, is refused with HELLO_REQUIRED.",
  assign:
    "An observation to run now, as the REST API presents it (unknown fields are to be ignored). After each hello the server sends it again for " +
    "every observation assigned to the observatory and not yet started, since one sent while a connection was being lost reached no one: " +
    "a plugin that already has that observation ignores the repeat. A plugin below the minimum version is sent none.",
  cancel:
    "Stop the observation, do not start it: it was cancelled, or (one that may run at other observatories) it was taken back after the " +
    "observatory had been offline, unsafe or under a weather hold for REASSIGN_AFTER_MINUTES. Sent at once to a connected plugin, and after " +
    "each hello for every observation taken back while the observatory was away or in the last day, before any assign; a plugin ignores " +
    "one it does not run. What the plugin sends of a taken-back observation afterwards (its status, its files) is refused with NOT_FOUND.",
  update_required:
    "The plugin is below the server's minimum version: it gets no work (no assign, not even one already assigned to its observatory) while " +
    "it stays below. Sent at hello, when the minimum is raised, and every 4 hours.",
  motd: "An announcement for the observatory's operators (active ones at hello, new ones as they are published).",
  ack: "The message with this id was handled.",
  error:
    "The message with this id was refused: a stable code (VALIDATION_FAILED, HELLO_REQUIRED, RATE_LIMITED, INVALID_TRANSITION...) and a message in words. " +
    "VALIDATION_FAILED: off its schema (a reason or observationId with control characters or too long, " +
    `a pluginVersion over ${PLUGIN_VERSION_MAX_LENGTH} characters) ` +
    "or a report the server cannot store (nested too deep, a NUL character or a lone surrogate); nothing of it was stored. " +
    "RATE_LIMITED, MAINTENANCE, SERVICE_UNAVAILABLE (the server's database has no connection to give) and INSUFFICIENT_STORAGE (the disk under " +
    "the server's database is full; space gets freed, and the server takes writes again without a restart) refuse for now: nothing was kept, and the plugin " +
    "sends the message again after a pause: the error's `retryAfter` seconds when it carries them (the Retry-After HTTP would give), " +
    "else a growing pause with jitter. Any other code is final.",
};

const messagesOf = (schema: typeof pluginToServerMessageSchema | typeof serverToPluginMessageSchema) =>
  schema.options.map((option) => {
    const name = (option.shape.type as z.ZodLiteral<string>).value;
    // The payload is an AsyncAPI schema (JSON Schema draft 7): the dialect is the document's, not the payload's own.
    const { $schema: _dialect, ...payload } = z.toJSONSchema(option, { target: "draft-07", io: "input", unrepresentable: "any" });
    return { name, payload };
  });

/** The header cards a frame's analysis reads, for plugin authors: what each is for, and what happens when a frame lacks it. */
export const frameHeaderCards: Array<{ cards: string; use: string; without: string }> = [
  {
    cards: "OBJECT",
    use: "which of the observation's targets the frame is for (its name, case-insensitive)",
    without: "the target nearest the header's position, else the first",
  },
  { cards: "DATE-OBS", use: "when it was taken: the date the frame search (GET /frames ?from&to) filters on", without: "no date search finds it" },
  {
    cards: "EXPTIME, else EXPOSURE",
    use: "with FILTER, the exposure line of the observation's progress it counts toward (± 0.5 s)",
    without: "it counts toward no line",
  },
  { cards: "FILTER", use: "the exposure line it counts toward, and the frame search's filter", without: "it counts toward no line" },
  {
    cards: "XBINNING",
    use: "the expected pixel scale, the solver's hint: the observatory's reported equipment.pixelScaleArcsec (at binning 1) times the binning",
    without: "binning 1 is assumed",
  },
  {
    cards: "RA and DEC (degrees), else OBJCTRA and OBJCTDEC (sexagesimal: hours, degrees)",
    use: "where the solver looks first, and the target when OBJECT names none",
    without: "the solve is blind: slower, never refused",
  },
  { cards: "IMAGETYP", use: "kept with the frame (Light, Dark, Flat…)", without: "null" },
  {
    cards: "XPIXSZ and FOCALLEN",
    use: "the expected pixel scale when the observatory reported no equipment.pixelScaleArcsec",
    without: "the solver finds the scale itself",
  },
];

/** What happens to a FITS image a plugin uploads, in a plugin author's words (the document's description and the page's). */
const frameSummary =
  "A FITS image uploaded (the first card SIMPLE = T, whatever the filename) is a frame: after the upload, the server reads its header, " +
  "finds and measures its stars, plate-solves it against its star catalog and grades it by the project's frameGrading; the upload's answer " +
  "(components.schemas.File) carries `frame` with `status: queued`, and later reads of the file carry the result. The header and the image " +
  "are those of the primary HDU when it is a 2-D image (NAXIS = 2), else of the first extension when that is an IMAGE extension with " +
  "NAXIS = 2: put the cards there. BITPIX 8, 16, 32, -32 or -64, uncompressed, at most 100 megapixels. " +
  `Cards read: ${frameHeaderCards.map((card) => card.cards).join("; ")}. None is required: a frame without them is still measured and solved blind, and each ` +
  "field of `frame.header` it lacks is null. A frame that cannot be read ends `failed` with the reason, and nothing else changes. " +
  "Previews are made by the server: a frame that has none (no upload with `previewOf` its id) when its analysis ends gets one, a PNG at most 1024 pixels " +
  "on its long side, stretched so that the stars show; a plugin need not send one.";

/**
 * The file record an upload answers, with its `frame`, as JSON Schema (draft 7) components: every
 * schema it names by id (Frame, FrameHeader, FrameSolution…) becomes a component of its own.
 */
function fileComponents(): Record<string, object> {
  const {
    $schema: _dialect,
    definitions,
    ...file
  } = z.toJSONSchema(fileSchema, { target: "draft-07", io: "output", unrepresentable: "any" }) as Record<string, unknown> & {
    definitions?: Record<string, object>;
  };
  // File has an id of its own: it is among the definitions, and the root only names it.
  const schemas = { File: file, ...definitions };
  return JSON.parse(JSON.stringify(schemas).replaceAll('"#/definitions/', '"#/components/schemas/')) as Record<string, object>;
}

/** Which way each message goes, by its type. */
export const messageDirections: Record<string, "plugin → server" | "server → plugin"> = Object.fromEntries([
  ...messagesOf(pluginToServerMessageSchema).map(({ name }) => [name, "plugin → server"] as const),
  ...messagesOf(serverToPluginMessageSchema).map(({ name }) => [name, "server → plugin"] as const),
]);

/**
 * `GET /api/asyncapi.json`: `/ws/observatory` as an AsyncAPI 3.0 document, from the server's side
 * (it receives what plugins send and sends the rest), every message's payload generated from the
 * zod schemas the server validates with (`@meridian/rules/observatory-protocol`).
 */
export function observatoryAsyncApi(origin: string) {
  const url = new URL(origin);
  const received = messagesOf(pluginToServerMessageSchema);
  const sent = messagesOf(serverToPluginMessageSchema);
  const reference = (name: string) => ({ $ref: `#/components/messages/${name}` });
  const operation = (action: "send" | "receive", name: string) => ({
    action,
    channel: { $ref: "#/channels/observatory" },
    summary: summaries[name],
    messages: [{ $ref: `#/channels/observatory/messages/${name}` }],
  });
  return {
    asyncapi: "3.0.0",
    info: {
      title: "Meridian observatory plugin protocol",
      version: SERVER_VERSION,
      description:
        "The connection of an observatory's plugin to Meridian, described from the server's side: it receives what a plugin sends " +
        "and sends the rest. JSON text frames: a message over 256 KiB is answered `error` PAYLOAD_TOO_LARGE and not handled, and one " +
        "over 1 MiB closes the connection (1009). Every message a plugin sends carries an `id` (string or integer) and is " +
        "answered, in order, by `ack` or `error` with that id. Close codes: 1001 the server is stopping (connect again), 4401 the key no " +
        "longer works, 4408 no message for the heartbeat timeout, 4409 a newer connection with the key replaced this one (do not " +
        "reconnect), 4413 more sent and not read than the server holds, 4429 too many messages waiting. The upgrade is refused " +
        "401 for a key that does not work (do not reconnect), 429 with Retry-After beyond OBSERVATORY_CONNECTIONS_PER_MINUTE connections " +
        "of one observatory a minute, 503 with Retry-After when the server cannot reach its database to check the key, and 500 for a " +
        "fault of the server's (connect again, after the Retry-After or a backoff). " +
        "A worked session: /api/docs/observatory. Files are uploaded over HTTP: " +
        "`POST /observations/{id}/files?filename=...` with the same key (see /api/openapi.json). An upload answered 503, 429 or " +
        "507 (the server's storage is full: space gets freed, and the server takes files again without a restart) was refused for now " +
        "and nothing of it was kept: the plugin keeps the file and uploads it again after the Retry-After, as it sends a message refused for now again. " +
        frameSummary,
    },
    servers: {
      meridian: {
        host: url.host,
        protocol: url.protocol === "https:" ? "wss" : "ws",
        pathname: "/ws/observatory",
        description: "This Meridian server",
        security: [{ $ref: "#/components/securitySchemes/observatoryKey" }],
      },
    },
    channels: {
      observatory: {
        address: "/ws/observatory",
        title: "An observatory's plugin connection",
        messages: Object.fromEntries([...received, ...sent].map(({ name }) => [name, reference(name)])),
      },
    },
    operations: Object.fromEntries([
      ...received.map(({ name }) => [`receive_${name}`, operation("receive", name)]),
      ...sent.map(({ name }) => [`send_${name}`, operation("send", name)]),
    ]),
    components: {
      messages: Object.fromEntries(
        [...received, ...sent].map(({ name, payload }) => [name, { name, title: name, summary: summaries[name], contentType: "application/json", payload }]),
      ),
      schemas: fileComponents(),
      securitySchemes: {
        observatoryKey: {
          type: "httpApiKey",
          name: "Authorization",
          in: "header",
          description: "`Bearer mok_...`: an observatory key (POST /observatories/{id}/api-keys).",
        },
      },
    },
  };
}
