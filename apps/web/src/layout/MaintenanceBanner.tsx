import { useQuery } from "@tanstack/react-query";
import { Wrench } from "lucide-react";
import { Link } from "react-router-dom";
import { isServerAdmin, useMe } from "../auth/useMe";
import { formatDateTime } from "../lib/format";
import { trpc } from "../trpc";

/** While a restore runs, every page says so: changes are refused (503 MAINTENANCE) until it ends. */
export function MaintenanceBanner() {
  const me = useMe();
  const status = useQuery({ ...trpc.maintenance.status.queryOptions(), refetchInterval: (query) => (query.state.data?.active ? 5000 : 30_000) });
  if (!status.data?.active) return null;
  return (
    <div role="status" className="flex items-start gap-3 border-b border-amber-200 bg-amber-50 px-4 py-3 text-sm text-amber-900 sm:px-6">
      <Wrench aria-hidden="true" className="mt-0.5 size-4 shrink-0" />
      <p>
        <span className="font-semibold">Maintenance: </span>
        {status.data.reason ?? "The server is being maintained"} since {formatDateTime(status.data.since)}. You can look around, but changes are refused until
        it ends.
        {status.data.jobId && isServerAdmin(me.data) ? (
          <>
            {" "}
            If it will not finish, <Link to="/admin/jobs?kind=backup_restore">end it on the Jobs page</Link>.
          </>
        ) : null}
      </p>
    </div>
  );
}
