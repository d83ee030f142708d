import type { ReactNode } from "react";

export function FullPageMessage({ children }: { children: ReactNode }) {
  return <div className="flex min-h-dvh items-center justify-center p-6 text-center text-sm text-slate-600">{children}</div>;
}
