import { useState } from "react";
import { UsersRound } from "lucide-react";
import { EditUserDialog } from "../admin/EditUserDialog";
import { describeChange, onlyEnabledAdmin, updateInput, type AdminUser, type UserChange } from "../admin/user-changes";
import { UserTable } from "../admin/UserTable";
import { useMe } from "../auth/useMe";
import { Alert } from "../components/Alert";
import { ConfirmDialog } from "../components/ConfirmDialog";
import { EmptyState } from "../components/EmptyState";
import { LoadMoreButton } from "../components/LoadMoreButton";
import { PageHeader } from "../components/PageHeader";
import { QueryState } from "../components/QueryState";
import { SearchField } from "../components/SearchField";
import { SuccessNotice } from "../components/SuccessNotice";
import { useSearch } from "../lib/useSearch";
import { useDocumentTitle } from "../lib/document-title";
import { summarizeError } from "../lib/errors";
import { useConfirmedMutation } from "../lib/useConfirmedMutation";
import { pageInput, useCursorPages } from "../lib/useCursorPages";
import { queryClient, trpc, trpcClient } from "../trpc";

const PAGE_SIZE = 25;

export function AdminUsersPage() {
  useDocumentTitle("Users");
  const me = useMe();
  const search = useSearch();
  const { q } = search;
  const input = q ? { q, limit: PAGE_SIZE } : { limit: PAGE_SIZE };
  const { query: users, items } = useCursorPages(
    trpc.admin.users.infiniteQueryKey(input),
    (cursor, signal) => trpcClient.admin.users.query(pageInput(input, cursor), { signal }),
    { keepPreviousList: true },
  );
  const [notice, setNotice] = useState<string | null>(null);
  const [editing, setEditing] = useState<AdminUser | null>(null);
  const isSelf = (user: AdminUser) => user.id === me.data?.id;
  const change = useConfirmedMutation({
    mutation: trpc.admin.updateUser.mutationOptions(),
    variables: updateInput,
    onSuccess: async (done: UserChange) => {
      setNotice(describeChange(done, isSelf(done.user)).done);
      await queryClient.invalidateQueries(trpc.admin.users.pathFilter());
      // Losing one's own admin role closes this page; the navigation follows `auth.me`.
      if (isSelf(done.user)) await queryClient.invalidateQueries(trpc.auth.me.queryFilter());
    },
  });
  const texts = change.target ? describeChange(change.target, isSelf(change.target.user)) : null;
  // The server counts its enabled admins whatever the search and the pages loaded.
  const soleAdmin = onlyEnabledAdmin(items, users.data?.pages.at(-1)?.enabledServerAdmins);

  return (
    <>
      <PageHeader
        title="Users"
        description={
          "Every account on this server. Edit corrects an account's name or email (both the old and the new address are told); " +
          "disabling one ends its sessions and stops its API keys at once; each change is recorded in the audit log."
        }
      />
      <div className="flex flex-col gap-4">
        <SearchField label="Search users" placeholder="Name or email" className="max-w-sm" value={search.text} onChange={search.setText} />
        <SuccessNotice message={notice} />
        <QueryState
          query={users}
          loading="Loading users"
          refreshing="Searching users"
          error="Could not load users"
          isEmpty={() => items.length === 0}
          empty={
            <EmptyState icon={UsersRound} title={q ? `No user matches “${q}”` : "No users yet"}>
              {q ? "The search looks for these letters in names and email addresses: check the spelling, or search for fewer." : null}
            </EmptyState>
          }
        >
          {() => (
            <UserTable
              users={items}
              meId={me.data?.id}
              onlyEnabledAdminId={soleAdmin?.id}
              onChange={(kind, user) => change.ask({ kind, user })}
              onEdit={(user) => {
                setNotice(null);
                setEditing(user);
              }}
            />
          )}
        </QueryState>
        <LoadMoreButton query={users} />
        {users.isFetchNextPageError ? <Alert tone="error">Could not load more users: {summarizeError(users.error).message}</Alert> : null}
      </div>
      {editing ? (
        <EditUserDialog
          user={editing}
          self={isSelf(editing)}
          onClose={() => setEditing(null)}
          onSaved={(saved) => {
            setEditing(null);
            setNotice(`Saved the name and email of ${saved.name} (${saved.email}).`);
          }}
        />
      ) : null}
      <ConfirmDialog {...change.dialog} title={texts?.title ?? ""} confirmLabel={texts?.confirm ?? ""}>
        {texts?.body}
      </ConfirmDialog>
    </>
  );
}
