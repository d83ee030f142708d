import { spawnEntry } from "./node-process";
import type { TestServer } from "./test-server";

/** `pnpm admin ...args` against the test server's database and bucket, to its exit; `env` adds to its environment (undefined removes). */
export async function runAdminCli(server: TestServer, args: string[], env: Record<string, string | undefined> = {}) {
  const { storage } = server.server.runtime.deps;
  const proc = spawnEntry(
    "cli",
    {
      DATABASE_URL: server.databaseUrl,
      S3_ENDPOINT: storage.endpoint,
      S3_BUCKET: storage.bucket,
      S3_ACCESS_KEY_ID: storage.credentials.accessKeyId,
      S3_SECRET_ACCESS_KEY: storage.credentials.secretAccessKey,
      S3_FORCE_PATH_STYLE: "true",
      SECRETS_KEY: "test secrets key shared by every process of this run",
      ...env,
    } as Record<string, string>,
    `admin ${args.join(" ")}`,
    args,
  );
  const { code } = await proc.exited;
  const output = proc.output();
  return { code, output, json: () => JSON.parse(output.slice(output.search(/[[{]/))) as Record<string, unknown> };
}
