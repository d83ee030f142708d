import { useState } from "react";
import { useMutation, useQuery } from "@tanstack/react-query";
import { Building2, Crown, Plus } from "lucide-react";
import { Link, useNavigate } from "react-router-dom";
import { useMe } from "../auth/useMe";
import { Alert } from "../components/Alert";
import { Badge } from "../components/Badge";
import { AddMemberByEmailForm } from "../components/members/AddMemberByEmailForm";
import { AddMemberCard } from "../components/members/AddMemberCard";
import { MemberCell } from "../components/members/MemberCell";
import { OrganizationChoice, OTHER_ORGANIZATION } from "../components/members/OrganizationChoice";
import { OwnerBadge } from "../components/members/OwnerBadge";
import { RemoveMemberButton } from "../components/members/RemoveMemberButton";
import { RemoveMemberDialog } from "../components/members/RemoveMemberDialog";
import { QueryState } from "../components/QueryState";
import { SuccessNotice } from "../components/SuccessNotice";
import { ActionsCell, ActionsTh, CenteredTh, CheckboxCell, DataTable, EmptyRow, td, Th } from "../components/Table";
import { summarizeError } from "../lib/errors";
import { formProblem } from "../lib/form-errors";
import { useConfirmedMutation } from "../lib/useConfirmedMutation";
import { usePendingValues } from "../lib/usePendingValues";
import { useMyOrganizations } from "../organizations/useMyOrganizations";
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
import { useObservatoryInvitations } from "./useObservatoryInvitations";

function PermissionHeaders() {
  return (
    <>
      {observatoryPermissionKeys.map((key) => (
        <CenteredTh key={key} title={observatoryPermissionInfo[key].description}>
          <span className="normal-case">{observatoryPermissionInfo[key].label}</span>
        </CenteredTh>
      ))}
    </>
  );
}

/** One checkbox per permission, showing what is granted with its implications. */
function PermissionCells({
  name,
  permissions,
  fixedTitle,
  disabled,
  onChange,
}: {
  name: string;
  permissions: ObservatoryPermissions;
  fixedTitle: string | null;
  disabled: boolean;
  onChange(key: ObservatoryPermissionKey, checked: boolean): void;
}) {
  const shown = closePermissions(permissions);
  return (
    <>
      {observatoryPermissionKeys.map((key) => (
        <CheckboxCell
          key={key}
          label={`${observatoryPermissionInfo[key].label} for ${name}`}
          column={observatoryPermissionInfo[key].label}
          title={fixedTitle ?? observatoryPermissionInfo[key].description}
          checked={shown[key]}
          disabled={disabled}
          onChange={(checked) => onChange(key, checked)}
        />
      ))}
    </>
  );
}

