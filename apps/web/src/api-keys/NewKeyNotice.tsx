import { useId, type ReactNode } from "react";
import { KeyRound } from "lucide-react";
import { Button } from "../components/Button";
import { CopyButton } from "../components/CopyButton";

/**
 * The secret exists in this browser only until dismissed: the server keeps its hash. `children` say what to do with it next;
 * `kind` names the key as the page that made it does ("API key" for a user's own, "Plugin key" for an observatory's).
 */
export function NewKeyNotice({
  name,
  secret,
  onDone,
  kind = "API key",
  children,
}: {
  name: string;
  secret: string;
  onDone(): void;
  kind?: "API key" | "Plugin key";
  children?: ReactNode;
}) {
  const fieldId = useId();
  return (
    <section aria-labelledby={`${fieldId}-title`} className="rounded-lg bg-emerald-50 p-4 ring-1 ring-emerald-200 sm:p-5">
      <div className="flex items-start gap-3">
        <KeyRound aria-hidden="true" className="mt-0.5 size-5 shrink-0 text-emerald-700" />
        <div className="min-w-0 flex-1">
          <h2 id={`${fieldId}-title`} className="text-sm font-semibold text-emerald-900">
            {kind} “{name}” created
          </h2>
          <p className="mt-1 text-sm text-emerald-800">Copy it now. For your security it will not be shown again.</p>
          <label htmlFor={fieldId} className="sr-only">
            New {kind === "API key" ? "API key" : "plugin key"}
          </label>
          <div className="mt-3 flex flex-col gap-2 sm:flex-row">
            <input
              id={fieldId}
              readOnly
              value={secret}
              onFocus={(event) => event.currentTarget.select()}
              className="min-w-0 flex-1 rounded-md border-0 bg-white px-3 py-2 font-mono text-sm text-slate-900 ring-1 ring-emerald-300 ring-inset"
            />
            <CopyButton text={secret} label="Copy key" />
          </div>
          {children ? <div className="mt-4">{children}</div> : null}
          <Button variant="ghost" className="mt-3 -ml-3" onClick={onDone}>
            I have saved it
          </Button>
        </div>
      </div>
    </section>
  );
}
