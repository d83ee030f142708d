import { useState, type FormEvent } from "react";
import { useMutation, useQuery } from "@tanstack/react-query";
import { Building2, Crown, LogOut, Plus, Trash2, UserPlus } from "lucide-react";
import { Link, useNavigate } from "react-router-dom";
import { useMe } from "../auth/useMe";
import { Alert } from "../components/Alert";
import { Button } from "../components/Button";
import { Card } from "../components/Card";
import { ConfirmDialog } from "../components/ConfirmDialog";
import { Spinner } from "../components/Spinner";
import { TextField } from "../components/TextField";
import { UserAvatar } from "../components/UserAvatar";
import { summarizeError } from "../lib/errors";
import { useMyOrganizations } from "../organizations/useMyOrganizations";
import { Badge } from "../organizations/ui/Badge";
import { formProblem } from "../organizations/ui/form-errors";
import { SelectField } from "../organizations/ui/SelectField";
import { checkbox, TableFrame, tbody, td, tdCenter, th, thCenter } from "../organizations/ui/Table";
import { queryClient, trpc } from "../trpc";
import { PermissionCheckboxes } from "./PermissionCheckboxes";
import {
  closePermissions,
  observatoryPermissionInfo,
  observatoryPermissionKeys,
  setObservatoryPermission,
  type Observatory,
  type ObservatoryOrganizationMember,
  type ObservatoryPermissionKey,
  type ObservatoryPermissions,
  type ObservatoryUserMember,
} from "./permissions";
import { refreshObservatories } from "./refresh";

type Removal = { kind: "user"; member: ObservatoryUserMember } | { kind: "organization"; member: ObservatoryOrganizationMember };

const OTHER = "__other__";

function PermissionHeaders() {
  return (
    <>
      {observatoryPermissionKeys.map((key) => (
        <th key={key} scope="col" className={thCenter} title={observatoryPermissionInfo[key].description}>
          <span className="normal-case">{observatoryPermissionInfo[key].label}</span>
        </th>
      ))}
    </>
  );
}

