import { useState } from "react";
import { UsersRound } from "lucide-react";
import { useSearchParams } from "react-router-dom";
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
import { SelectField } from "../components/SelectField";
import { SuccessNotice } from "../components/SuccessNotice";
import { useSearch } from "../lib/useSearch";
import { useDocumentTitle } from "../lib/document-title";
import { summarizeError } from "../lib/errors";
import { useConfirmedMutation } from "../lib/useConfirmedMutation";
import { pageInput, useCursorPages } from "../lib/useCursorPages";
import { queryClient, trpc, trpcClient } from "../trpc";

const PAGE_SIZE = 25;

/** What the "Show" filter offers: its label, what it asks the server, and how its empty list is named. */
const SHOWN = {
  all: { label: "All", input: {}, none: "No users yet", noMatch: "No user matches", only: null },
  admins: { label: "Server admins", input: { role: "serverAdmin" }, none: "No server admins", noMatch: "No server admin matches", only: "server admins" },
  disabled: {
    label: "Disabled",
    input: { status: "disabled" },
    none: "No disabled accounts",
    noMatch: "No disabled account matches",
    only: "disabled accounts",
  },
} as const;
type Shown = keyof typeof SHOWN;
const isShown = (value: string | null): value is Shown => value !== null && Object.hasOwn(SHOWN, value);

export function AdminUsersPage() {
  useDocumentTitle("Users");
  const me = useMe();
  const search = useSearch();
  const { q } = search;
  // The filter lives in the URL, as the Jobs page's do, so a reload or a shared link shows the same list.
  const [params, setParams] = useSearchParams();
  const requested = params.get("show");
  const shown: Shown = isShown(requested) ? requested : "all";
  const setShown = (value: Shown) =>
    setParams(
      (current) => {
        const next = new URLSearchParams(current);
        if (value === "all") next.delete("show");
        else next.set("show", value);
        return next;
      },
      // Not in a transition (the router's default): until it commits, React puts the select back to the
      // old value, and a second arrow key pressed meanwhile would move from there.
      { replace: true, flushSync: true },
    );
  const filter = SHOWN[shown];
  const input = { ...filter.input, ...(q ? { q } : {}), limit: PAGE_SIZE };
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
        <div className="flex flex-col gap-3 sm:flex-row">
          <SearchField label="Search users" placeholder="Name or email" className="sm:max-w-sm sm:flex-1" value={search.text} onChange={search.setText} />
          <SelectField label="Show" className="sm:w-48" value={shown} onChange={(event) => setShown(isShown(event.target.value) ? event.target.value : "all")}>
            {Object.entries(SHOWN).map(([value, { label }]) => (
              <option key={value} value={value}>
                {label}
              </option>
            ))}
          </SelectField>
        </div>
        <SuccessNotice message={notice} />
        <QueryState
          query={users}
          loading="Loading users"
          refreshing="Searching users"
          error="Could not load users"
          isEmpty={() => items.length === 0}
          empty={
            <EmptyState icon={UsersRound} title={q ? `${filter.noMatch} “${q}”` : filter.none}>
              {[
                q ? "The search looks for these letters in names and email addresses: check the spelling, or search for fewer." : null,
                filter.only ? `Only ${filter.only} are shown: choose All under Show to see every account.` : null,
              ]
                .filter(Boolean)
                .join(" ") || null}
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
