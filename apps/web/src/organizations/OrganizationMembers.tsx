import { useState } from "react";
import { useMutation, useQuery } from "@tanstack/react-query";
import { ArrowRightLeft, Users } from "lucide-react";
import { useMe } from "../auth/useMe";
import { Alert } from "../components/Alert";
import { Badge } from "../components/Badge";
import { Button } from "../components/Button";
import { CheckboxField } from "../components/CheckboxField";
import { EmptyState } from "../components/EmptyState";
import { FormDialog } from "../components/FormDialog";
import { AddMemberByEmailForm } from "../components/members/AddMemberByEmailForm";
import { MemberCell } from "../components/members/MemberCell";
import { OwnerBadge } from "../components/members/OwnerBadge";
import { RemoveMemberButton } from "../components/members/RemoveMemberButton";
import { NewOwnerSelect } from "../components/members/NewOwnerSelect";
import { isConfirmed, TypeToConfirm } from "../components/members/TypeToConfirm";
import { RemoveMemberDialog } from "../components/members/RemoveMemberDialog";
import { useRemoveMember } from "../components/members/useRemoveMember";
import { QueryState } from "../components/QueryState";
import { SuccessNotice } from "../components/SuccessNotice";
import { ActionsCell, ActionsTh, CenteredTh, CheckboxCell, DataTable, td, Th } from "../components/Table";
import { summarizeError } from "../lib/errors";
import { formProblem } from "../lib/form-errors";
import { usePendingValues } from "../lib/usePendingValues";
import { queryClient, trpc } from "../trpc";
import { noOrganizationPermissions, organizationPermissionInfo } from "./labels";
import { refreshOrganizationData } from "./refresh";
import { useOrganizationInvitations } from "./useOrganizationInvitations";
import type { Organization, OrganizationMember, OrganizationPermissionKey, OrganizationPermissions } from "./types";

export function OrganizationMembers({ organization }: { organization: Organization }) {
  const me = useMe();
  const members = useQuery(trpc.organizations.members.queryOptions({ id: organization.id }, { staleTime: 0 }));
  const canManage = organization.myPermissions.can_manage_members;
  const isOwner = organization.myRole === "owner";
  const invitations = useOrganizationInvitations(organization.id, canManage);
  const [transferring, setTransferring] = useState(false);
  const [notice, setNotice] = useState<string | null>(null);
  // Checkboxes show the change at once; the server's answer replaces it (or, on failure, the old value returns).
  const { pending, start, settle } = usePendingValues<Partial<OrganizationPermissions>>();

  const update = useMutation(
    trpc.organizations.updateMember.mutationOptions({
      onSuccess: async (member) => {
        queryClient.setQueryData(trpc.organizations.members.queryKey({ id: organization.id }), (current) =>
          current ? { ...current, items: current.items.map((item) => (item.userId === member.userId ? member : item)) } : current,
        );
        setNotice(`Permissions saved for ${member.name}.`);
        await refreshOrganizationData();
      },
      onSettled: (_member, _error, input) => settle(input.userId),
    }),
  );
  const removal = useRemoveMember({
    mutation: trpc.organizations.removeMember.mutationOptions(),
    variables: (member: OrganizationMember) => ({ id: organization.id, userId: member.userId }),
    refresh: refreshOrganizationData,
    forget: () => queryClient.removeQueries(trpc.organizations.get.queryFilter({ id: organization.id })),
    leaveTo: "/organizations",
    onRemoved: (member) => setNotice(`${member.name} was removed.`),
  });

  const toggle = (member: OrganizationMember, key: OrganizationPermissionKey, value: boolean) => {
    setNotice(null);
    start(member.userId, (current) => ({ ...current, [key]: value }));
    update.mutate({ id: organization.id, userId: member.userId, permissions: { [key]: value } });
  };

  const items = members.data?.items ?? [];
  const transferCandidates = items.filter((member) => member.role !== "owner");

  return (
    <div className="flex flex-col gap-6">
      <section aria-labelledby="org-members-title">
        <div className="mb-3 flex flex-wrap items-center justify-between gap-3">
          <h2 id="org-members-title" className="text-base font-semibold text-slate-900">
            Members{members.data ? <span className="ml-2 text-sm font-normal text-slate-500">{items.length}</span> : null}
          </h2>
          {isOwner ? (
            <Button variant="secondary" icon={<ArrowRightLeft aria-hidden="true" className="size-4" />} onClick={() => setTransferring(true)}>
              Transfer ownership
            </Button>
          ) : null}
        </div>
        <SuccessNotice message={notice} className="mb-3" />
        {update.isError ? (
          <Alert tone="error" className="mb-3">
            Could not change permissions: {summarizeError(update.error).message}
          </Alert>
        ) : null}
        <QueryState
          query={members}
          loading="Loading members"
          error="Could not load members"
          isEmpty={(data) => data.items.length === 0}
          empty={
            <EmptyState icon={Users} title="No members">
              Members who may manage members add others below, by the email address of their Meridian account.
            </EmptyState>
          }
        >
          {(data) => (
            <DataTable
              stackOnPhone
              label="Organization members"
              columns={
                <>
                  <Th>Member</Th>
                  <Th>Role</Th>
                  {organizationPermissionInfo.map((info) => (
                    <CenteredTh key={info.key} title={info.description}>
                      <span className="block min-w-16 normal-case">{info.label}</span>
                    </CenteredTh>
                  ))}
                  <ActionsTh />
                </>
              }
            >
              {data.items.map((member) => {
                const self = member.userId === me.data?.id;
                const owner = member.role === "owner";
                const busy = member.userId in pending;
                const permissions = { ...member.permissions, ...pending[member.userId] };
                return (
                  <tr key={member.userId}>
                    <MemberCell name={member.name} email={member.email} self={self} />
                    <td className={td}>{owner ? <OwnerBadge /> : <Badge>Member</Badge>}</td>
                    {organizationPermissionInfo.map((info) => (
                      <CheckboxCell
                        key={info.key}
                        label={`${info.label} for ${member.name}`}
                        column={info.label}
                        title={owner ? "The owner always has every permission" : info.description}
                        checked={permissions[info.key]}
                        disabled={owner || !canManage || busy}
                        onChange={(checked) => toggle(member, info.key, checked)}
                      />
                    ))}
                    <ActionsCell>
                      <RemoveMemberButton name={member.name} self={self} owner={owner} canRemove={canManage} onClick={() => removal.ask(member)} />
                    </ActionsCell>
                  </tr>
                );
              })}
            </DataTable>
          )}
        </QueryState>
        {isOwner ? <p className="mt-2 text-sm text-slate-500">As the owner you cannot leave. Transfer ownership to another member first.</p> : null}
      </section>

      {invitations.pending}

      {canManage ? <AddOrganizationMember organizationId={organization.id} invite={invitations.invite} /> : null}

      <RemoveMemberDialog dialog={removal.dialog} self={removal.removingSelf} place="organization">
        {removal.removingSelf ? (
          <>
            You will lose access to <strong className="font-semibold text-slate-900">{organization.name}</strong> and to what you could reach through it, such
            as its observatories.
          </>
        ) : (
          <>
            <strong className="font-semibold text-slate-900">{removal.target?.name}</strong> will lose access to {organization.name} and everything it shares
            with its members.
          </>
        )}
      </RemoveMemberDialog>

      {transferring ? (
        <TransferOrganizationDialog
          organization={organization}
          candidates={transferCandidates}
          onClose={() => setTransferring(false)}
          onTransferred={(member) => {
            setTransferring(false);
            setNotice(`${member.name} is now the owner of ${organization.name}.`);
          }}
        />
      ) : null}
    </div>
  );
}

