import { useState } from "react";
import { useMutation } from "@tanstack/react-query";
import { CheckboxField } from "../components/CheckboxField";
import { FormDialog } from "../components/FormDialog";
import { TextField } from "../components/TextField";
import { formProblem, generalMessage } from "../lib/form-errors";
import { trpc } from "../trpc";
import { LocationFieldset, locationDraftOf, locationErrorPaths, checkObservatoryFields } from "./LocationFields";
import type { Observatory } from "./permissions";
import { refreshObservatories } from "./refresh";
import { parseTimeDraft, timeDraftOf, timeErrorPaths, TimeFieldset } from "./TimeFields";

/** Name, location, dispatch, time zone and timing of an observatory (can_admin); each change lands in its history. */
export function EditObservatoryDialog({ observatory, onClose, onSaved }: { observatory: Observatory; onClose(): void; onSaved(): void }) {
  const [name, setName] = useState(observatory.name);
  const [dispatchEnabled, setDispatchEnabled] = useState(observatory.dispatchEnabled);
  const [location, setLocation] = useState(locationDraftOf(observatory.location));
  const [time, setTime] = useState(timeDraftOf(observatory));
  const [local, setLocal] = useState<Record<string, string>>({});
  const save = useMutation(
    trpc.observatories.update.mutationOptions({
      onSuccess: async () => {
        await refreshObservatories();
        onSaved();
      },
    }),
  );
  const problem = formProblem(save.error, { prefix: "update" });
  const errors: Record<string, string | undefined> = { ...problem?.fieldErrors, ...local };

  const submit = () => {
    const parsed = checkObservatoryFields(name, location);
    const timing = parseTimeDraft(time, observatory);
    setLocal({ ...parsed.errors, ...timing.errors });
    if (Object.keys(parsed.errors).length + Object.keys(timing.errors).length > 0) return save.reset();
    save.mutate({ id: observatory.id, update: { name, dispatchEnabled, location: parsed.location, ...timing.update } });
  };

  return (
    <FormDialog
      title="Observatory settings"
      description="Changes are recorded in the observatory's history with their old and new values."
      submitLabel="Save settings"
      busy={save.isPending}
      error={generalMessage(problem, ["name", ...locationErrorPaths, ...timeErrorPaths])}
      onSubmit={submit}
      onClose={onClose}
    >
      <TextField label="Observatory name" name="name" required maxLength={200} value={name} onChange={(e) => setName(e.target.value)} error={errors.name} />
      <CheckboxField
        label="Dispatch observations"
        description="When off, observations wait in the queue instead of being sent to the telescope."
        checked={dispatchEnabled}
        onChange={setDispatchEnabled}
      />
      <LocationFieldset draft={location} onChange={setLocation} errors={errors} />
      <TimeFieldset draft={time} onChange={setTime} errors={errors} observatory={observatory} />
    </FormDialog>
  );
}
