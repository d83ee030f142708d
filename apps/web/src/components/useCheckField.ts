import { useId, type ChangeEvent, type ReactNode } from "react";

/** What a labelled checkbox or switch takes. */
export interface CheckFieldProps {
  label: ReactNode;
  description?: ReactNode;
  checked: boolean;
  disabled?: boolean;
  onChange(checked: boolean): void;
}

/** The ids and input attributes a checkbox or switch shares: a real checkbox, described by its line of help. */
export function useCheckField({ description, checked, disabled, onChange }: Omit<CheckFieldProps, "label">) {
  const id = useId();
  const descriptionId = description ? `${id}-description` : undefined;
  return {
    descriptionId,
    input: {
      id,
      type: "checkbox",
      checked,
      disabled,
      "aria-describedby": descriptionId,
      onChange: (event: ChangeEvent<HTMLInputElement>) => onChange(event.target.checked),
    },
  };
}
