import { useState } from "react";
import { useMutation } from "@tanstack/react-query";
import { FormDialog } from "../components/FormDialog";
import { SelectField } from "../components/SelectField";
import { TextAreaField } from "../components/TextAreaField";
import { TextField } from "../components/TextField";
import { summarizeError } from "../lib/errors";
import { formProblem, generalMessage } from "../lib/form-errors";
import { trpc } from "../trpc";
import { deliveryInfo, deliveryTypes, plural, scopeLabels, severities, severityInfo, targetKinds } from "./labels";
import { refreshAnnouncements } from "./refresh";
import { localInputToIso } from "./schedule";
import { noTargets, targetsInput, type TargetChoices } from "./targets";
import { TargetPicker } from "./TargetPicker";
import type { Announcement, AnnouncementSeverity, DeliveryType, ScopedKind } from "./types";
import { useRecipientPreview } from "./useRecipientPreview";

/** Where a new announcement goes: the whole system (targets chosen in the form) or one scope's members. */
export type AnnouncementDestination = { scope: "system" } | { scope: ScopedKind; scopeId: string; scopeName: string };

/** The zone datetime-local inputs are read in: the browser's. */
const LOCAL_ZONE = Intl.DateTimeFormat().resolvedOptions().timeZone;

const contentFields = ["title", "message", "severity", "deliveryType", "startsAt", "expiresAt"] as const;

/** All messages about one target kind (each unknown id has its own path: `targets.users.ids.3`). */
function targetErrors(fieldErrors: Record<string, string>, kind: string): string | undefined {
  const messages = Object.entries(fieldErrors)
    .filter(([path]) => path === `targets.${kind}` || path.startsWith(`targets.${kind}.`))
    .map(([, message]) => message);
  return messages.length > 0 ? messages.join(" ") : undefined;
}

/**
 * The failure of a create call, keyed by the form's fields. Scoped input nests the content under
 * `announcement`, so the input's own checks name `announcement.title`, while the schedule rules
 * name `expiresAt` plainly: both land at the field. Targets reaching nobody belong to the pickers.
 */
function createProblem(error: unknown, system: boolean) {
  if (system) return formProblem(error, { codeFields: { NO_RECIPIENTS: "targets" } });
  const nested = formProblem(error, { prefix: "announcement" });
  if (!nested) return null;
  const plain = summarizeError(error).fieldErrors;
  const fieldErrors = { ...nested.fieldErrors };
  for (const field of contentFields) if (plain[field] && !fieldErrors[field]) fieldErrors[field] = plain[field];
  return { ...nested, fieldErrors };
}

/**
 * The form for a new announcement, shared by every scope: content, severity, schedule and
 * delivery; for system announcements also who receives it. The recipients are counted before
 * sending, and the submit button says how many it will reach.
 */
