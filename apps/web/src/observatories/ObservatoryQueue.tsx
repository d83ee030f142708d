import { useQuery } from "@tanstack/react-query";
import { ListOrdered } from "lucide-react";
import { Link } from "react-router-dom";
import { ActionLink } from "../components/ActionLink";
import { Badge } from "../components/Badge";
import { Button } from "../components/Button";
import { Card } from "../components/Card";
import { EmptyState } from "../components/EmptyState";
import { QueryState } from "../components/QueryState";
import { DataTable, td, Th } from "../components/Table";
import { useSearchFlag } from "../lib/useSearchFlag";
import { Time } from "../components/Time";
import { QueueReasons } from "./QueueReasons";
import { trpc } from "../trpc";
import { useObservatoryTimeZone } from "./useObservatoryTimeZone";

/** The explained queue: pending observations in dispatch order, each eligible now or why not and until when. */
export function ObservatoryQueue({ observatoryId }: { observatoryId: string }) {
  const queue = useQuery(trpc.observatories.queue.queryOptions({ id: observatoryId }, { staleTime: 0, refetchInterval: 60_000 }));
  // The page asked both already: these read its answers.
  const mine = useQuery(trpc.observatories.myPermissions.queryOptions({ id: observatoryId }, { staleTime: 0 }));
  const located = Boolean(useQuery(trpc.observatories.get.queryOptions({ id: observatoryId })).data?.location);
  const [, openSettings] = useSearchFlag("settings");
  const timeZone = useObservatoryTimeZone(observatoryId);
  return (
    <QueryState query={queue} loading="Loading the queue" error="Could not load the queue">
      {(data) => (
        <div className="flex flex-col gap-4">
          <Card title="Darkness">
            <p className="text-sm text-slate-700">
              {data.darkness ? (
                <>
                  {new Date(data.darkness.start) <= new Date() ? "Dark now" : "Next dark"}: <Time iso={data.darkness.start} zone={timeZone} /> to{" "}
                  <Time iso={data.darkness.end} zone={timeZone} /> (astronomical twilight).
                </>
              ) : located ? (
                "No astronomical darkness in the next two days at this location."
              ) : (
                `No location set: darkness and altitude are not checked.${mine.data?.can_admin ? "" : " Its administrators set it."}`
              )}
            </p>
            {!located && mine.data?.can_admin ? (
              <Button variant="secondary" className="mt-3" onClick={() => openSettings(true)}>
                Set the location
              </Button>
            ) : null}
          </Card>
          {data.items.length === 0 ? (
            <EmptyState
              icon={ListOrdered}
              title="Nothing waiting"
              actions={mine.data?.can_observe ? <ActionLink to="/observations/new">Submit an observation</ActionLink> : undefined}
            >
              Pending observations for this observatory appear here in the order dispatch will send them.
              {mine.data?.can_observe ? null : " Those who may observe with it submit them; its administrators give that permission."}
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
                  <td className={td}>{item.eligible ? <Badge tone="emerald">Eligible</Badge> : <QueueReasons item={item} zone={timeZone} />}</td>
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
