import type { Sql } from "postgres";

/** How often a backend running a statement looks whether its client is still there. */
export const CLIENT_CONNECTION_CHECK_INTERVAL = "5s";

/**
 * PostgreSQL notices that a client died only when it next writes to it. A killed process's backend
 * waiting on a lock (or running a long statement) keeps every lock its transaction took until that
 * wait ends, and whatever needs them (a new worker's recovery of the dead one's jobs) waits behind
 * it. With `client_connection_check_interval` (PostgreSQL 14 and newer, on Linux) a backend looks at
 * its socket every few seconds while a statement runs, and ends when the client is gone.
 *
 * Set as a default of Meridian's role rather than as a startup parameter, which PgBouncer refuses
 * unless told to ignore it; idempotent. A role that may not set its own defaults, or an older
 * PostgreSQL, goes on without it.
 */
export async function installClientConnectionCheck(connection: Sql): Promise<void> {
  await connection.unsafe(`
    do $$
    declare
      wanted text := 'client_connection_check_interval=${CLIENT_CONNECTION_CHECK_INTERVAL}';
    begin
      if exists (
        select 1 from pg_db_role_setting s join pg_roles r on r.oid = s.setrole
         where r.rolname = current_user and s.setdatabase = 0 and wanted = any (s.setconfig)
      ) then
        return;
      end if;
      execute format('alter role %I set client_connection_check_interval = %L', current_user, '${CLIENT_CONNECTION_CHECK_INTERVAL}');
    exception when others then
      raise notice 'client_connection_check_interval left unset: %', sqlerrm;
    end $$`);
}
