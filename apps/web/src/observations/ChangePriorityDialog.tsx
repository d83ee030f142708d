import { useState } from "react";
import { FormDialog } from "../components/FormDialog";
import { SelectField } from "../components/SelectField";

const priorities = Array.from({ length: 10 }, (_, index) => 10 - index);

/** A priority from 10 (goes first) to 1; shared by an observation's page and the table's bulk bar. */
export function PriorityField({ value, onChange, hint }: { value: number; onChange(value: number): void; hint?: string }) {
  return (
    <SelectField
      label="Priority"
      value={String(value)}
      hint={hint ?? "10 goes first; among equals, the oldest."}
      onChange={(event) => onChange(Number(event.target.value))}
    >
      {priorities.map((priority) => (
        <option key={priority} value={priority}>
          {priority}
          {priority === 10 ? " (highest)" : priority === 1 ? " (lowest)" : ""}
        </option>
      ))}
    </SelectField>
  );
}

/** Asks for a new priority; the caller sends it (one observation, or a selection). */
export function ChangePriorityDialog({
  title,
  description,
  initial,
  busy,
  error,
  onSubmit,
  onClose,
}: {
  title: string;
  description: string;
  initial: number;
  busy: boolean;
  error: string | null;
  onSubmit(priority: number): void;
  onClose(): void;
}) {
  const [priority, setPriority] = useState(initial);
  return (
    <FormDialog
      title={title}
      description={description}
      submitLabel="Set priority"
      busy={busy}
      error={error}
      onSubmit={() => onSubmit(priority)}
      onClose={onClose}
    >
      <PriorityField value={priority} onChange={setPriority} />
    </FormDialog>
  );
}
