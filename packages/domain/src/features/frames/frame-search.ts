import { storedFromRow, type FileDoc } from "@meridian/db";
import { sql, type SQL } from "drizzle-orm";
import type { UserActor } from "../../platform/actor";
import type { Deps } from "../../platform/deps";
import { AppError, fieldError } from "../../platform/errors";
import { readableBy, presentFile } from "../observations";
import { viewableObservatoryIds } from "../permissions";
import { instantKey, keysetCursor } from "../../platform/validation/keyset-cursor";
import type { FrameSearchFilter } from "./frame-search-schemas";

interface Cone {
  ra: number;
  dec: number;
  radius: number;
}

const coneFields = ["ra", "dec", "radius"] as const;

/** `ra`, `dec` and `radius` come together or not at all: a partial set names what is missing. */
function coneOf(filter: FrameSearchFilter): Cone | undefined {
  const given = coneFields.filter((field) => filter[field] !== undefined);
  if (given.length === 0) return undefined;
  if (given.length < coneFields.length) {
    const missing = coneFields.filter((field) => filter[field] === undefined);
    throw new AppError("VALIDATION_FAILED", `A cone search needs ra, dec and radius together; ${missing.join(" and ")} missing`, {
      errors: missing.map((field) => fieldError({ path: field, predicate: "is required with " + given.join(" and ") })),
    });
  }
  return { ra: filter.ra! % 360, dec: filter.dec!, radius: filter.radius! };
}

/**
 * The boxes in (ra, dec) that hold every point of the cone, for the GiST index on the solved
 * centre: one box, two where the cone crosses ra 0/360, and a band of every ra where it holds a
 * pole. Widened by a hair so that a centre on the cone's edge is never lost to rounding.
 */
function coneBoxes({ ra, dec, radius }: Cone): Array<[number, number, number, number]> {
  const slack = 1e-9;
  const low = Math.max(-90, dec - radius - slack);
  const high = Math.min(90, dec + radius + slack);
  if (dec + radius >= 90 || dec - radius <= -90) return [[0, low, 360, high]];
  const toRadians = Math.PI / 180;
  // The widest ra a cap reaches: sin(Δra) = sin(radius) / cos(dec).
  const reach = Math.asin(Math.min(1, Math.sin(radius * toRadians) / Math.cos(dec * toRadians))) / toRadians + slack;
  if (reach >= 180) return [[0, low, 360, high]];
  const west = ra - reach;
  const east = ra + reach;
  if (west < 0)
    return [
      [0, low, east, high],
      [west + 360, low, 360, high],
    ];
  if (east > 360)
    return [
      [west, low, 360, high],
      [0, low, east - 360, high],
    ];
  return [[west, low, east, high]];
}

/** The great-circle distance in degrees from the frame's solved centre to the cone's (haversine: exact at small separations too). */
const distanceFrom = ({ ra, dec }: Cone) => sql`degrees(2 * asin(least(1, sqrt(
      power(sin(radians(f.frame_dec - ${dec}::float8) / 2), 2)
    + cos(radians(f.frame_dec)) * cos(radians(${dec}::float8)) * power(sin(radians(f.frame_ra - ${ra}::float8) / 2), 2)))))`;

function coneConditions(cone: Cone, distance: SQL): SQL[] {
  // The index's expression exactly (migration 0023), so the planner can use it.
  const centre = sql`point(f.frame_ra, f.frame_dec)`;
  const inBox = coneBoxes(cone).map(([west, south, east, north]) => sql`${centre} <@ box(point(${west}, ${south}), point(${east}, ${north}))`);
  return [sql`f.frame_ra is not null`, sql`(${sql.join(inBox, sql` or `)})`, sql`${distance} <= ${cone.radius}::float8`];
}