export function ObservatoryMembers({ observatory }: { observatory: Observatory }) {
  const me = useMe();
  const navigate = useNavigate();
  const canAdmin = Boolean(observatory.myPermissions?.can_admin);
  const members = useQuery(trpc.observatories.members.queryOptions({ id: observatory.id }, { staleTime: 0 }));
  const myOrganizations = useMyOrganizations();
  const [notice, setNotice] = useState<string | null>(null);
  const [removing, setRemoving] = useState<Removal | null>(null);
  // Checkboxes show the change at once; the server's answer replaces it (or, on failure, the old value returns).
  const [pending, setPending] = useState<Record<string, ObservatoryPermissions>>({});
  const settle = (key: string) => setPending(({ [key]: _settled, ...rest }) => rest);
  const membersKey = trpc.observatories.members.queryKey({ id: observatory.id });

  const updateUser = useMutation(
    trpc.observatories.updateUser.mutationOptions({
      onSuccess: async (member) => {
        queryClient.setQueryData(membersKey, (current) => (current ? { ...current, users: current.users.map((user) => (user.userId === member.userId ? member : user)) } : current));
        setNotice(`Permissions saved for ${member.name}.`);
        await refreshObservatories();
      },
      onSettled: (_member, _error, input) => settle(`user:${input.userId}`),
    }),
  );
  const updateOrganization = useMutation(
    trpc.observatories.updateOrganization.mutationOptions({
      onSuccess: async (member) => {
        queryClient.setQueryData(membersKey, (current) =>
          current ? { ...current, organizations: current.organizations.map((item) => (item.organizationId === member.organizationId ? { ...item, permissions: member.permissions } : item)) } : current,
        );
        setNotice(`Permissions saved for ${member.name}.`);
        await refreshObservatories();
      },
      onSettled: (_member, _error, input) => settle(`organization:${input.organizationId}`),
    }),
  );
  const afterRemoval = async (self: boolean, name: string) => {
    setRemoving(null);
    await refreshObservatories();
    if (self) navigate("/observatories", { replace: true });
    else setNotice(`${name} was removed.`);
  };
  const removeUser = useMutation(
    trpc.observatories.removeUser.mutationOptions({
      onSuccess: (_result, input) => afterRemoval(input.userId === me.data?.id, members.data?.users.find((user) => user.userId === input.userId)?.name ?? "The user"),
    }),
  );
  const removeOrganization = useMutation(
    trpc.observatories.removeOrganization.mutationOptions({
      onSuccess: (_result, input) => afterRemoval(false, members.data?.organizations.find((organization) => organization.organizationId === input.organizationId)?.name ?? "The organization"),
    }),
  );
  const removal = removing?.kind === "organization" ? removeOrganization : removeUser;
  const updateError = updateUser.error ?? updateOrganization.error;

  const toggleUser = (member: ObservatoryUserMember, key: ObservatoryPermissionKey, checked: boolean) => {
    setNotice(null);
    updateOrganization.reset();
    const permissions = setObservatoryPermission(member.permissions, key, checked);
    setPending((current) => ({ ...current, [`user:${member.userId}`]: permissions }));
    updateUser.mutate({ id: observatory.id, userId: member.userId, permissions });
  };
  const toggleOrganization = (member: ObservatoryOrganizationMember, key: ObservatoryPermissionKey, checked: boolean) => {
    setNotice(null);
    updateUser.reset();
    const permissions = setObservatoryPermission(member.permissions, key, checked);
    setPending((current) => ({ ...current, [`organization:${member.organizationId}`]: permissions }));
    updateOrganization.mutate({ id: observatory.id, organizationId: member.organizationId, permissions });
  };
  const isMine = (organizationId: string) => Boolean(myOrganizations.data?.items.some((organization) => organization.id === organizationId));
  const removingSelf = removing?.kind === "user" && removing.member.userId === me.data?.id;
  const removingName = removing?.kind === "user" ? removing.member.name : removing?.member.name;

  if (members.isPending) return <Spinner label="Loading members" />;
  if (members.isError) return <Alert tone="error">Could not load members: {summarizeError(members.error).message}</Alert>;
  const { users, organizations } = members.data;

  return (
    <div className="flex flex-col gap-6">
      <p role="status" aria-live="polite" className="sr-only">
        {notice ?? ""}
      </p>
      {notice ? <Alert tone="success">{notice}</Alert> : null}
      {updateError ? <Alert tone="error">Could not change permissions: {summarizeError(updateError).message}</Alert> : null}

      <section aria-labelledby="observatory-people-title">
        <h2 id="observatory-people-title" className="mb-3 text-base font-semibold text-slate-900">
          People <span className="ml-1 text-sm font-normal text-slate-500">{users.length}</span>
        </h2>
        <TableFrame label="People with access">
          <thead className="bg-slate-50">
            <tr>
              <th scope="col" className={th}>User</th>
              <th scope="col" className={th}>Access</th>
              <PermissionHeaders />
              <th scope="col" className={th}>
                <span className="sr-only">Actions</span>
              </th>
            </tr>
          </thead>
          <tbody className={tbody}>
            {users.length === 0 ? (
              <tr>
                <td colSpan={7} className={`${td} text-center text-slate-500`}>
                  No individual users. People may still have access through organizations.
                </td>
              </tr>
            ) : null}
            {users.map((member) => {
              const self = member.userId === me.data?.id;
              const owner = member.source === "owner";
              const optimistic = pending[`user:${member.userId}`];
              const busy = optimistic !== undefined;
              const shown = closePermissions(optimistic ?? member.permissions);
              return (
                <tr key={member.userId}>
                  <td className={td}>
                    <div className="flex min-w-48 items-center gap-3">
                      <UserAvatar name={member.name} url={null} />
                      <div className="min-w-0">
                        <p className="truncate font-medium text-slate-900">
                          {member.name}
                          {self ? <span className="ml-1 text-xs font-normal text-slate-500">(you)</span> : null}
                        </p>
                        <p className="truncate text-xs text-slate-500">{member.email}</p>
                      </div>
                    </div>
                  </td>
                  <td className={td}>
                    {owner ? (
                      <Badge tone="indigo">
                        <Crown aria-hidden="true" className="size-3" /> Owner
                      </Badge>
                    ) : (
                      <Badge>Direct</Badge>
                    )}
                  </td>
                  {observatoryPermissionKeys.map((key) => (
                    <td key={key} className={tdCenter}>
                      <input
                        type="checkbox"
                        className={checkbox}
                        aria-label={`${observatoryPermissionInfo[key].label} for ${member.name}`}
                        title={owner ? "The owner has every permission" : observatoryPermissionInfo[key].description}
                        checked={shown[key]}
                        disabled={owner || !canAdmin || busy}
                        onChange={(event) => toggleUser(member, key, event.target.checked)}
                      />
                    </td>
                  ))}
                  <td className={`${td} text-right whitespace-nowrap`}>
                    {owner ? null : self ? (
                      <Button variant="ghost" icon={<LogOut aria-hidden="true" className="size-4" />} onClick={() => { removal.reset(); setRemoving({ kind: "user", member }); }}>
                        Leave
                      </Button>
                    ) : canAdmin ? (
                      <Button variant="ghost" aria-label={`Remove ${member.name}`} icon={<Trash2 aria-hidden="true" className="size-4 text-red-600" />} onClick={() => { removeUser.reset(); setRemoving({ kind: "user", member }); }}>
                        Remove
                      </Button>
                    ) : null}
                  </td>
                </tr>
              );
            })}
          </tbody>
        </TableFrame>
      </section>

      <section aria-labelledby="observatory-organizations-title">
        <h2 id="observatory-organizations-title" className="mb-1 text-base font-semibold text-slate-900">
          Organizations <span className="ml-1 text-sm font-normal text-slate-500">{organizations.length}</span>
        </h2>
        <p className="mb-3 text-sm text-slate-500">
          Members of these organizations inherit access: owners and admins may operate and administer, members may view and observe — never more than the organization's own grant below.
        </p>
        <TableFrame label="Member organizations">
          <thead className="bg-slate-50">
            <tr>
              <th scope="col" className={th}>Organization</th>
              <PermissionHeaders />
              <th scope="col" className={th}>
                <span className="sr-only">Actions</span>
              </th>
            </tr>
          </thead>
          <tbody className={tbody}>
            {organizations.length === 0 ? (
              <tr>
                <td colSpan={6} className={`${td} text-center text-slate-500`}>
                  No organizations yet.
                </td>
              </tr>
            ) : null}
            {organizations.map((member) => {
              const optimistic = pending[`organization:${member.organizationId}`];
              const busy = optimistic !== undefined;
              const shown = closePermissions(optimistic ?? member.permissions);
              return (
                <tr key={member.organizationId}>
                  <td className={td}>
                    <div className="flex min-w-48 items-center gap-3">
                      <span className="flex size-8 shrink-0 items-center justify-center rounded-md bg-slate-100 text-slate-600">
                        <Building2 aria-hidden="true" className="size-4" />
                      </span>
                      <div className="min-w-0">
                        {isMine(member.organizationId) ? (
                          <Link to={`/organizations/${member.organizationId}`} className="font-medium text-slate-900 hover:text-indigo-600">
                            {member.name}
                          </Link>
                        ) : (
                          <p className="font-medium text-slate-900">{member.name}</p>
                        )}
                        {member.owning ? (
                          <Badge tone="indigo" className="ml-2" title="The owning organization keeps every permission and cannot be removed">
                            <Crown aria-hidden="true" className="size-3" /> Owning organization
                          </Badge>
                        ) : null}
                      </div>
                    </div>
                  </td>
                  {observatoryPermissionKeys.map((key) => (
                    <td key={key} className={tdCenter}>
                      <input
                        type="checkbox"
                        className={checkbox}
                        aria-label={`${observatoryPermissionInfo[key].label} for ${member.name}`}
                        title={member.owning ? "The owning organization keeps every permission" : observatoryPermissionInfo[key].description}
                        checked={shown[key]}
                        disabled={member.owning || !canAdmin || busy}
                        onChange={(event) => toggleOrganization(member, key, event.target.checked)}
                      />
                    </td>
                  ))}
                  <td className={`${td} text-right whitespace-nowrap`}>
                    {canAdmin && !member.owning ? (
                      <Button
                        variant="ghost"
                        aria-label={`Remove ${member.name}`}
                        icon={<Trash2 aria-hidden="true" className="size-4 text-red-600" />}
                        onClick={() => { removeOrganization.reset(); setRemoving({ kind: "organization", member }); }}
                      >
                        Remove
                      </Button>
                    ) : null}
                  </td>
                </tr>
              );
            })}
          </tbody>
        </TableFrame>
      </section>

      {canAdmin ? (
        <div className="grid gap-6 lg:grid-cols-2">
          <AddUserCard observatoryId={observatory.id} />
          <AddOrganizationCard observatoryId={observatory.id} memberIds={organizations.map((organization) => organization.organizationId)} />
        </div>
      ) : (
        <Alert tone="info">Only members who may administer this observatory can change who has access.</Alert>
      )}
      <ConfirmDialog
        open={removing !== null}
        title={removingSelf ? "Leave observatory?" : removing?.kind === "organization" ? "Remove organization?" : "Remove user?"}
        confirmLabel={removingSelf ? "Leave observatory" : removing?.kind === "organization" ? "Remove organization" : "Remove user"}
        busy={removal.isPending}
        error={removal.isError ? summarizeError(removal.error).message : null}
        onCancel={() => setRemoving(null)}
        onConfirm={() => {
          if (removing?.kind === "user") removeUser.mutate({ id: observatory.id, userId: removing.member.userId });
          else if (removing?.kind === "organization") removeOrganization.mutate({ id: observatory.id, organizationId: removing.member.organizationId });
        }}
      >
        {removingSelf ? (
          <>
            Your direct access to <strong className="font-semibold text-slate-900">{observatory.name}</strong> ends. Access through an organization stays.
          </>
        ) : removing?.kind === "organization" ? (
          <>
            Members of <strong className="font-semibold text-slate-900">{removingName}</strong> lose the access they had through it.
          </>
        ) : (
          <>
            <strong className="font-semibold text-slate-900">{removingName}</strong> loses direct access to {observatory.name}.
          </>
        )}
      </ConfirmDialog>
    </div>
  );
}

