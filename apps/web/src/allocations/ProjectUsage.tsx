import { useQuery } from "@tanstack/react-query";
import { Hourglass } from "lucide-react";
import { Card } from "../components/Card";
import { EmptyState } from "../components/EmptyState";
import { QueryState } from "../components/QueryState";
import { DataTable, td, Th } from "../components/Table";
import { trpc } from "../trpc";
import { formatHours, UsageBar } from "./UsageBar";

/** The project's observing time at each observatory it uses: used against allocated, and what its waiting observations need. */
export function ProjectUsage({ projectId }: { projectId: string }) {
  const usage = useQuery(trpc.projects.usage.queryOptions({ id: projectId }, { staleTime: 0 }));
  return (
    <Card title="Usage" description="Observing time per observatory: allocated, used in the allocation's period, and pending in waiting observations.">
      <QueryState
        query={usage}
        loading="Loading usage"
        error="Could not load usage"
        isEmpty={(data) => data.items.length === 0}
        empty={
          <EmptyState icon={Hourglass} title="No observing time yet">
            Observatories appear here once the project has observations or an allocation there.
          </EmptyState>
        }
      >
        {(data) => (
          <DataTable
            label="Usage per observatory"
            stackOnPhone
            columns={
              <>
                <Th>Observatory</Th>
                <Th>Used</Th>
                <Th>Pending</Th>
              </>
            }
          >
            {data.items.map((item) => (
              <tr key={item.observatoryId}>
                <td className={`${td} font-medium text-slate-900`} data-label="Observatory">
                  {item.observatoryName}
                </td>
                <td className={td} data-label="Used">
                  <UsageBar label={`Hours used at ${item.observatoryName}`} usedHours={item.usedHours} allocatedHours={item.allocatedHours} />
                </td>
                <td className={td} data-label="Pending">
                  {formatHours(item.pendingHours)}
                </td>
              </tr>
            ))}
          </DataTable>
        )}
      </QueryState>
    </Card>
  );
}
