import { useState } from "react";
import { useMutation, useQuery } from "@tanstack/react-query";
import { Hourglass, Pencil, Plus } from "lucide-react";
import { Alert } from "../components/Alert";
import { Button } from "../components/Button";
import { ConfirmDialog } from "../components/ConfirmDialog";
import { EmptyState } from "../components/EmptyState";
import { FormDialog } from "../components/FormDialog";
import { QueryState } from "../components/QueryState";
import { RemoveButton } from "../components/RemoveButton";
import { SelectField } from "../components/SelectField";
import { DataTable, td, Th } from "../components/Table";
import { TextField } from "../components/TextField";
import { formatShortDate } from "../lib/format";
import { formProblem } from "../lib/form-errors";
import { useConfirmedMutation } from "../lib/useConfirmedMutation";
import type { RouterOutputs } from "../organizations/types";
import { queryClient, trpc } from "../trpc";
import { UsageBar } from "./UsageBar";

type Allocation = RouterOutputs["observatories"]["allocations"]["items"][number];

const refresh = () =>
  Promise.all(
    [trpc.observatories.allocations, trpc.observatories.queue, trpc.observatories.plan, trpc.observatories.history].map((view) =>
      queryClient.invalidateQueries(view.pathFilter()),
    ),
  );

/** Observing time granted to projects here: used against allocated, and (for administrators) grant, change and remove. */
export function ObservatoryAllocations({ observatoryId, canAdmin }: { observatoryId: string; canAdmin: boolean }) {
  const allocations = useQuery(trpc.observatories.allocations.queryOptions({ id: observatoryId }, { staleTime: 0 }));
  const [editing, setEditing] = useState<Allocation | "new" | null>(null);
  const [notice, setNotice] = useState<string | null>(null);
  const removal = useConfirmedMutation({
    mutation: trpc.observatories.deleteAllocation.mutationOptions(),
    variables: (allocation: Allocation) => ({ id: observatoryId, projectId: allocation.projectId }),
    onSuccess: (allocation) => {
      setNotice(`${allocation.projectName ?? "The project"} is unlimited here again.`);
      return refresh();
    },
  });
  return (
    <section aria-labelledby="allocations-title" className="flex flex-col gap-4">
      <div className="flex flex-wrap items-end justify-between gap-3">
        <div>
          <h2 id="allocations-title" className="text-base font-semibold text-slate-900">
            Time allocations
          </h2>
          <p className="mt-1 text-sm text-slate-500">
            Hours each project may observe here in its period. A project without an allocation is unlimited; dispatch holds an observation that would take its
            project past what is left.
          </p>
        </div>
        {canAdmin ? (
          <Button
            icon={<Plus aria-hidden="true" className="size-4" />}
            onClick={() => {
              setNotice(null);
              setEditing("new");
            }}
          >
            Grant time
          </Button>
        ) : null}
      </div>
      {notice ? <Alert tone="success">{notice}</Alert> : null}
      <QueryState
        query={allocations}
        loading="Loading allocations"
        error="Could not load allocations"
        isEmpty={(data) => data.items.length === 0}
        empty={
          <EmptyState icon={Hourglass} title="No allocations">
            Every project may use this observatory without limit.
          </EmptyState>
        }
      >
        {(data) => (
          <DataTable
            label="Time allocations"
            stackOnPhone
            columns={
              <>
                <Th>Project</Th>
                <Th>Used</Th>
                <Th>Period</Th>
                {canAdmin ? <Th className="text-right">Actions</Th> : null}
              </>
            }
          >
            {data.items.map((allocation) => {
              const name = allocation.projectName ?? allocation.projectId;
              return (
                <tr key={allocation.projectId}>
                  <td className={`${td} font-medium text-slate-900`} data-label="Project">
                    {name}
                  </td>
                  <td className={td} data-label="Used">
                    <UsageBar label={`Hours used by ${name}`} usedHours={allocation.usedHours} allocatedHours={allocation.hours} />
                  </td>
                  <td className={`${td} whitespace-nowrap`} data-label="Period">
                    {formatShortDate(allocation.periodStart)} – {formatShortDate(allocation.periodEnd)}
                  </td>
                  {canAdmin ? (
                    <td className={`${td} text-right whitespace-nowrap`} data-label="Actions">
                      <Button
                        variant="ghost"
                        aria-label={`Change the allocation of ${name}`}
                        icon={<Pencil aria-hidden="true" className="size-4" />}
                        onClick={() => {
                          setNotice(null);
                          setEditing(allocation);
                        }}
                      >
                        Change
                      </Button>
                      <RemoveButton name={`the allocation of ${name}`} onClick={() => removal.ask(allocation)} />
                    </td>
                  ) : null}
                </tr>
              );
            })}
          </DataTable>
        )}
      </QueryState>
      <ConfirmDialog {...removal.dialog} title="Remove allocation?" confirmLabel="Remove allocation">
        <strong className="font-semibold text-slate-900">{removal.target?.projectName ?? "The project"}</strong> will be unlimited at this observatory.
      </ConfirmDialog>
      {editing ? (
        <AllocationDialog
          observatoryId={observatoryId}
          allocation={editing === "new" ? null : editing}
          onClose={() => setEditing(null)}
          onSaved={(name) => {
            setEditing(null);
            setNotice(`${name} has its time.`);
          }}
        />
      ) : null}
    </section>
  );
}

