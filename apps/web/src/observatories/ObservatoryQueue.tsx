import { useQuery } from "@tanstack/react-query";
import { ListOrdered } from "lucide-react";
import { Link } from "react-router-dom";
import { Badge } from "../components/Badge";
import { Card } from "../components/Card";
import { EmptyState } from "../components/EmptyState";
import { QueryState } from "../components/QueryState";
import { DataTable, td, Th } from "../components/Table";
import { formatDateTime } from "../lib/format";
import { QueueReasons } from "./QueueReasons";
import { trpc } from "../trpc";

/** The explained queue: pending observations in dispatch order, each eligible now or why not and until when. */
export function ObservatoryQueue({ observatoryId }: { observatoryId: string }) {
  const queue = useQuery(trpc.observatories.queue.queryOptions({ id: observatoryId }, { staleTime: 0, refetchInterval: 60_000 }));
  return (
    <QueryState query={queue} loading="Loading the queue" error="Could not load the queue">
      {(data) => (
        <div className="flex flex-col gap-4">
          <Card title="Darkness">
            <p className="text-sm text-slate-700">
              {data.darkness
                ? `${new Date(data.darkness.start) <= new Date() ? "Dark now" : "Next dark"}: ` +
                  `${formatDateTime(data.darkness.start)} to ${formatDateTime(data.darkness.end)} (astronomical twilight).`
                : "No location set: darkness is not checked."}
            </p>
          </Card>
          {data.items.length === 0 ? (
            <EmptyState icon={ListOrdered} title="Nothing waiting">
              Pending observations for this observatory appear here in the order dispatch will send them.
            </EmptyState>
          ) : (
            <DataTable
              label="Queue"
              columns={
                <>
                  <Th>#</Th>
                  <Th>Observation</Th>
                  <Th>Now</Th>
                  <Th className="hidden sm:table-cell">Priority</Th>
                </>
              }
            >
              {data.items.map((item, index) => (
                <tr key={item.observation.id}>
                  <td className={td}>{index + 1}</td>
                  <td className={td}>
                    <Link to={`/observations/${item.observation.id}`} className="font-medium text-slate-900 hover:text-indigo-600">
                      {item.observation.name}
                    </Link>
                  </td>
                  <td className={td}>{item.eligible ? <Badge tone="emerald">Eligible</Badge> : <QueueReasons item={item} />}</td>
                  <td className={`${td} hidden sm:table-cell`}>{item.observation.priority}</td>
                </tr>
              ))}
            </DataTable>
          )}
        </div>
      )}
    </QueryState>
  );
}
