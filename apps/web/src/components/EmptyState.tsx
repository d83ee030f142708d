import type { ReactNode } from "react";
import type { LucideIcon } from "lucide-react";

/** An empty list: what it would hold, what to do next and, in `actions`, the buttons or links that do it. */
export function EmptyState({ icon: Icon, title, children, actions }: { icon: LucideIcon; title: string; children?: ReactNode; actions?: ReactNode }) {
  return (
    <div className="flex flex-col items-center rounded-lg border-2 border-dashed border-slate-200 bg-white px-6 py-12 text-center">
      <span className="flex size-12 items-center justify-center rounded-full bg-indigo-50 text-indigo-600">
        <Icon aria-hidden="true" className="size-6" />
      </span>
      <h2 className="mt-4 text-base font-semibold text-slate-900">{title}</h2>
      {children ? <div className="mt-1 max-w-md text-sm text-slate-500">{children}</div> : null}
      {actions ? <div className="mt-4 flex flex-wrap justify-center gap-2">{actions}</div> : null}
    </div>
  );
}
