import type { ReactNode, SelectHTMLAttributes } from "react";
import { Field, type FieldProps } from "./Field";

export interface SelectFieldProps extends Omit<SelectHTMLAttributes<HTMLSelectElement>, "id">, FieldProps {
  children: ReactNode;
}

export function SelectField({ label, error, hint, className, children, ...select }: SelectFieldProps) {
  return (
    <Field label={label} error={error} hint={hint} className={className}>
      {(control) => (
        <select {...control} className={`${control.className} py-2 pr-8 pl-3 disabled:bg-slate-50 disabled:text-slate-500`} {...select}>
          {children}
        </select>
      )}
    </Field>
  );
}
