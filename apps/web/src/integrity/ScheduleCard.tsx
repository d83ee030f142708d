import { useState } from "react";
import { useQuery } from "@tanstack/react-query";
import { Button } from "../components/Button";
import { FormNotices } from "../components/FormNotices";
import { Card } from "../components/Card";
import { QueryState } from "../components/QueryState";
import { TextField } from "../components/TextField";
import { formProblem, generalMessage } from "../lib/form-errors";
import { trpc } from "../trpc";
import { useSaveSettings } from "../admin/useSaveSettings";

type Schedule = { quick: string | null; full: string | null };

// The spec's recommended monitoring.
const recommended = { quick: "0 3 * * 0", full: "0 4 1 * *" };
const fields = [
  { kind: "quick", label: "Quick scan", hint: `Recommended: weekly, such as ${recommended.quick} (Sundays 03:00).` },
  { kind: "full", label: "Full scan with storage, reference and health checks", hint: `Recommended: monthly, such as ${recommended.full} (the 1st, 04:00).` },
] as const;
const description =
  "Cron expressions in UTC (minute hour day month weekday); empty: never. " +
  "Administrators who want system events are told when a scheduled scan finds critical issues.";

/** When scheduled scans run (cron, UTC); server admins are told when one finds critical issues. */
export function ScheduleCard() {
  const settings = useQuery(trpc.admin.settings.queryOptions(undefined, { staleTime: 0 }));
  return (
    <QueryState query={settings} loading="Loading the schedule" error="Could not load the schedule">
      {(data) => <ScheduleForm schedule={data.scanSchedule} />}
    </QueryState>
  );
}

function ScheduleForm({ schedule }: { schedule: Schedule }) {
  const [quick, setQuick] = useState(schedule.quick ?? "");
  const [full, setFull] = useState(schedule.full ?? "");
  const { save, saved, setSaved } = useSaveSettings();
  const problem = formProblem(save.error, { prefix: "update.scanSchedule" });
  const general = generalMessage(problem, ["quick", "full"]);
  return (
    <form
      noValidate
      onSubmit={(event) => {
        event.preventDefault();
        setSaved(false);
        save.mutate({ update: { scanSchedule: { quick: quick.trim() || null, full: full.trim() || null } } });
      }}
    >
      <Card
        title="Scheduled scans"
        description={description}
        footer={
          <Button type="submit" variant="secondary" busy={save.isPending}>
            Save schedule
          </Button>
        }
      >
        <FormNotices error={general} success={saved ? "Schedule saved." : null} />
        <div className="flex flex-col gap-4">
          {fields.map(({ kind, label, hint }) => (
            <TextField
              key={kind}
              label={label}
              hint={hint}
              placeholder={recommended[kind]}
              value={kind === "quick" ? quick : full}
              onChange={(event) => (kind === "quick" ? setQuick : setFull)(event.target.value)}
              error={problem?.fieldErrors[kind]}
            />
          ))}
        </div>
      </Card>
    </form>
  );
}
