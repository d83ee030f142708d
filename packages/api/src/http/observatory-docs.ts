import type { Hono } from "hono";
import { frameHeaderCards, messageDirections, observatoryAsyncApi } from "../ws/asyncapi";
import type { AppEnv } from "./env";

const escape = (text: string) => text.replace(/[&<>"']/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" })[c]!);

/** A whole session, hello to a completed observation with its file, as a plugin sees it (→ sent by the plugin, ← by the server). */
const session: Array<[string, string]> = [
  ["", "GET /ws/observatory with Authorization: Bearer mok_… (the observatory key), upgraded to a WebSocket"],
  ["→", '{"type":"hello","id":1,"pluginVersion":"3.8.0.0","equipment":{"camera":"ASI2600MM","filters":["L","R","G","B","Ha","OIII","SII"]}}'],
  ["←", '{"type":"ack","id":1}'],
  ["←", '{"type":"motd","announcement":{"id":"ann_…","title":"Dome maintenance Friday","message":"…","severity":"info",…}}'],
  ["→", '{"type":"heartbeat","id":2}'],
  ["←", '{"type":"ack","id":2}'],
  [
    "←",
    '{"type":"assign","observation":{"id":"obn_…","name":"M 31 mosaic","targets":[{"name":"M 31","ra":10.6847,"dec":41.269,' +
      '"epoch":"J2000","exposures":[{"filter":"L","exposureSeconds":300,"count":12,"binning":1}]}],…}}',
  ],
  ["→", '{"type":"observation_status","id":3,"observationId":"obn_…","status":"in_progress"}'],
  ["←", '{"type":"ack","id":3}'],
  ["→", '{"type":"heartbeat","id":4} (every 30 s or so while it exposes)'],
  ["←", '{"type":"ack","id":4}'],
  ["→", '{"type":"observation_status","id":5,"observationId":"obn_…","status":"acquisition_complete"}'],
  ["←", '{"type":"ack","id":5}'],
  ["", "POST /observations/obn_…/files?filename=M31_L_001.fits with the same key and the file as the body → 201 {id, sha256, sizeBytes, …}"],
  ["", "POST /observations/obn_…/files?filename=M31_L_001.png&previewOf=fil_… for its preview image → 201 (optional: else the server makes one)"],
  ["→", '{"type":"observation_status","id":6,"observationId":"obn_…","status":"completed"}'],
  ["←", '{"type":"ack","id":6}'],
  ["→", '{"type":"goodbye","id":7} (when the plugin stops on purpose)'],
  ["←", '{"type":"ack","id":7}'],
];

function page(origin: string) {
  const document = observatoryAsyncApi(origin);
  const messages = Object.values(document.components.messages)
    .map(
      (message) =>
        `<section id="${escape(message.name)}"><h3><code>${escape(message.name)}</code> <small>${messageDirections[message.name]}</small></h3>\n` +
        `<p>${escape(message.summary ?? "")}</p><details><summary>Payload schema</summary>` +
        `<pre>${escape(JSON.stringify(message.payload, null, 2))}</pre></details></section>`,
    )
    .join("\n");
  const cards = frameHeaderCards
    .map((card) => `<tr><td><code>${escape(card.cards)}</code></td><td>${escape(card.use)}</td><td>${escape(card.without)}</td></tr>`)
    .join("\n");
  const lines = session.map(([arrow, text]) => `<li><span class="arrow">${arrow || "·"}</span> <code>${escape(text)}</code></li>`).join("\n");
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>Meridian observatory plugin protocol</title>
<style>
body{font:15px/1.5 system-ui,sans-serif;max-width:60rem;margin:0 auto;padding:1rem;color:#0f172a}
code,pre{font:13px/1.4 ui-monospace,monospace}
pre{background:#f8fafc;padding:.75rem;overflow-x:auto;border-radius:.375rem}
ol{padding-left:1.25rem}li{margin:.25rem 0;overflow-wrap:anywhere}
table{border-collapse:collapse;width:100%;font-size:14px}
th,td{text-align:left;vertical-align:top;padding:.375rem;border-bottom:1px solid #e2e8f0;overflow-wrap:anywhere}
.arrow{display:inline-block;width:1.5rem;font-weight:600;color:#4f46e5}small{color:#64748b;font-weight:400}a{color:#4338ca}
</style></head>
<body><main>
<h1>Meridian observatory plugin protocol</h1>
<p>${escape(document.info.description)}</p>
<p>Machine-readable: <a href="/api/asyncapi.json">AsyncAPI 3.0 document</a> · HTTP API: <a href="/api/docs">OpenAPI reference</a>
 · server version ${escape(document.info.version)}.</p>
<h2>Connecting</h2>
<p><code>${escape(document.servers.meridian.protocol)}://${escape(document.servers.meridian.host)}/ws/observatory</code>
with the header <code>Authorization: Bearer mok_…</code>.</p>
<h2>A worked session</h2>
<ol aria-label="A worked session">${lines}</ol>
<h2 id="frames">Frames: the FITS header cards Meridian reads</h2>
<p>Every FITS image a plugin uploads is analysed by the server: its header read, its stars measured, plate-solved and graded. The cards are read from
the header of the image's HDU: the primary HDU when it holds the 2-D image, else the first IMAGE extension. None is required.</p>
<table aria-label="FITS header cards Meridian reads"><thead><tr><th>Cards</th><th>What Meridian uses them for</th><th>Without them</th></tr></thead>
<tbody>${cards}</tbody></table>
<p>Previews are made by the server: a frame that has no preview when its analysis ends gets a PNG, at most 1024 pixels on its long side,
stretched so that the stars show. A plugin need not send one.</p>
<h2>Messages</h2>
${messages}
</main></body></html>`;
}

/** `/api/asyncapi.json` and its page for people, `/api/docs/observatory`. */
export function mountObservatoryDocs(app: Hono<AppEnv>) {
  app.get("/api/asyncapi.json", (c) => c.json(observatoryAsyncApi(c.get("ctx").linkOrigin)));
  app.get("/api/docs/observatory", (c) => c.html(page(c.get("ctx").linkOrigin)));
}