function AddUserCard({ observatoryId }: { observatoryId: string }) {
  const [email, setEmail] = useState("");
  const [added, setAdded] = useState<string | null>(null);
  const [permissions, setPermissions] = useState({ can_view: true, can_observe: false, can_operate: false, can_admin: false });
  const [blank, setBlank] = useState<string | null>(null);
  const add = useMutation(
    trpc.observatories.addUser.mutationOptions({
      onSuccess: async (member) => {
        setEmail("");
        setAdded(`${member.name} was added.`);
        await refreshObservatories();
      },
    }),
  );
  const problem = formProblem(add.error, { codeFields: { ALREADY_MEMBER: "email" } });
  const emailError = blank ?? (problem?.code === "USER_NOT_FOUND" ? "No Meridian account uses this email address." : problem?.fieldErrors.email);
  const submit = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    if (!email.trim()) {
      setBlank("Enter the email address of the person to add.");
      return add.reset();
    }
    setBlank(null);
    setAdded(null);
    add.mutate({ id: observatoryId, email, permissions });
  };
  return (
    <Card title="Add a user" description="By the exact email address of their Meridian account.">
      <form onSubmit={submit} noValidate aria-label="Add a user" className="flex flex-col gap-4">
        {problem && !emailError ? <Alert tone="error">{problem.message}</Alert> : null}
        {added ? <Alert tone="success">{added}</Alert> : null}
        <TextField label="User email" type="email" autoComplete="off" required value={email} onChange={(e) => setEmail(e.target.value)} error={emailError} />
        <PermissionCheckboxes value={permissions} onChange={setPermissions} />
        <div>
          <Button type="submit" busy={add.isPending} icon={<UserPlus aria-hidden="true" className="size-4" />}>
            Add user
          </Button>
        </div>
      </form>
    </Card>
  );
}