export function ObservatoryMembers({ observatory }: { observatory: Observatory }) {
  const me = useMe();
  const navigate = useNavigate();
  const canAdmin = Boolean(observatory.myPermissions?.can_admin);
  const invitations = useObservatoryInvitations(observatory.id, canAdmin);
  const members = useQuery(trpc.observatories.members.queryOptions({ id: observatory.id }, { staleTime: 0 }));
  const myOrganizations = useMyOrganizations();
  const [notice, setNotice] = useState<string | null>(null);
  // Checkboxes show the change at once; the server's answer replaces it (or, on failure, the old value returns).
  const { pending, start, settle } = usePendingValues<ObservatoryPermissions>();
  const membersKey = trpc.observatories.members.queryKey({ id: observatory.id });

  const updateUser = useMutation(
    trpc.observatories.updateUser.mutationOptions({
      onSuccess: async (member) => {
        queryClient.setQueryData(membersKey, (current) =>
          current ? { ...current, users: current.users.map((user) => (user.userId === member.userId ? member : user)) } : current,
        );
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
          current
            ? {
                ...current,
                organizations: current.organizations.map((item) =>
                  item.organizationId === member.organizationId ? { ...item, permissions: member.permissions } : item,
                ),
              }
            : current,
        );
        setNotice(`Permissions saved for ${member.name}.`);
        await refreshObservatories();
      },
      onSettled: (_member, _error, input) => settle(`organization:${input.orgId}`),
    }),
  );
  const removeUser = useConfirmedMutation({
    mutation: trpc.observatories.removeUser.mutationOptions(),
    variables: (member: ObservatoryUserMember) => ({ id: observatory.id, userId: member.userId }),
    onSuccess: async (member) => {
      await refreshObservatories();
      if (member.userId === me.data?.id) void navigate("/observatories", { replace: true });
      else setNotice(`${member.name} was removed.`);
    },
  });
  const removeOrganization = useConfirmedMutation({
    mutation: trpc.observatories.removeOrganization.mutationOptions(),
    variables: (member: ObservatoryOrganizationMember) => ({ id: observatory.id, orgId: member.organizationId }),
    onSuccess: async (member) => {
      await refreshObservatories();
      setNotice(`${member.name} was removed.`);
    },
  });
  const updateError = updateUser.error ?? updateOrganization.error;

  /** Shows the new permissions at once and saves them; the other kind's failure, if any, goes away. */
  const change = (
    pendingKey: string,
    permissions: ObservatoryPermissions,
    otherUpdate: { reset(): void },
    save: (permissions: ObservatoryPermissions) => void,
  ) => {
    setNotice(null);
    otherUpdate.reset();
    start(pendingKey, () => permissions);
    save(permissions);
  };
  const toggleUser = (member: ObservatoryUserMember, key: ObservatoryPermissionKey, checked: boolean) =>
    change(`user:${member.userId}`, setObservatoryPermission(member.permissions, key, checked), updateOrganization, (permissions) =>
      updateUser.mutate({ id: observatory.id, userId: member.userId, permissions }),
    );
  const toggleOrganization = (member: ObservatoryOrganizationMember, key: ObservatoryPermissionKey, checked: boolean) =>
    change(`organization:${member.organizationId}`, setObservatoryPermission(member.permissions, key, checked), updateUser, (permissions) =>
      updateOrganization.mutate({ id: observatory.id, orgId: member.organizationId, permissions }),
    );
  const isMine = (organizationId: string) => Boolean(myOrganizations.data?.items.some((organization) => organization.id === organizationId));
  const removingSelf = removeUser.target?.userId === me.data?.id;

  if (members.isPending || members.isError) return <QueryState query={members} loading="Loading members" error="Could not load members" />;
  const { users, organizations } = members.data;

  return (
    <div className="flex flex-col gap-6">
      <SuccessNotice message={notice} />
      {updateError ? <Alert tone="error">Could not change permissions: {summarizeError(updateError).message}</Alert> : null}

      <section aria-labelledby="observatory-people-title">
        <h2 id="observatory-people-title" className="mb-3 text-base font-semibold text-slate-900">
          People <span className="ml-1 text-sm font-normal text-slate-500">{users.length}</span>
        </h2>
        <DataTable
          stackOnPhone
          label="People with access"
          columns={
            <>
              <Th>User</Th>
              <Th>Access</Th>
              <PermissionHeaders />
              <ActionsTh />
            </>
          }
        >
          {users.length === 0 ? <EmptyRow columns={7}>No individual users. People may still have access through organizations.</EmptyRow> : null}
          {users.map((member) => {
            const self = member.userId === me.data?.id;
            const owner = member.source === "owner";
            const optimistic = pending[`user:${member.userId}`];
            return (
              <tr key={member.userId}>
                <MemberCell name={member.name} email={member.email} self={self} />
                <td className={td}>{owner ? <OwnerBadge /> : <Badge>Direct</Badge>}</td>
                <PermissionCells
                  name={member.name}
                  permissions={optimistic ?? member.permissions}
                  fixedTitle={owner ? "The owner has every permission" : null}
                  disabled={owner || !canAdmin || optimistic !== undefined}
                  onChange={(key, checked) => toggleUser(member, key, checked)}
                />
                <ActionsCell>
                  <RemoveMemberButton name={member.name} self={self} owner={owner} canRemove={canAdmin} onClick={() => removeUser.ask(member)} />
                </ActionsCell>
              </tr>
            );
          })}
        </DataTable>
      </section>

      <section aria-labelledby="observatory-organizations-title">
        <h2 id="observatory-organizations-title" className="mb-1 text-base font-semibold text-slate-900">
          Organizations <span className="ml-1 text-sm font-normal text-slate-500">{organizations.length}</span>
        </h2>
        <p className="mb-3 text-sm text-slate-500">
          Members of these organizations inherit access: owners and admins may operate and administer, members may view and observe — never more than the
          organization's own grant below.
        </p>
        <DataTable
          stackOnPhone
          label="Member organizations"
          columns={
            <>
              <Th>Organization</Th>
              <PermissionHeaders />
              <ActionsTh />
            </>
          }
        >
          {organizations.length === 0 ? (
            <EmptyRow columns={6}>No organization has access yet.{canAdmin ? " Add one below: its members then get access through it." : ""}</EmptyRow>
          ) : null}
          {organizations.map((member) => {
            const optimistic = pending[`organization:${member.organizationId}`];
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
                <PermissionCells
                  name={member.name}
                  permissions={optimistic ?? member.permissions}
                  fixedTitle={member.owning ? "The owning organization keeps every permission" : null}
                  disabled={member.owning || !canAdmin || optimistic !== undefined}
                  onChange={(key, checked) => toggleOrganization(member, key, checked)}
                />
                <ActionsCell>
                  <RemoveMemberButton name={member.name} owner={member.owning} canRemove={canAdmin} onClick={() => removeOrganization.ask(member)} />
                </ActionsCell>
              </tr>
            );
          })}
        </DataTable>
      </section>

      {invitations.pending}

      {canAdmin ? (
        <div className="grid gap-6 lg:grid-cols-2">
          <AddUserCard observatoryId={observatory.id} invite={invitations.invite} />
          <AddOrganizationCard observatoryId={observatory.id} memberIds={organizations.map((organization) => organization.organizationId)} />
        </div>
      ) : (
        <Alert tone="info">Only members who may administer this observatory can change who has access.</Alert>
      )}
      <RemoveMemberDialog dialog={removeUser.dialog} self={removingSelf} place="observatory" noun="user">
        {removingSelf ? (
          <>
            Your direct access to <strong className="font-semibold text-slate-900">{observatory.name}</strong> ends. Access through an organization stays.
          </>
        ) : (
          <>
            <strong className="font-semibold text-slate-900">{removeUser.target?.name}</strong> loses direct access to {observatory.name}.
          </>
        )}
      </RemoveMemberDialog>
      <RemoveMemberDialog dialog={removeOrganization.dialog} place="observatory" noun="organization">
        Members of <strong className="font-semibold text-slate-900">{removeOrganization.target?.name}</strong> lose the access they had through it.
      </RemoveMemberDialog>
    </div>
  );
}

