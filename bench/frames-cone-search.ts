/**
 * Issue 58, point 4: `GET /frames` cone searches over 100,000 solved frames (goal: p99 under 50 ms).
 *
 *   node --import tsx bench/frames-cone-search.ts [--frames 100000] [--rounds 300]
 *
 * The real server (startServer, `MERIDIAN_ROLE=server`, production mode) listens in this process over an embedded
 * PostgreSQL 18 and S3; the searches go through HTTP with a user's bearer token, one at a time, the first page (50).
 * The frames: 1,000 observations at fields spread evenly over the sky, 100 frames each scattered within 0.2° of their
 * field (as a telescope's frames of one target fall); half the observations are the searching user's, who can read
 * nothing else, so the readability condition runs as for anyone but a server admin. Each round takes a random point
 * and a radius from 0.5° to 10°, and the three sides take turns on it:
 *   - the route: GET /frames?ra&dec&radius over HTTP;
 *   - the same search without HTTP: searchFrames called in this process (query and presenting, no request handling);
 *   - peer "no index": the same rows by the same SQL (readability, exact distance, nearest first, limit 51) through
 *     postgres.js, without the boxes the GiST index serves: what the search costs without the index;
 *   - peer "bare rows": `select id, doc, created_at, updated_at from files where id = any($ids)` of the ids the route
 *     answered, through postgres.js: the floor for reading those rows at all.
 * Results: bench/results/frames-cone-search.md (and the notes in bench/results/2026-11-29-frames-cone-search.md).
 */
import fs from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { createLogger, loadEnv } from "@meridian/config";
import { usersCollection } from "@meridian/db";
import { searchFrames } from "@meridian/domain/frames";
import { actorFromUser } from "@meridian/domain/platform";
import { startServer } from "@meridian/server";
import { sql, type SQL } from "drizzle-orm";
import { drizzle } from "drizzle-orm/postgres-js";
import postgres from "postgres";
import { freePort, loadAverage, machineDescription, numberOption, percentile, writeResult } from "./lib.mjs";
import { seedObservations } from "./seed";

const FRAMES = numberOption("frames", 100_000);
const ROUNDS = numberOption("rounds", 300);
const FIELDS = 1000;

const dataDir = await fs.mkdtemp(path.join(os.tmpdir(), "meridian-bench-cone-"));
process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= "true";
const env = loadEnv({
  DATA_DIR: dataDir,
  LOG_LEVEL: "warn",
  NODE_ENV: "production",
  MERIDIAN_ROLE: "server",
  PORT: String(await freePort()),
  HOST: "127.0.0.1",
  EMBEDDED_POSTGRES_PORT: String(await freePort()),
  EMBEDDED_S3_PORT: String(await freePort()),
  SECRETS_KEY: "bench secrets key",
  SIGNUPS_PER_IP_PER_HOUR: "1000",
});
const running = await startServer({ env, logger: createLogger({ level: "warn" }) });
// The seed and both peers use a connection of their own, without the server pool's statement timeout.
const client = postgres(running.runtime.databaseUrl, { max: 1, onnotice: () => undefined });
await client`set statement_timeout = 0`;
const db = drizzle(client);
const loadAtStart = loadAverage();

// A repeatable sequence: the same fields, points and radii in every run.
let state = 58;
const random = () => ((state = (state * 1103515245 + 12345) % 2147483648), state / 2147483648);

