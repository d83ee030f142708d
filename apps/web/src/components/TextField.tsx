import type { InputHTMLAttributes } from "react";
import { Field, type FieldProps } from "./Field";

export interface TextFieldProps extends Omit<InputHTMLAttributes<HTMLInputElement>, "id">, FieldProps {}

export function TextField({ label, error, hint, className, ...input }: TextFieldProps) {
  return (
    <Field label={label} error={error} hint={hint} className={className}>
      {(control) => (
        <input
          {...control}
          className={`${control.className} px-3 py-2 placeholder:text-slate-400 disabled:bg-slate-50 disabled:text-slate-500 read-only:bg-slate-50`}
          {...input}
        />
      )}
    </Field>
  );
}
