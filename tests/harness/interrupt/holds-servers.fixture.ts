import fs from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { createLogger } from "@meridian/config";
import { startEmbeddedPostgres } from "@meridian/db";
import { test } from "vitest";
import { freePort } from "../../../scripts/free-port";
import { startTestServer } from "../../support/test-server";

// What a real test file holds while it runs: a test server over the run's PostgreSQL and S3 store,
// and a PostgreSQL of its own (as the embedded-PostgreSQL tests start). Then it waits to be interrupted.
test("holds a test server and a second PostgreSQL until the run is interrupted", async () => {
  await startTestServer({ MERIDIAN_ROLE: "server" });
  const dataDir = await fs.mkdtemp(path.join(os.tmpdir(), "meridian-fixture-"));
  await startEmbeddedPostgres({ dataDir, port: await freePort(), logger: createLogger({ level: "silent", name: "fixture" }) });
  await fs.writeFile(process.env.MERIDIAN_FIXTURE_READY!, "ready");
  await new Promise(() => undefined);
});
