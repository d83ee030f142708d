import { useState } from "react";
import { useQuery } from "@tanstack/react-query";
import { Button } from "../components/Button";
import { FormNotices } from "../components/FormNotices";
import { Card } from "../components/Card";
import { QueryState } from "../components/QueryState";
import { TextField } from "../components/TextField";
import { formProblem, generalMessage } from "../lib/form-errors";
import { asNumber } from "../observations/TargetFields";
import { trpc } from "../trpc";
import { useSaveSettings } from "./useSaveSettings";

type Settings = { minimumPluginVersion: string | null; staleInProgressHours: number; staleAssignedHours: number; heartbeatTimeoutSeconds: number };

/** What observatories must run and when observations count as stuck; the server applies changes at once. */
export function ServerSettingsCard() {
  const settings = useQuery(trpc.admin.settings.queryOptions(undefined, { staleTime: 0 }));
  return (
    <QueryState query={settings} loading="Loading settings" error="Could not load settings">
      {(data) => <SettingsForm settings={data} />}
    </QueryState>
  );
}

function SettingsForm({ settings }: { settings: Settings }) {
  const [minimum, setMinimum] = useState(settings.minimumPluginVersion ?? "");
  const [inProgress, setInProgress] = useState(String(settings.staleInProgressHours));
  const [assigned, setAssigned] = useState(String(settings.staleAssignedHours));
  const [heartbeat, setHeartbeat] = useState(String(settings.heartbeatTimeoutSeconds));
  const { save, saved, setSaved } = useSaveSettings();
  const problem = formProblem(save.error, { prefix: "update" });
  const general = generalMessage(problem, ["minimumPluginVersion", "staleInProgressHours", "staleAssignedHours", "heartbeatTimeoutSeconds"]);
  return (
    <form
      noValidate
      onSubmit={(event) => {
        event.preventDefault();
        setSaved(false);
        save.mutate({
          update: {
            minimumPluginVersion: minimum.trim() || null,
            staleInProgressHours: asNumber(inProgress),
            staleAssignedHours: asNumber(assigned),
            heartbeatTimeoutSeconds: asNumber(heartbeat),
          },
        });
      }}
    >
      <Card
        title="Observatories and observations"
        footer={
          <Button type="submit" busy={save.isPending}>
            Save settings
          </Button>
        }
      >
        <FormNotices error={general} success={saved ? "Settings saved." : null} />
        <div className="grid gap-4 sm:grid-cols-2">
          <TextField
            label="Minimum plugin version"
            hint="Older plugins get update_required and no work. Empty: no minimum. Compared part by part (3.10.0.0 > 3.8.0.0)."
            placeholder="3.8.0.0"
            value={minimum}
            onChange={(e) => setMinimum(e.target.value)}
            error={problem?.fieldErrors.minimumPluginVersion}
          />
          <TextField
            label="Heartbeat timeout (seconds)"
            hint="A plugin silent this long is offline."
            inputMode="numeric"
            value={heartbeat}
            onChange={(e) => setHeartbeat(e.target.value)}
            error={problem?.fieldErrors.heartbeatTimeoutSeconds}
          />
          <TextField
            label="Stuck in progress after (hours)"
            inputMode="numeric"
            value={inProgress}
            onChange={(e) => setInProgress(e.target.value)}
            error={problem?.fieldErrors.staleInProgressHours}
          />
          <TextField
            label="Stuck assigned after (hours)"
            inputMode="numeric"
            value={assigned}
            onChange={(e) => setAssigned(e.target.value)}
            error={problem?.fieldErrors.staleAssignedHours}
          />
        </div>
      </Card>
    </form>
  );
}