function AddUserCard({ observatoryId, invite }: { observatoryId: string; invite(email: string, permissions: ObservatoryPermissions): Promise<unknown> }) {
  const [permissions, setPermissions] = useState({ can_view: true, can_observe: false, can_operate: false, can_admin: false });
  return (
    <AddMemberByEmailForm
      title="Add a user"
      description="By the exact email address of their Meridian account."
      submitLabel="Add user"
      emailLabel="User email"
      mutation={trpc.observatories.addUser.mutationOptions()}
      invite={(email) => invite(email, permissions)}
      input={(email) => ({ id: observatoryId, email, permissions })}
      onAdded={refreshObservatories}
    >
      {(emailField) => (
        <>
          {emailField}
          <PermissionCheckboxes value={permissions} onChange={setPermissions} />
        </>
      )}
    </AddMemberByEmailForm>
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
  const other = choice === OTHER_ORGANIZATION;
  const submit = () => {
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
    <AddMemberCard
      title="Add an organization"
      description="Its members inherit access, capped by the permissions you grant here."
      error={problem && !fieldError ? problem.message : null}
      added={added}
      busy={add.isPending}
      submitLabel="Add organization"
      icon={<Plus aria-hidden="true" className="size-4" />}
      onSubmit={submit}
    >
      <OrganizationChoice
        label="Organization"
        placeholder={myOrganizations.isPending ? "Loading…" : "Choose one of your organizations…"}
        organizations={choices}
        choice={choice}
        onChoose={(chosen) => {
          setChoice(chosen);
          setBlank(null);
        }}
        otherId={otherId}
        onOtherIdChange={setOtherId}
        error={fieldError ?? undefined}
        otherIdHint="Ask the organization's owner for it."
      />
      <PermissionCheckboxes value={permissions} onChange={setPermissions} />
    </AddMemberCard>
  );
}
