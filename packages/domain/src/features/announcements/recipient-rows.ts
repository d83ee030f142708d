import { sql } from "drizzle-orm";

/**
 * Every recipient row of one announcement, as a range of the primary key: ids are
 * `<announcementId>:<userId>` in the "C" collation, and ";" is the character after ":". This
 * spares creation a second index over all rows.
 */
export const recipientsOf = ({ announcementId, alias }: { announcementId: string; alias?: string }) => {
  const id = sql.raw(alias ? `${alias}.id` : "id");
  return sql`${id} >= ${`${announcementId}:`} and ${id} < ${`${announcementId};`}`;
};