function AddOrganizationMember({
  organizationId,
  invite,
}: {
  organizationId: string;
  invite(email: string, permissions: OrganizationPermissions): Promise<unknown>;
}) {
  const [permissions, setPermissions] = useState(noOrganizationPermissions);
  return (
    <AddMemberByEmailForm
      title="Add a member"
      description="Enter the exact email address of their Meridian account."
      emailName="email"
      emailClassName="max-w-md"
      notFoundMessage="No Meridian account uses this email address."
      invite={(email) => invite(email, permissions)}
      mutation={trpc.organizations.addMember.mutationOptions()}
      input={(email) => ({ id: organizationId, email, permissions })}
      addedMessage={(member) => `${member.name} is now a member.`}
      onAdded={() => {
        setPermissions(noOrganizationPermissions());
        return refreshOrganizationData();
      }}
    >
      {(emailField) => (
        <>
          {emailField}
          <fieldset>
            <legend className="text-sm font-medium text-slate-700">Permissions</legend>
            <div className="mt-2 grid gap-3 sm:grid-cols-2">
              {organizationPermissionInfo.map((info) => (
                <CheckboxField
                  key={info.key}
                  label={<>{info.label}</>}
                  description={info.description}
                  checked={permissions[info.key]}
                  onChange={(checked) => setPermissions((current) => ({ ...current, [info.key]: checked }))}
                />
              ))}
            </div>
          </fieldset>
        </>
      )}
    </AddMemberByEmailForm>
  );
}

function TransferOrganizationDialog({
  organization,
  candidates,
  onClose,
  onTransferred,
}: {
  organization: Organization;
  candidates: OrganizationMember[];
  onClose(): void;
  onTransferred(member: OrganizationMember): void;
}) {
  const [userId, setUserId] = useState("");
  const [typed, setTyped] = useState("");
  const [blank, setBlank] = useState<string | null>(null);
  const chosen = candidates.find((candidate) => candidate.userId === userId);
  const confirmed = chosen ? isConfirmed(typed, [chosen.email, chosen.name]) : false;
  const transfer = useMutation(
    trpc.organizations.transferOwnership.mutationOptions({
      onSuccess: async (_organization, input) => {
        await refreshOrganizationData();
        const member = candidates.find((candidate) => candidate.userId === input.userId);
        if (member) onTransferred(member);
        else onClose();
      },
    }),
  );
  const problem = formProblem(transfer.error, { codeFields: { NOT_A_MEMBER: "userId" } });
  const submit = () => {
    if (candidates.length === 0) return onClose();
    if (!userId) return setBlank("Choose the new owner.");
    setBlank(null);
    transfer.mutate({ id: organization.id, userId });
  };
  return (
    <FormDialog
      title="Transfer ownership"
      description={
        <>
          The new owner controls <strong className="font-semibold text-slate-700">{organization.name}</strong>. You stay a member with every permission.
        </>
      }
      submitLabel="Transfer ownership"
      submitVariant="danger"
      submitDisabled={candidates.length > 0 && !confirmed}
      busy={transfer.isPending}
      error={problem && !problem.fieldErrors.userId ? problem.message : null}
      onSubmit={submit}
      onClose={onClose}
    >
      {candidates.length === 0 ? (
        <Alert tone="info">Add another member first: ownership can only go to a current member.</Alert>
      ) : (
        <>
          <NewOwnerSelect members={candidates} value={userId} onChange={setUserId} error={blank ?? problem?.fieldErrors.userId} />
          <TypeToConfirm what="the new owner's email or name" accepted={chosen ? [chosen.email, chosen.name] : []} value={typed} onChange={setTyped} />
        </>
      )}
    </FormDialog>
  );
}
