import type { FrameDoc } from "@meridian/db";
import { gradeFrame, type FrameGrading } from "@meridian/rules/frames";
import { sql } from "drizzle-orm";
import type { InTransaction } from "../../platform/transaction";

/** Frames read and written at a time: a project's frames are never held in memory together. */
const REGRADE_BATCH = 500;

/**
 * Grades a project's analysed frames again under `grading`, from what their analysis measured (no
 * new analysis), in the caller's transaction: the one that changed the grading, so a read sees the
 * old grades with the old grading or the new with the new. Batches in file-id order; only frames
 * whose grade changes are written. The caller holds the project's row FOR UPDATE, and an analysis
 * reads it FOR SHARE before it writes its frame, so none lands graded under the grading replaced.
 */
export async function regradeProjectFrames(options: { t: Pick<InTransaction, "tx">; projectId: string; grading: FrameGrading }): Promise<number> {
  const { t, projectId, grading } = options;
  let after = "";
  let changed = 0;
  for (;;) {
    const rows = await t.tx.execute<{ id: string; frame: FrameDoc }>(sql`
      select f.id, f.doc->'frame' as frame
        from files f join observations o on o.id = f.observation_id
       where o.project_id = ${projectId} and f.doc->'frame'->>'status' = 'analysed' and f.id > ${after}
       order by f.id
       limit ${REGRADE_BATCH}
         for update of f`);
    const regraded = rows.flatMap(({ id, frame }) => {
      const { grade, rejectedFor } = gradeFrame(frame, grading);
      const same = grade === frame.grade && rejectedFor.join() === frame.rejectedFor.join();
      return same ? [] : [{ id, grade, rejectedFor }];
    });
    if (regraded.length > 0)
      await t.tx.execute(sql`
        update files f
           set doc = jsonb_set(jsonb_set(f.doc, '{frame,grade}', to_jsonb(x.grade)), '{frame,rejectedFor}', x."rejectedFor"), updated_at = now()
          from jsonb_to_recordset(${JSON.stringify(regraded)}::jsonb) as x(id text, grade text, "rejectedFor" jsonb)
         where f.id = x.id`);
    changed += regraded.length;
    if (rows.length < REGRADE_BATCH) return changed;
    after = rows.at(-1)!.id;
  }
}
