import { Orbit } from "lucide-react";

export function Logo({ className = "" }: { className?: string }) {
  return (
    <span className={`inline-flex items-center gap-2 font-semibold tracking-tight text-slate-900 ${className}`}>
      <span className="flex size-8 items-center justify-center rounded-lg bg-indigo-600 text-white">
        <Orbit aria-hidden="true" className="size-5" />
      </span>
      <span className="text-lg">Meridian</span>
    </span>
  );
}
