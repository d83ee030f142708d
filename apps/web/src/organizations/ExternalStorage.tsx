import { useState } from "react";
import { useMutation } from "@tanstack/react-query";
import { storageDestinationProblems, storageSettingKeys } from "@meridian/rules/storage";
import { Cloud, HardDrive, KeyRound, Pencil, Plus } from "lucide-react";
import { Alert } from "../components/Alert";
import { Badge } from "../components/Badge";
import { Button } from "../components/Button";
import { CheckboxField } from "../components/CheckboxField";
import { ConfirmDialog } from "../components/ConfirmDialog";
import { EmptyState } from "../components/EmptyState";
import { FormDialog } from "../components/FormDialog";
import { RemoveButton } from "../components/RemoveButton";
import { SelectField } from "../components/SelectField";
import { TextField } from "../components/TextField";
import { formProblem } from "../lib/form-errors";
import { useConfirmedMutation } from "../lib/useConfirmedMutation";
import { trpc } from "../trpc";
import { secretLabel, settingLabel, storageKindList, storageKinds } from "./labels";
import { useDestinationTest } from "./DestinationTest";
import { refreshOrganizationData } from "./refresh";
import type { ExternalStorageDestination, ExternalStorageKind, Organization, RouterInputs } from "./types";

type DestinationInput = NonNullable<RouterInputs["organizations"]["update"]["update"]["externalStorage"]>[number];
type SettingValue = string | number | boolean | null;

/** Other destinations are sent back by id only: the server keeps their settings and secrets. */
const keep = (destination: ExternalStorageDestination): DestinationInput => ({ id: destination.id, kind: destination.kind, label: destination.label });

const formatSetting = (value: unknown) => (value === null || value === undefined || value === "" ? "—" : String(value));

export function ExternalStorage({ organization }: { organization: Organization }) {
  const canEdit = organization.myRole === "owner" || organization.myPermissions.can_manage_storage;
  const [editing, setEditing] = useState<ExternalStorageDestination | "new" | null>(null);
  const [notice, setNotice] = useState<string | null>(null);
  const destinations = organization.externalStorage;
  const removal = useConfirmedMutation({
    mutation: trpc.organizations.update.mutationOptions(),
    variables: (removing: ExternalStorageDestination) => ({
      id: organization.id,
      update: { externalStorage: destinations.filter((item) => item.id !== removing.id).map(keep) },
    }),
    onSuccess: (removed) => {
      setNotice(`“${removed.label}” was removed.`);
      return refreshOrganizationData();
    },
  });

  return (
    <section aria-labelledby="storage-title" className="flex flex-col gap-4">
      <div className="flex flex-wrap items-end justify-between gap-3">
        <div>
          <h2 id="storage-title" className="text-base font-semibold text-slate-900">
            External storage
          </h2>
          <p className="mt-1 text-sm text-slate-500">Where observation files can be copied. Secrets are stored encrypted and are never shown again.</p>
        </div>
        {canEdit ? (
          <Button
            icon={<Plus aria-hidden="true" className="size-4" />}
            onClick={() => {
              setNotice(null);
              setEditing("new");
            }}
          >
            Add destination
          </Button>
        ) : null}
      </div>
      {!canEdit ? <Alert tone="info">Only the owner and members who may manage storage can change these destinations.</Alert> : null}
      {notice ? <Alert tone="success">{notice}</Alert> : null}

      {destinations.length === 0 ? (
        <EmptyState icon={HardDrive} title="No storage destinations">
          Add an S3 bucket, a Google Drive folder or a Dropbox folder to keep copies of your data.
        </EmptyState>
      ) : (
        <ul aria-label="Storage destinations" className="grid gap-4 md:grid-cols-2">
          {destinations.map((destination) => (
            <DestinationCard
              key={destination.id}
              organizationId={organization.id}
              destination={destination}
              canEdit={canEdit}
              onEdit={() => {
                setNotice(null);
                setEditing(destination);
              }}
              onRemove={() => removal.ask(destination)}
            />
          ))}
        </ul>
      )}

      <ConfirmDialog {...removal.dialog} title="Remove storage destination?" confirmLabel="Remove destination">
        <strong className="font-semibold text-slate-900">{removal.target?.label}</strong> and its stored secrets will be deleted. Nothing is deleted from the
        storage itself.
      </ConfirmDialog>

      {editing ? (
        <DestinationDialog
          organization={organization}
          destination={editing === "new" ? null : editing}
          onClose={() => setEditing(null)}
          onSaved={(label) => {
            setEditing(null);
            setNotice(`“${label}” was saved.`);
          }}
        />
      ) : null}
    </section>
  );
}