export function CreateAnnouncementDialog({
  destination,
  onClose,
  onCreated,
}: {
  destination: AnnouncementDestination;
  onClose(): void;
  onCreated(announcement: Announcement): void;
}) {
  const system = destination.scope === "system";
  const [title, setTitle] = useState("");
  const [message, setMessage] = useState("");
  const [severity, setSeverity] = useState<AnnouncementSeverity>("info");
  const [deliveryType, setDeliveryType] = useState<DeliveryType>("message");
  const [startsAt, setStartsAt] = useState("");
  const [expiresAt, setExpiresAt] = useState("");
  const [choices, setChoices] = useState<TargetChoices>(noTargets);
  const [local, setLocal] = useState<Record<string, string>>({});
  const targets = targetsInput(choices);
  const preview = useRecipientPreview(
    destination.scope === "system" ? { scope: "system" } : { scope: destination.scope, scopeId: destination.scopeId },
    targets,
  );

  const created = async (announcement: Announcement) => {
    await refreshAnnouncements();
    onCreated(announcement);
  };
  const createSystem = useMutation(trpc.announcements.createSystem.mutationOptions({ onSuccess: created }));
  const createScoped = useMutation(trpc.announcements.createScoped.mutationOptions({ onSuccess: created }));
  const create = system ? createSystem : createScoped;
  const problem = createProblem(create.error, system);
  const serverErrors = problem?.fieldErrors ?? {};
  // Unknown ids are refused by the preview too: show them before the user presses Send.
  const previewErrors = summarizeError(preview.error).fieldErrors;
  const errors: Record<string, string | undefined> = { ...serverErrors, ...local };
  const targetError = (kind: string) => targetErrors(serverErrors, kind) ?? (preview.error ? targetErrors(previewErrors, kind) : undefined);

  const submit = () => {
    const found: Record<string, string> = {};
    if (!title.trim()) found.title = "Give the announcement a title.";
    if (!message.trim()) found.message = "Write the message.";
    const starts = localInputToIso(startsAt);
    const expires = localInputToIso(expiresAt);
    if (starts === undefined) found.startsAt = "Enter a date and time, or leave it empty.";
    if (expires === undefined) found.expiresAt = "Enter a date and time, or leave it empty.";
    setLocal(found);
    if (Object.keys(found).length > 0) return create.reset();
    const content = { title, message, severity, deliveryType, ...(starts ? { startsAt: starts } : {}), ...(expires ? { expiresAt: expires } : {}) };
    if (destination.scope === "system") createSystem.mutate({ ...content, targets });
    else createScoped.mutate({ scope: destination.scope, scopeId: destination.scopeId, announcement: content });
  };

  const shownFields = [...contentFields, ...Object.keys(serverErrors).filter((path) => path.startsWith("targets"))];
  const countText = preview.noTargets
    ? "Choose who receives it."
    : preview.count !== null
      ? `It will reach ${plural(preview.count, "recipient")}.`
      : preview.counting
        ? "Counting recipients…"
        : preview.error
          ? `Could not count the recipients: ${summarizeError(preview.error).message}`
          : "";

  return (
    <FormDialog
      title={system ? "New system announcement" : `New ${scopeLabels[destination.scope].toLowerCase()} announcement`}
      description={
        system
          ? "Users must acknowledge a system announcement before they can go on using Meridian."
          : `For everyone ${destination.scope === "observatory" ? "with access to" : "in"} ${destination.scopeName}. They see it until they acknowledge it.`
      }
      submitLabel={preview.count !== null ? `Send to ${plural(preview.count, "recipient")}` : "Send announcement"}
      busy={create.isPending}
      error={generalMessage(problem, shownFields)}
      wide
      onSubmit={submit}
      onClose={onClose}
    >
      <TextField
        label="Title"
        required
        maxLength={200}
        placeholder="e.g. Dome maintenance on Saturday"
        value={title}
        onChange={(e) => setTitle(e.target.value)}
        error={errors.title}
      />
      <TextAreaField label="Message" required rows={5} maxLength={10_000} value={message} onChange={(e) => setMessage(e.target.value)} error={errors.message} />
      <div className="grid gap-4 sm:grid-cols-2">
        <SelectField label="Severity" value={severity} onChange={(e) => setSeverity(e.target.value as AnnouncementSeverity)} error={errors.severity}>
          {severities.map((value) => (
            <option key={value} value={value}>
              {severityInfo[value].label}
            </option>
          ))}
        </SelectField>
        <SelectField
          label="Delivery"
          value={deliveryType}
          onChange={(e) => setDeliveryType(e.target.value as DeliveryType)}
          error={errors.deliveryType}
          hint={deliveryInfo[deliveryType].description}
        >
          {deliveryTypes.map((value) => (
            <option key={value} value={value}>
              {deliveryInfo[value].label}
            </option>
          ))}
        </SelectField>
        <TextField
          label={`Starts (${LOCAL_ZONE})`}
          type="datetime-local"
          value={startsAt}
          onChange={(e) => setStartsAt(e.target.value)}
          error={errors.startsAt}
          hint={`Optional, in your time zone (${LOCAL_ZONE}). Until then nobody sees it.`}
        />
        <TextField
          label={`Expires (${LOCAL_ZONE})`}
          type="datetime-local"
          value={expiresAt}
          onChange={(e) => setExpiresAt(e.target.value)}
          error={errors.expiresAt}
          hint={`Optional, in your time zone (${LOCAL_ZONE}). Afterwards it is no longer shown.`}
        />
      </div>
      {system ? (
        <fieldset className="min-w-0">
          <legend className="text-sm font-medium text-slate-700">Recipients</legend>
          <p className="text-sm text-slate-500">Choices combine; each user receives it once.</p>
          {errors.targets ? <p className="mt-1 text-sm text-red-600">{errors.targets}</p> : null}
          <div className="mt-2 grid gap-3 sm:grid-cols-2">
            {targetKinds.map((kind) => (
              <TargetPicker
                key={kind}
                kind={kind}
                choice={choices[kind]}
                error={targetError(kind)}
                onChange={(choice) => setChoices((current) => ({ ...current, [kind]: choice }))}
              />
            ))}
          </div>
        </fieldset>
      ) : null}
      <p role="status" aria-live="polite" className="text-sm font-medium text-slate-700">
        {countText}
      </p>
    </FormDialog>
  );
}