/** A date input's value for an ISO time, in the browser's zone. */
const dateValue = (iso: string | undefined) => (iso ? iso.slice(0, 10) : "");

function AllocationDialog({
  observatoryId,
  allocation,
  onClose,
  onSaved,
}: {
  observatoryId: string;
  allocation: Allocation | null;
  onClose(): void;
  onSaved(name: string): void;
}) {
  const projects = useQuery(trpc.projects.list.queryOptions(undefined, { enabled: allocation === null }));
  const [projectId, setProjectId] = useState(allocation?.projectId ?? "");
  const [hours, setHours] = useState(allocation ? String(allocation.hours) : "");
  const [start, setStart] = useState(dateValue(allocation?.periodStart));
  const [end, setEnd] = useState(dateValue(allocation?.periodEnd));
  const [local, setLocal] = useState<Record<string, string>>({});
  const save = useMutation(
    trpc.observatories.putAllocation.mutationOptions({
      onSuccess: async () => {
        await refresh();
        onSaved(allocation?.projectName ?? projects.data?.items.find((project) => project.id === projectId)?.name ?? "The project");
      },
    }),
  );
  const problem = formProblem(save.error);
  const errors: Record<string, string | undefined> = { ...problem?.fieldErrors, ...local };
  const submit = () => {
    const found: Record<string, string> = {};
    if (!projectId) found.projectId = "Choose a project.";
    if (!(Number(hours) > 0)) found.hours = "Give a number of hours above 0.";
    setLocal(found);
    if (Object.keys(found).length > 0) return save.reset();
    save.mutate({
      id: observatoryId,
      projectId,
      hours: Number(hours),
      ...(start ? { periodStart: new Date(`${start}T00:00:00`).toISOString() } : {}),
      ...(end ? { periodEnd: new Date(`${end}T00:00:00`).toISOString() } : {}),
    });
  };
  return (
    <FormDialog
      title={allocation ? `Change the allocation of ${allocation.projectName ?? allocation.projectId}` : "Grant observing time"}
      description="The period starts today and lasts six months unless you give its dates."
      submitLabel={allocation ? "Save allocation" : "Grant time"}
      busy={save.isPending}
      error={problem && !["projectId", "hours", "periodStart", "periodEnd"].some((field) => errors[field]) ? problem.message : null}
      onSubmit={submit}
      onClose={onClose}
    >
      {allocation ? null : (
        <SelectField label="Project" required value={projectId} onChange={(event) => setProjectId(event.target.value)} error={errors.projectId}>
          <option value="">Choose a project</option>
          {(projects.data?.items ?? []).map((project) => (
            <option key={project.id} value={project.id}>
              {project.name}
            </option>
          ))}
        </SelectField>
      )}
      <TextField label="Hours" required inputMode="decimal" value={hours} onChange={(event) => setHours(event.target.value)} error={errors.hours} />
      <div className="grid gap-4 sm:grid-cols-2">
        <TextField label="Period start" type="date" value={start} onChange={(event) => setStart(event.target.value)} error={errors.periodStart} />
        <TextField label="Period end" type="date" value={end} onChange={(event) => setEnd(event.target.value)} error={errors.periodEnd} />
      </div>
    </FormDialog>
  );
}
