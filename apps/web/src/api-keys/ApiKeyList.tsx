import type { ReactNode } from "react";
import { KeyRound, Trash2 } from "lucide-react";
import { Badge } from "../components/Badge";
import { Button } from "../components/Button";
import { ConfirmDialog } from "../components/ConfirmDialog";
import { EmptyState } from "../components/EmptyState";
import { formatDateTime, formatShortDate } from "../lib/format";
import { useConfirmedMutation } from "../lib/useConfirmedMutation";
import { useNow } from "../lib/useNow";
import { queryClient, trpc, trpcClient } from "../trpc";

export interface ApiKeyRow {
  id: string;
  name: string;
  prefix: string;
  createdAt: string;
  lastUsedAt: string | null;
  /** Only keys that can expire (a user's) carry these; null: never expires. */
  expiresAt?: string | null;
  expired?: boolean;
}

/** What the row says of expiry; null for keys that never carry one (an observatory's), so their rows stay as they were. */
function expiryText(key: ApiKeyRow, expired: boolean): string | null {
  if (key.expiresAt === undefined) return null;
  if (key.expiresAt === null) return "Never expires";
  return `${expired ? "Expired" : "Expires"} ${formatShortDate(key.expiresAt)}`;
}

/** One fact of the row, kept whole: the row wraps between facts, never inside a date. */
const Fact = ({ children, className = "" }: { children: ReactNode; className?: string }) => (
  <span className={`whitespace-nowrap ${className}`}>
    <span className="mr-2" aria-hidden="true">
      ·
    </span>
    <span>{children}</span>
  </span>
);

/** How one list revokes its keys: the user's own API keys (the default) or an observatory's plugin keys. */
export interface KeyRevocation {
  revoke(key: ApiKeyRow): Promise<unknown>;
  refresh(): Promise<unknown>;
}

const userKeys: KeyRevocation = {
  revoke: (key) => trpcClient.user.revokeApiKey.mutate({ id: key.id }),
  refresh: () => queryClient.invalidateQueries(trpc.user.apiKeys.queryFilter()),
};

export function ApiKeyList({
  keys,
  label = "API keys",
  revocation = userKeys,
  empty,
  title = "Revoke API key?",
  warning = (name) => <>Anything using {name} will stop working at once. This cannot be undone.</>,
}: {
  keys: ApiKeyRow[];
  label?: string;
  revocation?: KeyRevocation;
  empty?: ReactNode;
  title?: string;
  /** The confirmation's sentence about the key, whose name is given. */
  warning?: (name: ReactNode) => ReactNode;
}) {
  // A key that expires while the page is open reads as expired without a reload.
  const now = useNow();
  const revoke = useConfirmedMutation({
    mutation: { mutationFn: (key: ApiKeyRow) => revocation.revoke(key) },
    variables: (key: ApiKeyRow) => key,
    onSuccess: () => revocation.refresh(),
  });

  if (keys.length === 0) {
    return (
      empty ?? (
        <EmptyState icon={KeyRound} title="No API keys yet">
          Create a key to let scripts and observatory software call the Meridian API on your behalf.
        </EmptyState>
      )
    );
  }

  return (
    <>
      <ul aria-label={label} className="divide-y divide-slate-100 overflow-hidden rounded-lg bg-white shadow-sm ring-1 ring-slate-200">
        {keys.map((key) => {
          const expired = key.expired === true || (key.expiresAt != null && Date.parse(key.expiresAt) <= now);
          const expiry = expiryText(key, expired);
          return (
            <li key={key.id} className="flex flex-col gap-3 px-4 py-4 sm:flex-row sm:items-center sm:px-6">
              <div className="min-w-0 flex-1">
                <p className="flex min-w-0 items-center gap-2">
                  <span className={`truncate text-sm font-medium ${expired ? "text-slate-500" : "text-slate-900"}`}>{key.name}</span>
                  {expired ? <Badge tone="red">Expired</Badge> : null}
                </p>
                <p className="mt-0.5 flex flex-wrap items-center gap-x-2 text-sm text-slate-500">
                  <code className="rounded bg-slate-100 px-1.5 py-0.5 font-mono text-xs text-slate-700">{key.prefix}…</code>
                  <Fact>Created {formatDateTime(key.createdAt)}</Fact>
                  <Fact>{key.lastUsedAt ? `Last used ${formatDateTime(key.lastUsedAt)}` : "Never used"}</Fact>
                  {expiry ? <Fact className={expired ? "font-medium text-red-700" : ""}>{expiry}</Fact> : null}
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
          );
        })}
      </ul>
      <ConfirmDialog {...revoke.dialog} title={title} confirmLabel="Revoke key">
        {warning(<strong className="font-semibold text-slate-900">{revoke.target?.name}</strong>)}
      </ConfirmDialog>
    </>
  );
}
