import { useId, type ReactNode } from "react";
import { Badge } from "../components/Badge";
import { Button } from "../components/Button";
import { formatShortDate, formatShortDateTime } from "../lib/format";
import { isAdmin, type AdminUser, type UserChangeKind } from "./user-changes";

const headerCell = "px-3 py-3 text-left text-xs font-semibold tracking-wide whitespace-nowrap text-slate-500 uppercase";

/**
 * Wide screens get a table; phones and tablets get one card per user, the cells stacked and each named by a
 * small label, since a six-column row cannot fit. The roles keep it a table for screen readers.
 * Between the two, the table scrolls sideways inside its frame, with a shadow at the edge that has more.
 */
function Cell({ label, className = "", children }: { label?: string; className?: string; children: ReactNode }) {
  return (
    <td role="cell" className={`align-middle text-slate-700 max-lg:flex max-lg:items-center max-lg:gap-2 lg:px-3 lg:py-3 ${className}`}>
      {label ? (
        <span aria-hidden="true" className="w-24 shrink-0 text-xs font-medium text-slate-500 lg:hidden">
          {label}
        </span>
      ) : null}
      {children}
    </td>
  );
}

type ChangeHandler = (kind: UserChangeKind, user: AdminUser) => void;
type EditHandler = (user: AdminUser) => void;

export function UserTable({
  users,
  meId,
  onlyEnabledAdminId,
  onChange,
  onEdit,
}: {
  users: AdminUser[];
  meId: string | undefined;
  /** The only enabled server admin, when the page knows there is just one (see `onlyEnabledAdmin`). */
  onlyEnabledAdminId: string | undefined;
  onChange: ChangeHandler;
  /** Opens the form that corrects the account's name and email. */
  onEdit: EditHandler;
}) {
  return (
    <div className="scroll-cue overflow-x-auto rounded-lg shadow-sm ring-1 ring-slate-200">
      <table role="table" aria-label="Users" className="min-w-full text-sm max-lg:block">
        <thead role="rowgroup" className="bg-slate-50 max-lg:sr-only">
          <tr role="row" className="border-b border-slate-200">
            {["User", "Roles", "Status", "Created", "Last sign-in"].map((heading) => (
              <th key={heading} role="columnheader" scope="col" className={headerCell}>
                {heading}
              </th>
            ))}
            <th role="columnheader" scope="col" className={headerCell}>
              <span className="sr-only">Actions</span>
            </th>
          </tr>
        </thead>
        <tbody role="rowgroup" className="divide-y divide-slate-100 max-lg:block">
          {users.map((user) => {
            const admin = isAdmin(user);
            const self = user.id === meId;
            return (
              <tr key={user.id} role="row" className="max-lg:flex max-lg:flex-col max-lg:gap-2 max-lg:px-4 max-lg:py-4">
                <Cell className="min-w-48 lg:max-w-64">
                  <span className="min-w-0" title={`${user.name} <${user.email}>`}>
                    <span className="block truncate font-medium text-slate-900">
                      {user.name}
                      {self ? <span className="font-normal text-slate-500"> (you)</span> : null}
                    </span>
                    <span className="block truncate text-slate-500">{user.email}</span>
                  </span>
                </Cell>
                <Cell label="Roles">{admin ? <Badge tone="indigo">Server admin</Badge> : <span className="text-slate-500">User</span>}</Cell>
                <Cell label="Status">{user.disabled ? <Badge tone="red">Disabled</Badge> : <Badge tone="emerald">Active</Badge>}</Cell>
                <Cell label="Created" className="whitespace-nowrap text-slate-500">
                  <time dateTime={user.createdAt}>{formatShortDate(user.createdAt)}</time>
                </Cell>
                <Cell label="Last sign-in" className="whitespace-nowrap text-slate-500">
                  {user.lastLoginAt ? <time dateTime={user.lastLoginAt}>{formatShortDateTime(user.lastLoginAt)}</time> : "Never"}
                </Cell>
                <Cell className="lg:text-right">
                  <UserActions user={user} self={self} onlyEnabledAdmin={user.id === onlyEnabledAdminId} onChange={onChange} onEdit={onEdit} />
                </Cell>
              </tr>
            );
          })}
        </tbody>
      </table>
    </div>
  );
}

/**
 * A row's edit of the name and email, and its two changes. A change the server always refuses
 * (disabling oneself, removing the only enabled server admin) is not offered as if it would work:
 * its button is disabled, and a note under the buttons, which also describes the button to screen
 * readers, says why.
 */
function UserActions({
  user,
  self,
  onlyEnabledAdmin,
  onChange,
  onEdit,
}: {
  user: AdminUser;
  self: boolean;
  onlyEnabledAdmin: boolean;
  onChange: ChangeHandler;
  onEdit: EditHandler;
}) {
  const id = useId();
  const admin = isAdmin(user);
  const disableRefused = self && !user.disabled ? "You cannot disable your own account." : null;
  const removeAdminRefused = onlyEnabledAdmin ? `${self ? "You are" : `${user.name} is`} the only enabled server admin: make someone else one first.` : null;
  return (
    <div className="flex flex-col gap-1 lg:items-end">
      <span className="flex flex-wrap gap-2 max-lg:mt-1 lg:flex-nowrap lg:justify-end lg:whitespace-nowrap">
        <Button variant="secondary" className="py-1.5" aria-label={`Edit ${user.name}`} onClick={() => onEdit(user)}>
          Edit
        </Button>
        <Button
          variant="secondary"
          className="py-1.5"
          aria-label={`${user.disabled ? "Enable" : "Disable"} ${user.name}`}
          disabled={disableRefused !== null}
          aria-describedby={disableRefused ? `${id}-disable` : undefined}
          onClick={() => onChange(user.disabled ? "enable" : "disable", user)}
        >
          {user.disabled ? "Enable" : "Disable"}
        </Button>
        <Button
          variant="secondary"
          className="py-1.5"
          aria-label={`${admin ? "Remove server admin" : "Make server admin"}: ${user.name}`}
          disabled={removeAdminRefused !== null}
          aria-describedby={removeAdminRefused ? `${id}-remove-admin` : undefined}
          onClick={() => onChange(admin ? "revokeAdmin" : "grantAdmin", user)}
        >
          {admin ? "Remove server admin" : "Make server admin"}
        </Button>
      </span>
      {disableRefused ? (
        <p id={`${id}-disable`} className="text-xs text-slate-500">
          {disableRefused}
        </p>
      ) : null}
      {removeAdminRefused ? (
        <p id={`${id}-remove-admin`} className="text-xs text-slate-500">
          {removeAdminRefused}
        </p>
      ) : null}
    </div>
  );
}
