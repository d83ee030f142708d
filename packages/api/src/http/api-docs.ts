import fs from "node:fs/promises";
import { createRequire } from "node:module";
import path from "node:path";
import type { Hono } from "hono";
import type { AppEnv } from "./env";

const require = createRequire(import.meta.url);
// Resolve the package folder only: requiring swagger-ui-dist would load its browser bundle into Node.
const swaggerDir = path.dirname(require.resolve("swagger-ui-dist/package.json"));

const page = `<!doctype html>
<html lang="en">
<head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>Meridian API reference</title><link rel="icon" href="/api/docs/assets/favicon.svg" type="image/svg+xml">
<link rel="stylesheet" href="/api/docs/assets/swagger-ui.css"></head>
<body><div id="reference"></div>
<script src="/api/docs/assets/swagger-ui-bundle.js"></script>
<script src="/api/docs/assets/init.js"></script>
</body></html>`;

// validatorUrl: null, or Swagger UI shows a badge image fetched from validator.swagger.io.
const init = `window.ui = SwaggerUIBundle({ url: "/api/openapi.json", dom_id: "#reference", deepLinking: true, validatorUrl: null });`;

const assets: Record<string, string> = {
  "swagger-ui.css": "text/css; charset=utf-8",
  "swagger-ui-bundle.js": "text/javascript; charset=utf-8",
};

// The web app's icon, so the reference is recognisable among browser tabs.
const favicon =
  `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 32 32"><rect width="32" height="32" ` +
  `rx="7" fill="#4f46e5"/><circle cx="16" cy="16" r="7" fill="none" stroke="white" ` +
  `stroke-width="2.5"/></svg>`;

/** The browsable reference, served from the swagger-ui-dist package (no CDN). */
export function mountApiDocs(app: Hono<AppEnv>) {
  app.get("/api/docs", (c) => c.html(page));
  app.get("/api/docs/assets/favicon.svg", (c) => c.body(favicon, 200, { "content-type": "image/svg+xml", "cache-control": "public, max-age=86400" }));
  app.get("/api/docs/assets/init.js", (c) => c.body(init, 200, { "content-type": "text/javascript; charset=utf-8" }));
  app.get("/api/docs/assets/:file", async (c) => {
    const file = c.req.param("file");
    const contentType = assets[file];
    if (!contentType) return c.notFound();
    const body = await fs.readFile(path.join(swaggerDir, file));
    return c.body(body, 200, { "content-type": contentType, "cache-control": "public, max-age=86400" });
  });
}
