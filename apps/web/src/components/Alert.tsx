import type { ReactNode } from "react";
import { CircleAlert, CircleCheck, Info } from "lucide-react";

type Tone = "error" | "success" | "info";

const tones: Record<Tone, { box: string; Icon: typeof Info }> = {
  error: { box: "bg-red-50 text-red-800 ring-red-200", Icon: CircleAlert },
  success: { box: "bg-emerald-50 text-emerald-800 ring-emerald-200", Icon: CircleCheck },
  info: { box: "bg-sky-50 text-sky-800 ring-sky-200", Icon: Info },
};

export function Alert({ tone = "info", children, className = "" }: { tone?: Tone; children: ReactNode; className?: string }) {
  const { box, Icon } = tones[tone];
  return (
    <div role={tone === "error" ? "alert" : "status"} className={`flex gap-2 rounded-md p-3 text-sm ring-1 ring-inset ${box} ${className}`}>
      <Icon aria-hidden="true" className="mt-0.5 size-4 shrink-0" />
      <div className="min-w-0">{children}</div>
    </div>
  );
}
