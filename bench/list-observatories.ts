/**
 * How fast is "which observatories may this user see, and with what permissions" for 1,000
 * observatories? Compares listObservatories (permissions resolved in one query) with the peer:
 * a bare `select ... limit` of the same rows without any permission work.
 *
 *   node --import tsx bench/list-observatories.ts
 */
import fs from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { createLogger, loadEnv } from "@meridian/config";
import { observatoriesCollection, observatoryMembersCollection, organizationMembersCollection, organizationsCollection, usersCollection } from "@meridian/db";
import { listObservatories } from "@meridian/domain/observatories";
import { listViewableObservatoryIds, resolveObservatoryAccess } from "@meridian/domain/permissions";
import { actorFromUser, startRuntime } from "@meridian/domain/platform";
import { sql } from "drizzle-orm";

const OBSERVATORIES = 1000;
const ROUNDS = 30;

const dataDir = await fs.mkdtemp(path.join(os.tmpdir(), "meridian-bench-"));
const env = loadEnv({ ...process.env, DATA_DIR: dataDir, LOG_LEVEL: "warn", EMBEDDED_POSTGRES_PORT: String(20000 + Math.floor(Math.random() * 20000)) });
const runtime = await startRuntime({ env, logger: createLogger({ level: "warn" }), kind: "all" });
const { deps } = runtime;

try {
  const permissions = { can_view: true, can_observe: true, can_operate: false, can_admin: false };
  const user = await usersCollection.insert(deps.db, {
    email: "bench@example.com",
    name: "Bench",
    passwordHash: "x",
    roles: [],
    notificationPreferences: { email: true, push: false, systemEvents: true, observationEvents: true },
    avatar: null,
  });
  const other = await usersCollection.insert(deps.db, {
    email: "other@example.com",
    name: "Other",
    passwordHash: "x",
    roles: [],
    notificationPreferences: { email: true, push: false, systemEvents: true, observationEvents: true },
    avatar: null,
  });
  const organizations = [];
  for (let index = 0; index < 10; index += 1) {
    const organization = await organizationsCollection.insert(deps.db, {
      name: `Org ${index}`,
      shortName: `org${index}`,
      type: "university",
      description: null,
      contactEmail: "o@example.com",
      ownerId: other.id,
      externalStorage: [],
    });
    await organizationMembersCollection.insert(deps.db, {
      organizationId: organization.id,
      userId: user.id,
      permissions: {
        can_manage_members: index % 3 === 0,
        can_manage_observatories: false,
        can_manage_projects: false,
        can_manage_billing: false,
        can_manage_storage: false,
      },
    });
    organizations.push(organization);
  }
  // A third owned, a third direct grants, a third through one of ten organizations; plus 1,000 invisible ones.
  for (let index = 0; index < OBSERVATORIES * 2; index += 1) {
    const visible = index < OBSERVATORIES;
    const owned = visible && index % 3 === 0;
    const observatory = await observatoriesCollection.insert(deps.db, {
      name: `Observatory ${index}`,
      owner: { kind: "user", id: owned ? user.id : other.id },
      location: null,
      dispatchEnabled: true,
      connection: { online: false, pluginVersion: null, lastSeenAt: null },
    });
    if (visible && index % 3 === 1)
      await observatoryMembersCollection.insert(deps.db, { observatoryId: observatory.id, memberKind: "user", memberId: user.id, permissions });
    if (visible && index % 3 === 2)
      await observatoryMembersCollection.insert(deps.db, {
        observatoryId: observatory.id,
        memberKind: "organization",
        memberId: organizations[index % 10]!.id,
        permissions,
      });
  }
  await deps.sql`analyze`;
  const actor = actorFromUser({ user: (await usersCollection.get(deps.db, user.id))! });

  const time = async (label: string, work: () => Promise<unknown>) => {
    for (let warm = 0; warm < 3; warm += 1) await work();
    const samples: number[] = [];
    for (let round = 0; round < ROUNDS; round += 1) {
      const started = performance.now();
      await work();
      samples.push(performance.now() - started);
    }
    samples.sort((a, b) => a - b);
    return { label, medianMs: samples[Math.floor(samples.length / 2)]!, p95Ms: samples[Math.floor(samples.length * 0.95)]! };
  };

  const check = await resolveObservatoryAccess({ db: deps.db, userId: user.id, isServerAdmin: false });
  if ([...check.values()].filter((access) => access.can_view).length !== OBSERVATORIES) throw new Error("seed is wrong");

  const results = [
    await time("peer: bare select of 200 rows, no permission work", () => deps.db.execute(sql`select id, doc from observatories order by id limit 200`)),
    await time(`resolveObservatoryAccess for all ${OBSERVATORIES} visible observatories (one query)`, () =>
      resolveObservatoryAccess({ db: deps.db, userId: user.id, isServerAdmin: false }),
    ),
    await time("listViewableObservatoryIds, one page of 200 ids", () => listViewableObservatoryIds({ db: deps.db, userId: user.id, limit: 200 })),
    await time("listObservatories, first page of 200 with permissions", () => listObservatories({ deps, actor, limit: 200 })),
    await time(`listObservatories, all ${OBSERVATORIES} (5 pages of 200)`, async () => {
      let cursor: string | undefined;
      do {
        const page = await listObservatories({ deps, actor, limit: 200, cursor });
        cursor = page.nextCursor ?? undefined;
      } while (cursor);
    }),
  ];
  const table = [
    `Listing observatories with permissions (${OBSERVATORIES} visible of ${OBSERVATORIES * 2}; ` +
      `${ROUNDS} rounds; ${os.cpus().length} cores; ${new Date().toISOString().slice(0, 10)})`,
    "",
    "| What | median ms | p95 ms |",
    "|---|---:|---:|",
    ...results.map((result) => `| ${result.label} | ${result.medianMs.toFixed(1)} | ${result.p95Ms.toFixed(1)} |`),
  ].join("\n");
  console.log(table);
  await fs.mkdir("bench/results", { recursive: true });
  await fs.writeFile("bench/results/list-observatories.md", `${table}\n`);
} finally {
  await runtime.stop();
  await fs.rm(dataDir, { recursive: true, force: true });
}