function DestinationCard({
  organizationId,
  destination,
  canEdit,
  onEdit,
  onRemove,
}: {
  organizationId: string;
  destination: ExternalStorageDestination;
  canEdit: boolean;
  onEdit(): void;
  onRemove(): void;
}) {
  const test = useDestinationTest(organizationId, destination);
  const info = storageKinds[destination.kind];
  const settings = Object.entries(destination.settings);
  const secretKeys = [...new Set([...info.secrets.map((field) => field.key), ...destination.configuredSecrets])];
  return (
    <li aria-label={destination.label} className="flex flex-col rounded-lg bg-white shadow-sm ring-1 ring-slate-200">
      <div className="flex items-start gap-3 px-4 pt-4 sm:px-5">
        <span className="flex size-9 shrink-0 items-center justify-center rounded-md bg-sky-50 text-sky-700">
          <Cloud aria-hidden="true" className="size-5" />
        </span>
        <div className="min-w-0 flex-1">
          <h3 className="truncate text-sm font-semibold text-slate-900">{destination.label}</h3>
          <p className="text-xs text-slate-500">{info.label}</p>
        </div>
      </div>
      <dl className="mt-3 grid grid-cols-[auto_1fr] gap-x-4 gap-y-1 px-4 text-sm sm:px-5">
        {settings.length === 0 ? <dd className="col-span-2 text-slate-400">No settings</dd> : null}
        {settings.map(([key, value]) => (
          <div key={key} className="contents">
            <dt className="text-slate-500">{settingLabel(destination.kind, key)}</dt>
            <dd className="min-w-0 truncate font-mono text-xs leading-5 text-slate-800">{formatSetting(value)}</dd>
          </div>
        ))}
      </dl>
      <div className="mt-3 px-4 sm:px-5">
        <p className="text-xs font-semibold tracking-wide text-slate-400 uppercase">Secrets</p>
        <ul aria-label={`Secrets of ${destination.label}`} className="mt-1 flex flex-wrap gap-1.5">
          {secretKeys.map((key) => {
            const configured = destination.configuredSecrets.includes(key);
            return (
              <li key={key}>
                <Badge tone={configured ? "emerald" : "slate"}>
                  <KeyRound aria-hidden="true" className="size-3" />
                  {secretLabel(destination.kind, key)}: {configured ? "configured" : "not set"}
                </Badge>
              </li>
            );
          })}
        </ul>
      </div>
      {canEdit ? test.outcome : null}
      {canEdit ? (
        <div className="mt-4 flex justify-end gap-2 border-t border-slate-100 px-3 py-2">
          {test.button}
          <Button variant="ghost" aria-label={`Edit ${destination.label}`} icon={<Pencil aria-hidden="true" className="size-4" />} onClick={onEdit}>
            Edit
          </Button>
          <RemoveButton name={destination.label} onClick={onRemove} />
        </div>
      ) : (
        <div className="pb-4" />
      )}
    </li>
  );
}

function initialSettings(destination: ExternalStorageDestination | null): Record<string, string> {
  const values: Record<string, string> = {};
  for (const [key, value] of Object.entries(destination?.settings ?? {})) if (value !== null && value !== undefined) values[key] = String(value);
  return values;
}

/**
 * The failure of a save, keyed by the dialog's fields: the input's checks name the destination's
 * fields under `update.externalStorage.N` (tRPC nests the body), the rules on the stored list
 * (a new destination or kind needs settings and secrets, an unknown id) under `externalStorage.N`.
 */
function destinationProblem(error: unknown, index: number) {
  const nested = formProblem(error, { prefix: `update.externalStorage.${index}` });
  if (!nested) return null;
  const plain = formProblem(error, { prefix: `externalStorage.${index}` });
  return { ...nested, fieldErrors: { ...plain?.fieldErrors, ...nested.fieldErrors } };
}