async function seed() {
  const signup = await fetch(`${running.url}/api/v1/auth/signup`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ email: "cone@example.com", password: "cone search bench", name: "Cone" }),
  });
  if (signup.status !== 201) throw new Error(`signup: ${signup.status} ${await signup.text()}`);
  const { user, token } = (await signup.json()) as { user: { id: string }; token: string };
  await seedObservations(running.runtime.deps.db, FIELDS);
  await db.execute(sql`
    update observations set owner_id = ${user.id}, doc = jsonb_set(doc, '{ownerId}', to_jsonb(${user.id}::text))
     where substr(id, 10)::int % 2 = 0`);
  // Fields evenly over the sphere (uniform in ra and in sin(dec)), from this sequence.
  const fields = Array.from({ length: FIELDS }, () => ({ ra: 360 * random(), dec: (Math.asin(2 * random() - 1) * 180) / Math.PI }));
  await db.execute(sql`
    with field as (select ordinality - 1 as n, (value->>'ra')::float8 as ra, (value->>'dec')::float8 as dec
                     from jsonb_array_elements(${JSON.stringify(fields)}::jsonb) with ordinality)
    insert into files (id, doc, created_at, updated_at, observation_id, object_key)
    select 'fil_bench' || lpad(i::text, 8, '0'), jsonb_build_object(
        'observationId', 'obn_bench' || lpad((i % ${FIELDS} + 1)::text, 8, '0'), 'observatoryId', 'obs_bench' || ((i % ${FIELDS} + 1) % 50),
        'filename', 'frame-' || i || '.fits', 'sizeBytes', 2097152, 'sha256', repeat('0', 64), 'contentType', 'application/fits',
        'kind', 'image', 'previewOfId', null, 'objectKey', 'observations/obn_bench/' || i,
        'frame', jsonb_build_object('analysisId', 'ana_' || i, 'status', 'analysed', 'failure', null,
          'header', jsonb_build_object('object', 'NGC ' || (i % ${FIELDS}),
            'dateObs', to_char(timestamp '2026-01-01' + i * interval '5 minutes', 'YYYY-MM-DD"T"HH24:MI:SS'),
            'exposureSeconds', 300, 'filter', (array['L', 'R', 'G', 'B', 'Ha'])[1 + i % 5], 'binning', 1, 'width', 3000, 'height', 3000,
            'ra', null, 'dec', null, 'imageType', 'LIGHT'),
          'targetName', 'NGC ' || (i % ${FIELDS}), 'stars', 200 + i % 300, 'fwhmArcsec', 2.5, 'hfrArcsec', 1.6, 'eccentricity', 0.35,
          'backgroundAdu', 1100,
          'solution', jsonb_build_object('ra', mod((field.ra + offset_ra / greatest(cos(radians(field.dec)), 0.05))::numeric + 360, 360)::float8,
            'dec', greatest(-90, least(90, field.dec + offset_dec)), 'pixelScaleArcsec', 1.2, 'rotationDeg', 15, 'widthDeg', 1, 'heightDeg', 1),
          'solveFailure', null, 'pointingOffsetArcsec', 30, 'grade', case when i % 7 = 0 then 'rejected' else 'accepted' end,
          'rejectedFor', case when i % 7 = 0 then '["OFF_TARGET"]'::jsonb else '[]'::jsonb end, 'analysedAt', '2026-11-29T00:00:00.000Z')),
      now() - i * interval '1 second', now(), 'obn_bench' || lpad((i % ${FIELDS} + 1)::text, 8, '0'), 'observations/obn_bench/' || i
      from generate_series(1, ${FRAMES}) as i
      join field on field.n = i % ${FIELDS},
      lateral (select (random() - 0.5) * 0.4 as offset_ra, (random() - 0.5) * 0.4 as offset_dec) as scatter`);
  await db.execute(sql`vacuum (freeze, analyze) files`);
  await db.execute(sql`vacuum (freeze, analyze) observations`);
  return { userId: user.id, token };
}

/** The haversine distance in degrees from the solved centre, as the route computes it. */
const distance = (cone: { ra: number; dec: number }) => sql`degrees(2 * asin(least(1, sqrt(
    power(sin(radians(f.frame_dec - ${cone.dec}::float8) / 2), 2)
  + cos(radians(f.frame_dec)) * cos(radians(${cone.dec}::float8)) * power(sin(radians(f.frame_ra - ${cone.ra}::float8) / 2), 2)))))`;

/** The route's query for the same cone written without the boxes: every solved frame's exact distance is computed. */
const withoutIndex = (userId: string, cone: { ra: number; dec: number; radius: number }) => sql`
  select f.id, f.doc, f.created_at, f.updated_at from files f join observations o on o.id = f.observation_id
   where f.frame_status is not null and f.frame_ra is not null
     and (o.owner_id = ${userId}
       or o.observatory_id in (select o2.id from observatories o2 where o2.owner_kind = 'user' and o2.owner_id = ${userId})
       or o.project_id in (select p.id from projects p where p.owner_id = ${userId})
       or o.project_id in (select m.project_id from project_members m where m.user_id = ${userId}))
     and ${distance(cone)} <= ${cone.radius}::float8
   order by ${distance(cone)}, f.id
   limit 51`;

const timed = async <T>(work: () => Promise<T>) => {
  const started = performance.now();
  const result = await work();
  return { ms: performance.now() - started, result };
};

