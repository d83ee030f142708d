import type { ReactNode } from "react";

/**
 * Rows of data in a white frame; wide ones scroll inside it, never the page. `columns` are the
 * header cells. With `stackOnPhone` each row becomes a card on small screens (see index.css), for
 * tables too wide to scroll usefully, such as permission grids.
 */
export function DataTable({
  label,
  columns,
  stackOnPhone = false,
  children,
}: {
  label: string;
  columns: ReactNode;
  stackOnPhone?: boolean;
  children: ReactNode;
}) {
  return (
    <div className="relative overflow-x-auto rounded-lg bg-white shadow-sm ring-1 ring-slate-200">
      <table aria-label={label} className={`min-w-full divide-y divide-slate-200 text-sm ${stackOnPhone ? "stack-table" : ""}`}>
        <thead className="bg-slate-50">
          <tr>{columns}</tr>
        </thead>
        <tbody className="divide-y divide-slate-100">{children}</tbody>
      </table>
    </div>
  );
}

const th = "px-4 py-3 text-left text-xs font-semibold tracking-wide text-slate-500 uppercase whitespace-nowrap";
export const td = "px-4 py-3 align-middle text-slate-700";

export function Th({ className, children }: { className?: string; children: ReactNode }) {
  return (
    <th scope="col" className={className ? `${th} ${className}` : th}>
      {children}
    </th>
  );
}

/** A narrow, centred column heading (a checkbox column); `title` explains it on hover. */
export function CenteredTh({ title, children }: { title: string; children: ReactNode }) {
  return (
    <th scope="col" className="px-3 py-3 text-center text-xs font-semibold tracking-wide text-slate-500 uppercase" title={title}>
      {children}
    </th>
  );
}

/** A header row of plain headings, then the actions column. */
export function HeadingsWithActions({ names }: { names: string[] }) {
  return (
    <>
      {names.map((name) => (
        <Th key={name}>{name}</Th>
      ))}
      <ActionsTh />
    </>
  );
}

export function ActionsTh() {
  return (
    <Th>
      <span className="sr-only">Actions</span>
    </Th>
  );
}

/** The row's buttons, at its right end. */
export function ActionsCell({ children }: { children: ReactNode }) {
  return <td className={`${td} text-right whitespace-nowrap`}>{children}</td>;
}

/** The only row when there are no rows of data, saying so. */
export function EmptyRow({ columns, children }: { columns: number; children: ReactNode }) {
  return (
    <tr>
      <td colSpan={columns} className={`${td} text-center text-slate-500`}>
        {children}
      </td>
    </tr>
  );
}

/**
 * A cell holding one checkbox, named by `label` since the column heading alone does not say whose
 * it is. `column` is shown beside the box when the table stacks on a phone.
 */
export function CheckboxCell({
  label,
  column,
  title,
  checked,
  disabled,
  onChange,
}: {
  label: string;
  column?: string;
  title: string;
  checked: boolean;
  disabled: boolean;
  onChange(checked: boolean): void;
}) {
  return (
    <td className="px-3 py-3 text-center align-middle">
      <label className="inline-flex items-center gap-1.5">
        <input
          type="checkbox"
          className="size-4 rounded border-slate-300 accent-indigo-600 disabled:cursor-not-allowed disabled:opacity-50"
          aria-label={label}
          title={title}
          checked={checked}
          disabled={disabled}
          onChange={(event) => onChange(event.target.checked)}
        />
        {column ? <span className="text-xs text-slate-600 sm:hidden">{column}</span> : null}
      </label>
    </td>
  );
}
