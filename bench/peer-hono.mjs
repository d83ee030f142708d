#!/usr/bin/env node
// The peer of bench/http-overhead.mjs: a bare Hono app on @hono/node-server (the same versions
// Meridian uses) with a route returning a small JSON body and one returning a body of a given size. No middleware, no database: the
// floor that Meridian's own routes are compared with.
//
//   node bench/peer-hono.mjs [port]      (default: a free port; the port is printed)
import { serve } from "@hono/node-server";
import { Hono } from "hono";

const port = Number(process.argv[2] ?? 0);
const app = new Hono();
app.get("/hello", (c) => c.json({ status: "ok", message: "hello" }));
// A JSON body of exactly `n` bytes (bench/hot-reads.mjs compares routes of the same size), made once per size.
const bodies = new Map();
app.get("/bytes/:n", (c) => {
  const n = Math.min(Math.max(Number(c.req.param("n")) || 0, 12), 1024 * 1024);
  if (!bodies.has(n)) bodies.set(n, JSON.stringify({ pad: "x".repeat(n - 10) }));
  return c.json(JSON.parse(bodies.get(n)));
});

const server = serve({ fetch: app.fetch, port, hostname: "127.0.0.1" }, (info) => {
  process.stdout.write(`peer listening on http://127.0.0.1:${info.port}\n`);
});
const stop = () => server.close(() => process.exit(0));
process.on("SIGTERM", stop);
process.on("SIGINT", stop);
