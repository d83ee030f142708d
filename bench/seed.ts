import type { Runtime } from "@meridian/domain/platform";
import { sql } from "drizzle-orm";

/** Seed data the benchmarks share, written in a few set-based statements. */

/** 1,000,000 valid observations (about 600 bytes of JSONB each) in one statement; one in a hundred stuck in assigned. */
export async function seedObservations(db: Runtime["deps"]["db"], count: number) {
  await db.execute(sql`
    insert into observations (id, doc, created_at, updated_at, project_id, observatory_id, owner_id, status, priority, status_changed_at)
    select 'obn_bench' || lpad(i::text, 8, '0'), jsonb_build_object(
        'name', 'Survey field ' || i, 'projectId', 'prj_bench', 'observatoryId', 'obs_bench' || (i % 50), 'ownerId', 'usr_bench',
        'type', 'flexible', 'priority', 1 + i % 10,
        'targets', jsonb_build_array(jsonb_build_object('name', 'NGC ' || (i % 7840), 'ra', (i % 360)::float8, 'dec', ((i % 180) - 90)::float8,
          'epoch', 'J2000', 'exposures', jsonb_build_array(
            jsonb_build_object('filter', 'L', 'exposureSeconds', 300, 'count', 12, 'binning', 1),
            jsonb_build_object('filter', 'Ha', 'exposureSeconds', 600, 'count', 6, 'binning', 2)))),
        'constraints', jsonb_build_object('minAltitude', 30, 'maxAirmass', 2.0, 'moonDistance', 30, 'twilight', 'astronomical'),
        'fixedTimeStart', null, 'fixedTimeEnd', null, 'bypassDarkness', false,
        'notifications', jsonb_build_object('email', true, 'push', false, 'states', jsonb_build_array('completed', 'failed')),
        'status', case when i % 100 = 0 then 'assigned' else 'pending' end, 'statusReason', null,
        'statusChangedAt', to_jsonb(now() - interval '3 days'), 'isMonitoring', false, 'staleReportedAt', null),
      now(), now(), 'prj_bench', 'obs_bench' || (i % 50), 'usr_bench', case when i % 100 = 0 then 'assigned' else 'pending' end,
      1 + i % 10, now() - interval '3 days'
    from generate_series(1, ${count}) as i`);
  // Both sides read a settled table: without it the first reader pays for setting every row's
  // hint bits (COPY ran at half speed in the first run, which flattered the scan).
  await db.execute(sql`vacuum (freeze, analyze) observations`);
}

/** `count` objects under observations/ with a record each, 64 puts in flight. */
export async function seedObjects(runtime: Runtime, count: number) {
  const { db, storage } = runtime.deps;
  const keyOf = (i: number) => `observations/obn_bench${String(i % 1000).padStart(8, "0")}/fil_${String(i).padStart(8, "0")}`;
  let next = 0;
  await Promise.all(
    Array.from({ length: 64 }, async () => {
      while (next < count) {
        const i = next++;
        await storage.put(keyOf(i), Buffer.from(`object ${i}`));
      }
    }),
  );
  await db.execute(sql`
    insert into files (id, doc, created_at, updated_at, observation_id, object_key)
    select 'fil_' || lpad(i::text, 8, '0'), jsonb_build_object('observationId', observation,
        'observatoryId', 'obs_bench' || (i % 1000 % 50), 'filename', 'frame-' || i || '.fits', 'sizeBytes', length('object ' || i),
        'sha256', repeat('0', 64), 'contentType', 'application/octet-stream', 'kind', 'other', 'previewOfId', null, 'objectKey', key),
      now(), now(), observation, key
    from generate_series(0, ${count - 1}) as i,
         lateral (select 'obn_bench' || lpad((i % 1000)::text, 8, '0') as observation) o,
         lateral (select 'observations/' || observation || '/fil_' || lpad(i::text, 8, '0') as key) k`);
  await db.execute(sql`analyze files`);
}
