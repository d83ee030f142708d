import type { ReactNode } from "react";
import { Logo } from "./Logo";

/** The signed-out frame: a centred card under the product name. */
export function AuthLayout({ title, subtitle, children, footer }: { title: string; subtitle?: ReactNode; children: ReactNode; footer?: ReactNode }) {
  return (
    <div className="flex min-h-dvh flex-col items-center justify-center bg-slate-50 px-4 py-10">
      <Logo className="mb-8" />
      <main className="w-full max-w-sm">
        <div className="rounded-lg bg-white px-5 py-6 shadow-sm ring-1 ring-slate-200 sm:px-8 sm:py-8">
          <h1 className="text-xl font-semibold tracking-tight text-slate-900">{title}</h1>
          {subtitle ? <p className="mt-1 text-sm text-slate-500">{subtitle}</p> : null}
          <div className="mt-6">{children}</div>
        </div>
        {footer ? <p className="mt-6 text-center text-sm text-slate-500">{footer}</p> : null}
      </main>
    </div>
  );
}
