#!/usr/bin/env node
// The peer of bench/http-overhead.mjs: a bare Hono app on @hono/node-server (the same versions
// Meridian uses) with one route returning a small JSON body. No middleware, no database: the
// floor that Meridian's own routes are compared with.
//
//   node bench/peer-hono.mjs [port]      (default: a free port; the port is printed)
import { serve } from "@hono/node-server";
import { Hono } from "hono";

const port = Number(process.argv[2] ?? 0);
const app = new Hono();
app.get("/hello", (c) => c.json({ status: "ok", message: "hello" }));

const server = serve({ fetch: app.fetch, port, hostname: "127.0.0.1" }, (info) => {
  process.stdout.write(`peer listening on http://127.0.0.1:${info.port}\n`);
});
const stop = () => server.close(() => process.exit(0));
process.on("SIGTERM", stop);
process.on("SIGINT", stop);