try {
  const seeding = performance.now();
  const { userId, token } = await seed();
  const seedSeconds = (performance.now() - seeding) / 1000;
  const [{ version } = { version: "?" }] = await db.execute<{ version: string }>(sql`select current_setting('server_version') as version`);
  const search = async (cone: { ra: number; dec: number; radius: number }) => {
    const response = await fetch(`${running.url}/frames?ra=${cone.ra}&dec=${cone.dec}&radius=${cone.radius}`, {
      headers: { authorization: `Bearer ${token}` },
    });
    if (response.status !== 200) throw new Error(`GET /frames: ${response.status} ${await response.text()}`);
    return ((await response.json()) as { items: Array<{ id: string }> }).items.map((item) => item.id);
  };
  const cones = Array.from({ length: ROUNDS + 20 }, () => ({
    ra: Number((360 * random()).toFixed(4)),
    dec: Number(((Math.asin(2 * random() - 1) * 180) / Math.PI).toFixed(4)),
    radius: Number((0.5 + 9.5 * random()).toFixed(3)),
  }));
  const actor = actorFromUser({ user: (await usersCollection.get(running.runtime.deps.db, userId))! });
  const samples = { route: [] as number[], domain: [] as number[], noIndex: [] as number[], bare: [] as number[] };
  let rows = 0;
  let mismatches = 0;
  const loadDuring: string[] = [];
  for (const [round, cone] of cones.entries()) {
    const route = await timed(() => search(cone));
    const domain = await timed(() => searchFrames({ deps: running.runtime.deps, actor, filter: cone, limit: 50 }));
    const noIndex = await timed(() => db.execute<{ id: string }>(withoutIndex(userId, cone)));
    const bare = await timed(() => db.execute(sql`select id, doc, created_at, updated_at from files where id = any(${`{${route.result.join(",")}}`}::text[])`));
    if (
      noIndex.result
        .slice(0, 50)
        .map((row) => row.id)
        .join() !== route.result.join()
    )
      mismatches += 1;
    if (round < 20) continue; // warm-up
    samples.route.push(route.ms);
    samples.domain.push(domain.ms);
    samples.noIndex.push(noIndex.ms);
    samples.bare.push(bare.ms);
    rows += route.result.length;
    if (round % 100 === 0) loadDuring.push(loadAverage());
  }
  // The route's own statement for one wide cone, as searchFrames builds it (caught before it runs), then explained.
  let routeStatement: SQL | undefined;
  const catching = { ...running.runtime.deps, db: { execute: (statement: SQL) => ((routeStatement = statement), Promise.resolve([])) } };
  await searchFrames({ deps: catching as never, actor, filter: { ra: 150, dec: 20, radius: 10 }, limit: 50 });
  const routePlan = await db.execute<{ "QUERY PLAN": string }>(sql`explain (analyze, buffers off, costs off) ${routeStatement!}`);
  const [plan] = [
    await db.execute<{ "QUERY PLAN": string }>(sql`explain (analyze, buffers off, costs off) select f.id from files f
      where f.frame_ra is not null and point(f.frame_ra, f.frame_dec) <@ box(point(5, 10), point(25, 30))`),
  ];
  const line = (label: string, values: number[]) =>
    `| ${label} | ${percentile(values, 50).toFixed(2)} | ${percentile(values, 99).toFixed(2)} | ${Math.max(...values).toFixed(2)} |`;
  const machine = machineDescription();
  const text = [
    `# Frame cone search (issue 58, point 4), ${new Date().toISOString().slice(0, 10)}`,
    "",
    `\`node --import tsx bench/frames-cone-search.ts --frames ${FRAMES} --rounds ${ROUNDS}\``,
    "",
    `${machine.cores} cores (${machine.cpuModel}), ${machine.memory}, Node ${machine.node}, PostgreSQL ${version} (embedded).`,
    `Load average at start ${loadAtStart}; during the rounds ${loadDuring.join("; ")}; at the end ${loadAverage()}.`,
    `${FRAMES} frames of ${FIELDS} fields seeded in ${seedSeconds.toFixed(1)} s; ${ROUNDS} rounds after 20 warm-up rounds;`,
    `${(rows / ROUNDS).toFixed(1)} frames per answer on average; ${mismatches} rounds where the peer's or searchFrames' ids differed from the route's.`,
    "",
    "| Side | p50 ms | p99 ms | max ms |",
    "| --- | ---: | ---: | ---: |",
    line("GET /frames?ra&dec&radius over HTTP (the route, GiST on the solved centre)", samples.route),
    line("the same search without HTTP: searchFrames in this process", samples.domain),
    line("peer: the same SQL without the index's boxes, through postgres.js", samples.noIndex),
    line("peer: bare `select ... where id = any($ids)` of the route's rows, through postgres.js", samples.bare),
    "",
    "The route's statement for a cone of 10° at (150, 20), first page, explained:",
    "",
    "```",
    ...routePlan.map((row) => row["QUERY PLAN"]),
    "```",
    "",
    "The index's scan of one box (ra 5 to 25, dec 10 to 30):",
    "",
    "```",
    ...plan.map((row) => row["QUERY PLAN"]),
    "```",
    "",
  ].join("\n");
  console.log(text);
  await writeResult("frames-cone-search.md", text);
} finally {
  await client.end({ timeout: 5 });
  await running.stop();
  await fs.rm(dataDir, { recursive: true, force: true });
}
