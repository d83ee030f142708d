import type { ReactNode } from "react";

/** A white, scrollable frame for data tables: wide tables scroll inside it, never the page. */
export function TableFrame({ label, children, caption }: { label: string; children: ReactNode; caption?: ReactNode }) {
  return (
    <div className="relative overflow-x-auto rounded-lg bg-white shadow-sm ring-1 ring-slate-200">
      <table aria-label={label} className="min-w-full divide-y divide-slate-200 text-sm">
        {caption ? <caption className="sr-only">{caption}</caption> : null}
        {children}
      </table>
    </div>
  );
}

export const th = "px-4 py-3 text-left text-xs font-semibold tracking-wide text-slate-500 uppercase whitespace-nowrap";
export const thCenter = "px-3 py-3 text-center text-xs font-semibold tracking-wide text-slate-500 uppercase";
export const td = "px-4 py-3 align-middle text-slate-700";
export const tdCenter = "px-3 py-3 text-center align-middle";
export const tbody = "divide-y divide-slate-100";
export const checkbox = "size-4 rounded border-slate-300 accent-indigo-600 disabled:cursor-not-allowed disabled:opacity-50";
