import { KeyRound, Trash2 } from "lucide-react";
import { Button } from "../components/Button";
import { ConfirmDialog } from "../components/ConfirmDialog";
import { EmptyState } from "../components/EmptyState";
import { formatDateTime } from "../lib/format";
import { useConfirmedMutation } from "../lib/useConfirmedMutation";
import { queryClient, trpc } from "../trpc";

export interface ApiKeyRow {
  id: string;
  name: string;
  prefix: string;
  createdAt: string;
  lastUsedAt: string | null;
}

export function ApiKeyList({ keys }: { keys: ApiKeyRow[] }) {
  const revoke = useConfirmedMutation({
    mutation: trpc.user.revokeApiKey.mutationOptions(),
    variables: (key: ApiKeyRow) => ({ id: key.id }),
    onSuccess: () => queryClient.invalidateQueries(trpc.user.apiKeys.queryFilter()),
  });

  if (keys.length === 0) {
    return (
      <EmptyState icon={KeyRound} title="No API keys yet">
        Create a key to let scripts and observatory software call the Meridian API on your behalf.
      </EmptyState>
    );
  }

  return (
    <>
      <ul aria-label="API keys" className="divide-y divide-slate-100 overflow-hidden rounded-lg bg-white shadow-sm ring-1 ring-slate-200">
        {keys.map((key) => (
          <li key={key.id} className="flex flex-col gap-3 px-4 py-4 sm:flex-row sm:items-center sm:px-6">
            <div className="min-w-0 flex-1">
              <p className="truncate text-sm font-medium text-slate-900">{key.name}</p>
              <p className="mt-0.5 text-sm text-slate-500">
                <code className="rounded bg-slate-100 px-1.5 py-0.5 font-mono text-xs text-slate-700">{key.prefix}…</code>
                <span className="mx-2" aria-hidden="true">
                  ·
                </span>
                Created {formatDateTime(key.createdAt)}
                <span className="mx-2" aria-hidden="true">
                  ·
                </span>
                {key.lastUsedAt ? `Last used ${formatDateTime(key.lastUsedAt)}` : "Never used"}
              </p>
            </div>
            <Button
              variant="secondary"
              icon={<Trash2 aria-hidden="true" className="size-4 text-red-600" />}
              aria-label={`Revoke ${key.name}`}
              onClick={() => revoke.ask(key)}
            >
              Revoke
            </Button>
          </li>
        ))}
      </ul>
      <ConfirmDialog {...revoke.dialog} title="Revoke API key?" confirmLabel="Revoke key">
        Anything using <strong className="font-semibold text-slate-900">{revoke.target?.name}</strong> will stop working at once. This cannot be undone.
      </ConfirmDialog>
    </>
  );
}