function AddOrganizationCard({ observatoryId, memberIds }: { observatoryId: string; memberIds: string[] }) {
  const [added, setAdded] = useState<string | null>(null);
  const myOrganizations = useMyOrganizations();
  const choices = (myOrganizations.data?.items ?? []).filter((organization) => !memberIds.includes(organization.id));
  const [choice, setChoice] = useState("");
  const [otherId, setOtherId] = useState("");
  const [permissions, setPermissions] = useState({ can_view: true, can_observe: true, can_operate: false, can_admin: false });
  const [blank, setBlank] = useState<string | null>(null);
  const add = useMutation(
    trpc.observatories.addOrganization.mutationOptions({
      onSuccess: async (member) => {
        setChoice("");
        setOtherId("");
        setAdded(`${member.name} was added.`);
        await refreshObservatories();
      },
    }),
  );
  const problem = formProblem(add.error, { codeFields: { ALREADY_MEMBER: "organizationId" } });
  const fieldError = blank ?? (problem?.code === "NOT_FOUND" ? "No organization has this ID." : problem?.fieldErrors.organizationId);
  const other = choice === OTHER;
  const submit = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    const organizationId = other ? otherId.trim() : choice;
    if (!organizationId) {
      setBlank(other ? "Enter the organization's ID." : "Choose an organization.");
      return add.reset();
    }
    setBlank(null);
    setAdded(null);
    add.mutate({ id: observatoryId, organizationId, permissions });
  };
  return (
    <Card title="Add an organization" description="Its members inherit access, capped by the permissions you grant here.">
      <form onSubmit={submit} noValidate aria-label="Add an organization" className="flex flex-col gap-4">
        {problem && !fieldError ? <Alert tone="error">{problem.message}</Alert> : null}
        {added ? <Alert tone="success">{added}</Alert> : null}
        <SelectField label="Organization" value={choice} onChange={(e) => { setChoice(e.target.value); setBlank(null); }} error={other ? undefined : (fieldError ?? undefined)}>
          <option value="" disabled>
            {myOrganizations.isPending ? "Loading…" : "Choose one of your organizations…"}
          </option>
          {choices.map((organization) => (
            <option key={organization.id} value={organization.id}>
              {organization.name}
            </option>
          ))}
          <option value={OTHER}>Another organization (enter its ID)…</option>
        </SelectField>
        {other ? (
          <TextField label="Organization ID" autoComplete="off" spellCheck={false} value={otherId} onChange={(e) => setOtherId(e.target.value)} error={fieldError ?? undefined} hint="Ask the organization's owner for it." />
        ) : null}
        <PermissionCheckboxes value={permissions} onChange={setPermissions} />
        <div>
          <Button type="submit" busy={add.isPending} icon={<Plus aria-hidden="true" className="size-4" />}>
            Add organization
          </Button>
        </div>
      </form>
    </Card>
  );
}