function DestinationDialog({
  organization,
  destination,
  onClose,
  onSaved,
}: {
  organization: Organization;
  destination: ExternalStorageDestination | null;
  onClose(): void;
  onSaved(label: string): void;
}) {
  const [kind, setKind] = useState<ExternalStorageKind>(destination?.kind ?? "s3");
  const [label, setLabel] = useState(destination?.label ?? "");
  const [settings, setSettings] = useState<Record<string, string>>(() => initialSettings(destination));
  // Write-only: always start empty; stored values never reach the browser.
  const [secrets, setSecrets] = useState<Record<string, string>>({});
  const [local, setLocal] = useState<Record<string, string>>({});
  const save = useMutation(
    trpc.organizations.update.mutationOptions({
      onSuccess: async () => {
        await refreshOrganizationData();
        onSaved(label.trim());
      },
    }),
  );

  const info = storageKinds[kind];
  const index = destination ? organization.externalStorage.findIndex((item) => item.id === destination.id) : organization.externalStorage.length;
  const problem = destinationProblem(save.error, index);
  const errors: Record<string, string | undefined> = { ...problem?.fieldErrors, ...local };
  const sameKind = destination?.kind === kind;
  const stored = sameKind ? destination.configuredSecrets : [];
  const shownFields = ["label", "kind", ...info.settings.map((field) => `settings.${field.key}`), ...info.secrets.map((field) => `secrets.${field.key}`)];
  const requiredSettings = new Set(storageSettingKeys(kind).flatMap((setting) => (setting.required ? [setting.key] : [])));

  const submit = () => {
    // The settings of this kind only (a key of another kind, or of an older version, is refused).
    const nextSettings: Record<string, SettingValue> = {};
    for (const field of info.settings) {
      const value = settings[field.key]?.trim() ?? "";
      if (value) nextSettings[field.key] = field.boolean ? value === "true" : value;
    }
    const typed = Object.fromEntries(info.secrets.flatMap((field) => (secrets[field.key] ? [[field.key, secrets[field.key]]] : [])));
    // A new destination or kind needs every secret; sending any replaces every stored one, so all are needed then too.
    const sendsSecrets = !sameKind || Object.keys(typed).length > 0;
    const found = storageDestinationProblems({ kind, settings: nextSettings, secrets: sendsSecrets ? typed : undefined });
    if (!label.trim()) found.label = "Give the destination a name.";
    for (const { key } of info.secrets)
      if (sendsSecrets && stored.includes(key) && !typed[key]) found[`secrets.${key}`] = "Enter this secret again: changing one secret replaces all of them.";
    setLocal(found);
    if (Object.keys(found).length > 0) return save.reset();

    // As the rules above check it: the kind's own settings and, when sent, all of its secrets.
    const item = {
      ...(destination ? { id: destination.id } : {}),
      kind,
      label,
      settings: nextSettings,
      ...(sendsSecrets ? { secrets: typed } : {}),
    } as DestinationInput;
    const list = destination
      ? organization.externalStorage.map((existing) => (existing.id === destination.id ? item : keep(existing)))
      : [...organization.externalStorage.map(keep), item];
    save.mutate({ id: organization.id, update: { externalStorage: list } });
  };

  return (
    <FormDialog
      title={destination ? `Edit ${destination.label}` : "Add storage destination"}
      description="Settings are visible to every member. Secrets are write-only: they are stored encrypted and never shown again."
      submitLabel={destination ? "Save destination" : "Add destination"}
      busy={save.isPending}
      error={problem && !shownFields.some((field) => problem.fieldErrors[field]) ? problem.message : null}
      wide
      onSubmit={submit}
      onClose={onClose}
    >
      <div className="grid gap-4 sm:grid-cols-2">
        <SelectField
          label="Kind"
          value={kind}
          onChange={(e) => setKind(e.target.value as ExternalStorageKind)}
          error={errors.kind}
          hint={destination && !sameKind ? "Changing the kind deletes the stored secrets." : undefined}
        >
          {storageKindList.map((value) => (
            <option key={value} value={value}>
              {storageKinds[value].label}
            </option>
          ))}
        </SelectField>
        <TextField
          label="Label"
          required
          maxLength={100}
          placeholder="e.g. Archive bucket"
          value={label}
          onChange={(e) => setLabel(e.target.value)}
          error={errors.label}
        />
      </div>
      <fieldset className="grid gap-4 sm:grid-cols-2">
        <legend className="mb-2 text-xs font-semibold tracking-wide text-slate-400 uppercase">Settings</legend>
        {info.settings.map((field) =>
          field.boolean ? (
            <div key={`${kind}-${field.key}`} className="sm:col-span-2">
              <CheckboxField
                label={field.label}
                description={field.description}
                checked={settings[field.key] === "true"}
                onChange={(checked) => setSettings((current) => ({ ...current, [field.key]: checked ? "true" : "" }))}
              />
            </div>
          ) : (
            <TextField
              key={`${kind}-${field.key}`}
              label={field.label}
              placeholder={field.placeholder}
              required={requiredSettings.has(field.key)}
              maxLength={2000}
              value={settings[field.key] ?? ""}
              onChange={(e) => setSettings((current) => ({ ...current, [field.key]: e.target.value }))}
              error={errors[`settings.${field.key}`]}
            />
          ),
        )}
      </fieldset>
      <fieldset className="grid gap-4 sm:grid-cols-2">
        <legend className="mb-2 text-xs font-semibold tracking-wide text-slate-400 uppercase">Secrets</legend>
        {info.secrets.map((field) => {
          const configured = stored.includes(field.key);
          return (
            <TextField
              key={`${kind}-${field.key}`}
              label={field.label}
              type="password"
              autoComplete="new-password"
              spellCheck={false}
              placeholder={configured ? "•••••••• (stored)" : ""}
              value={secrets[field.key] ?? ""}
              onChange={(e) => setSecrets((current) => ({ ...current, [field.key]: e.target.value }))}
              error={errors[`secrets.${field.key}`]}
              required={!sameKind}
              hint={configured ? "Stored. Leave blank to keep it." : sameKind ? "Not set." : undefined}
            />
          );
        })}
      </fieldset>
    </FormDialog>
  );
}