/** How a page is ordered: nearest first in a cone (then by id), else newest upload first; each with its cursor. */
function frameOrder(cone: Cone | undefined) {
  if (cone) {
    const distance = distanceFrom(cone);
    const position = keysetCursor({ list: "frames-cone", parts: ["number", "id"] });
    return {
      conditions: coneConditions(cone, distance),
      orderBy: sql`${distance} asc, f.id asc`,
      value: distance,
      pageOrder: sql`page.sort_value asc, page.id asc`,
      key: sql`(${distance})::text`,
      after(cursor: string): SQL {
        const [key, id] = position.decode(cursor);
        return sql`(${distance}, f.id) > (${key}::float8, ${id})`;
      },
      cursor: (row: { sort_key: string; id: string }) => position.encode(row.sort_key, row.id),
    };
  }
  const position = keysetCursor({ list: "frames", parts: ["instant", "id"] });
  return {
    conditions: [] as SQL[],
    orderBy: sql`f.created_at desc, f.id desc`,
    value: sql`f.created_at`,
    pageOrder: sql`page.sort_value desc, page.id desc`,
    key: instantKey(sql`f.created_at`),
    after(cursor: string): SQL {
      const [key, id] = position.decode(cursor);
      return sql`(f.created_at, f.id) < (${key}::timestamptz, ${id})`;
    },
    cursor: (row: { sort_key: string; id: string }) => position.encode(row.sort_key, row.id),
  };
}

/** What the caller may read (readers of each frame's observation), then each filter given. */
function frameConditions(actor: UserActor, filter: FrameSearchFilter): SQL[] {
  const conditions = [
    sql`f.frame_status is not null`,
    actor.isServerAdmin ? sql`true` : readableBy({ userId: actor.id, viewableObservatories: viewableObservatoryIds(actor.id) }),
  ];
  if (filter.filter) conditions.push(sql`f.frame_filter = lower(${filter.filter})`);
  if (filter.from) conditions.push(sql`f.frame_date_obs >= ${new Date(filter.from).toISOString()}::timestamptz`);
  if (filter.to) conditions.push(sql`f.frame_date_obs < ${new Date(filter.to).toISOString()}::timestamptz`);
  if (filter.grade) conditions.push(sql`f.frame_grade = ${filter.grade}`);
  if (filter.observatoryId) conditions.push(sql`f.doc->>'observatoryId' = ${filter.observatoryId}`);
  if (filter.projectId) conditions.push(sql`o.project_id = ${filter.projectId}`);
  return conditions;
}

/**
 * `GET /frames`: frames the caller may read, in keyset pages. With a cone, those whose solved
 * centre lies within it, nearest first; the GiST index on the centre finds the candidates and
 * the exact distance decides, so no page is filtered after it was read. The page is chosen from
 * the indexes alone (they carry the centre, the id and the observation: an index-only scan), and
 * only its own rows' documents are read from the table, not those of every candidate in the cone.
 */
export async function searchFrames(options: { deps: Deps; actor: UserActor; filter: FrameSearchFilter; limit: number; cursor?: string }) {
  const { deps, actor, filter, limit } = options;
  const order = frameOrder(coneOf(filter));
  const conditions = [...frameConditions(actor, filter), ...order.conditions];
  if (options.cursor) conditions.push(order.after(options.cursor));
  const rows = await deps.db.execute<{ id: string; doc: FileDoc; created_at: string; updated_at: string; sort_key: string }>(sql`
    with page as materialized (
      select f.id, ${order.key} as sort_key, ${order.value} as sort_value
        from files f join observations o on o.id = f.observation_id
       where ${sql.join(conditions, sql` and `)}
       order by ${order.orderBy}
       limit ${limit + 1})
    select f.id, f.doc, f.created_at, f.updated_at, page.sort_key
      from page join files f on f.id = page.id
     order by ${order.pageOrder}`);
  const page = rows.slice(0, limit);
  return {
    items: page.map((row) => presentFile(storedFromRow(row))),
    nextCursor: rows.length > limit ? order.cursor(page.at(-1)!) : null,
  };
}
