import type { TextareaHTMLAttributes } from "react";
import { Field, type FieldProps } from "./Field";

export interface TextAreaFieldProps extends Omit<TextareaHTMLAttributes<HTMLTextAreaElement>, "id">, FieldProps {}

export function TextAreaField({ label, error, hint, className, rows = 3, ...textarea }: TextAreaFieldProps) {
  return (
    <Field label={label} error={error} hint={hint} className={className}>
      {(control) => <textarea {...control} rows={rows} className={`${control.className} px-3 py-2 placeholder:text-slate-400`} {...textarea} />}
    </Field>
  );
}
