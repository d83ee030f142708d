import { useRef, useState, type ReactNode } from "react";
import { settingProblem, type ServerSettings, type SettingField } from "@meridian/rules/settings";
import { Link } from "react-router-dom";
import { Alert } from "../components/Alert";
import { Card } from "../components/Card";
import { SaveFooter } from "../components/SaveFooter";
import { TextField } from "../components/TextField";
import { formProblem } from "../lib/form-errors";
import { CronField } from "./CronField";
import { settingFields, settingsText, settingsUpdate, settingValue, type SettingsText } from "./settings-fields";
import { useSaveSettings } from "./useSaveSettings";

/**
 * Every server setting with its help, checked as it is typed by the API's own rules and in its
 * words (`@meridian/rules/settings`), saved as one partial update of what changed; the API's field
 * errors, should it refuse anyway, appear beside their fields.
 */
export function ServerSettingsForm({ settings }: { settings: ServerSettings }) {
  const saved = settingsText(settings);
  const [text, setText] = useState<SettingsText>(saved);
  // What was sent with the last save, so the API's message for a field stays only while the field still says the same.
  const [sent, setSent] = useState<SettingsText | null>(null);
  const [submitted, setSubmitted] = useState(false);
  const { save, saved: wasSaved, setSaved } = useSaveSettings();
  const form = useRef<HTMLFormElement>(null);
  const problem = formProblem(save.error, { prefix: "update" });
  const changed = (field: SettingField) => text[field] !== saved[field];
  const errorOf = (field: SettingField): string | undefined => {
    const own = changed(field) || submitted ? settingProblem(field, settingValue(field, text[field])) : null;
    if (own) return own;
    return sent && sent[field] === text[field] ? problem?.fieldErrors[field] : undefined;
  };
  const unchanged = settingFields.every((field) => !changed(field));
  const fieldErrorShown = settingFields.some((field) => errorOf(field));
  const general = problem && !fieldErrorShown ? problem.message : null;
  const set = (field: SettingField) => (event: { target: { value: string } }) => {
    setSaved(false);
    setText({ ...text, [field]: event.target.value });
  };
  const props = (field: SettingField) => ({ name: field, value: text[field], onChange: set(field), error: errorOf(field) });

  return (
    <form
      ref={form}
      noValidate
      className="flex flex-col gap-6"
      onSubmit={(event) => {
        event.preventDefault();
        setSubmitted(true);
        const invalid = settingFields.find((field) => settingProblem(field, settingValue(field, text[field])));
        if (invalid) {
          form.current?.querySelector<HTMLInputElement>(`[name="${invalid}"]`)?.focus();
          return;
        }
        setSaved(false);
        setSent(text);
        save.mutate({ update: settingsUpdate(saved, text) });
      }}
    >
      <Section id="observatories" title="Observatories" description="What an observatory's plugin must run, and how long it may stay silent.">
        <TextField
          label="Minimum plugin version"
          placeholder="3.8.0.0"
          autoComplete="off"
          hint="Older plugins are told to update (update_required) and get no work. Empty: no minimum. Compared part by part: 3.10.0.0 is newer than 3.8.0.0."
          {...props("minimumPluginVersion")}
        />
        <TextField
          label="Heartbeat timeout (seconds)"
          inputMode="numeric"
          hint="A plugin silent this long is offline, and its assigned observation goes back to pending. 2 to 3,600; 90 by default."
          {...props("heartbeatTimeoutSeconds")}
        />
      </Section>
      <Section
        id="stale"
        title="Stuck observations"
        description="When an observation counts as stuck: its observatory's operators and the administrators are told, and integrity scans report it."
      >
        <TextField
          label="Stale in progress after (hours)"
          inputMode="numeric"
          hint="In progress this long without finishing. 1 to 720; 24 by default."
          {...props("staleInProgressHours")}
        />
        <TextField
          label="Stale assigned after (hours)"
          inputMode="numeric"
          hint="Assigned to an observatory this long without starting. 1 to 720; 48 by default."
          {...props("staleAssignedHours")}
        />
      </Section>
      <Section
        id="scans"
        title="Scheduled integrity scans"
        description={
          <>
            Cron expressions: minute hour day month weekday, in UTC; empty: never. Results appear under{" "}
            <Link to="/admin/integrity" className="font-medium text-indigo-600 underline underline-offset-2 hover:no-underline">
              Database integrity
            </Link>
            .
          </>
        }
      >
        <CronField
          label="Quick scan schedule"
          placeholder="0 3 * * 0"
          help="Observations and projects, 100 documents each. Recommended: weekly, such as 0 3 * * 0."
          {...props("scanSchedule.quick")}
        />
        <CronField
          label="Full scan schedule"
          placeholder="0 4 1 * *"
          help={
            "Every collection, with storage, reference and health checks; administrators are told when it finds critical issues. " +
            "Recommended: monthly, such as 0 4 1 * *."
          }
          {...props("scanSchedule.full")}
        />
      </Section>
      <Section
        id="backups"
        title="Scheduled backups"
        description={
          <>
            Each scheduled backup is read back and verified, then old backups are deleted as below. Backups taken by hand are on{" "}
            <Link to="/admin/backups" className="font-medium text-indigo-600 underline underline-offset-2 hover:no-underline">
              Backup management
            </Link>
            .
          </>
        }
      >
        <CronField
          label="Backup schedule"
          placeholder="0 2 * * *"
          help="A cron expression in UTC, such as 0 2 * * * for every night at 02:00; empty: no scheduled backups."
          className="sm:col-span-2"
          {...props("backupSchedule")}
        />
        <TextField
          label="Keep backups for (days)"
          inputMode="numeric"
          hint="Older backups are deleted after each scheduled backup. 1 to 3,650; 30 by default."
          {...props("backupKeepDays")}
        />
        <TextField
          label="Always keep at least (backups)"
          inputMode="numeric"
          hint="The newest usable backups stay whatever their age, and the newest verified one is never deleted. 0 to 1,000; 3 by default."
          {...props("backupKeepMin")}
        />
      </Section>
      <div className="flex flex-col gap-3 rounded-lg bg-white px-4 py-3 shadow-sm ring-1 ring-slate-200 sm:flex-row sm:items-center sm:justify-end sm:px-6">
        {general ? (
          <Alert tone="error" className="sm:mr-auto">
            {general}
          </Alert>
        ) : null}
        <div className="flex flex-wrap items-center justify-end gap-3">
          <SaveFooter saved={wasSaved} savedText="Settings saved." busy={save.isPending} unchanged={unchanged}>
            Save settings
          </SaveFooter>
        </div>
      </div>
    </form>
  );
}

function Section({ id, title, description, children }: { id: string; title: string; description: ReactNode; children: ReactNode }) {
  return (
    <div id={id} className="scroll-mt-6">
      <Card title={title} description={description}>
        <div className="grid gap-4 sm:grid-cols-2">{children}</div>
      </Card>
    </div>
  );
}
