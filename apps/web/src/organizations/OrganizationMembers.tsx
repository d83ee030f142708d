import { useState, type FormEvent } from "react";
import { useMutation, useQuery } from "@tanstack/react-query";
import { ArrowRightLeft, Crown, LogOut, Trash2, UserPlus, Users } from "lucide-react";
import { useNavigate } from "react-router-dom";
import { useMe } from "../auth/useMe";
import { Alert } from "../components/Alert";
import { Button } from "../components/Button";
import { Card } from "../components/Card";
import { ConfirmDialog } from "../components/ConfirmDialog";
import { EmptyState } from "../components/EmptyState";
import { Spinner } from "../components/Spinner";
import { TextField } from "../components/TextField";
import { UserAvatar } from "../components/UserAvatar";
import { summarizeError } from "../lib/errors";
import { queryClient, trpc } from "../trpc";
import { noOrganizationPermissions, organizationPermissionInfo } from "./labels";
import type { Organization, OrganizationMember, OrganizationPermissionKey, OrganizationPermissions } from "./types";
import { Badge } from "./ui/Badge";
import { CheckboxField } from "./ui/CheckboxField";
import { FormDialog } from "./ui/FormDialog";
import { formProblem } from "./ui/form-errors";
import { SelectField } from "./ui/SelectField";
import { checkbox, TableFrame, tbody, td, tdCenter, th, thCenter } from "./ui/Table";

/** Organization membership also decides observatory access: refresh both. */
export async function refreshOrganizationData() {
  await Promise.all([queryClient.invalidateQueries(trpc.organizations.pathFilter()), queryClient.invalidateQueries(trpc.observatories.pathFilter())]);
}

export function OrganizationMembers({ organization }: { organization: Organization }) {
  const me = useMe();
  const navigate = useNavigate();
  const members = useQuery(trpc.organizations.members.queryOptions({ id: organization.id }, { staleTime: 0 }));
  const canManage = organization.myPermissions.can_manage_members;
  const isOwner = organization.myRole === "owner";
  const [removing, setRemoving] = useState<OrganizationMember | null>(null);
  const [transferring, setTransferring] = useState(false);
  const [notice, setNotice] = useState<string | null>(null);
  // Checkboxes show the change at once; the server's answer replaces it (or, on failure, the old value returns).
  const [pending, setPending] = useState<Record<string, Partial<OrganizationPermissions>>>({});
  const settle = (userId: string) => setPending(({ [userId]: _settled, ...rest }) => rest);

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
  const remove = useMutation(
    trpc.organizations.removeMember.mutationOptions({
      onSuccess: async (_result, input) => {
        const self = input.userId === me.data?.id;
        setRemoving(null);
        if (self) {
          // Gone from the organization: nothing here is visible any more.
          queryClient.removeQueries(trpc.organizations.get.queryFilter({ id: organization.id }));
          await refreshOrganizationData();
          navigate("/organizations", { replace: true });
          return;
        }
        const name = members.data?.items.find((member) => member.userId === input.userId)?.name;
        setNotice(`${name ?? "The member"} was removed.`);
        await refreshOrganizationData();
      },
    }),
  );

  const toggle = (member: OrganizationMember, key: OrganizationPermissionKey, value: boolean) => {
    setNotice(null);
    setPending((current) => ({ ...current, [member.userId]: { ...current[member.userId], [key]: value } }));
    update.mutate({ id: organization.id, userId: member.userId, permissions: { [key]: value } });
  };

  const items = members.data?.items ?? [];
  const transferCandidates = items.filter((member) => member.role !== "owner");
  const removingSelf = removing?.userId === me.data?.id;

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
        <p role="status" aria-live="polite" className="sr-only">
          {notice ?? ""}
        </p>
        {notice ? (
          <Alert tone="success" className="mb-3">
            {notice}
          </Alert>
        ) : null}
        {update.isError ? (
          <Alert tone="error" className="mb-3">
            Could not change permissions: {summarizeError(update.error).message}
          </Alert>
        ) : null}
        {members.isPending ? <Spinner label="Loading members" /> : null}
        {members.isError ? <Alert tone="error">Could not load members: {summarizeError(members.error).message}</Alert> : null}
        {members.data && items.length === 0 ? <EmptyState icon={Users} title="No members" /> : null}
        {items.length > 0 ? (
          <TableFrame label="Organization members">
            <thead className="bg-slate-50">
              <tr>
                <th scope="col" className={th}>Member</th>
                <th scope="col" className={th}>Role</th>
                {organizationPermissionInfo.map((info) => (
                  <th key={info.key} scope="col" className={thCenter} title={info.description}>
                    <span className="block min-w-16 normal-case">{info.label}</span>
                    {info.deprecated ? <span className="block text-[10px] font-medium tracking-normal text-amber-700 normal-case">deprecated</span> : null}
                  </th>
                ))}
                <th scope="col" className={th}>
                  <span className="sr-only">Actions</span>
                </th>
              </tr>
            </thead>
            <tbody className={tbody}>
              {items.map((member) => {
                const self = member.userId === me.data?.id;
                const owner = member.role === "owner";
                const busy = member.userId in pending;
                const permissions = { ...member.permissions, ...pending[member.userId] };
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
                        <Badge>Member</Badge>
                      )}
                    </td>
                    {organizationPermissionInfo.map((info) => (
                      <td key={info.key} className={tdCenter}>
                        <input
                          type="checkbox"
                          className={checkbox}
                          aria-label={`${info.label}${info.deprecated ? " (deprecated)" : ""} for ${member.name}`}
                          title={owner ? "The owner always has every permission" : info.description}
                          checked={permissions[info.key]}
                          disabled={owner || !canManage || busy}
                          onChange={(event) => toggle(member, info.key, event.target.checked)}
                        />
                      </td>
                    ))}
                    <td className={`${td} text-right whitespace-nowrap`}>
                      {self && !owner ? (
                        <Button variant="ghost" icon={<LogOut aria-hidden="true" className="size-4" />} onClick={() => { remove.reset(); setRemoving(member); }}>
                          Leave
                        </Button>
                      ) : !self && !owner && canManage ? (
                        <Button variant="ghost" aria-label={`Remove ${member.name}`} icon={<Trash2 aria-hidden="true" className="size-4 text-red-600" />} onClick={() => { remove.reset(); setRemoving(member); }}>
                          Remove
                        </Button>
                      ) : null}
                    </td>
                  </tr>
                );
              })}
            </tbody>
          </TableFrame>
        ) : null}
        {isOwner ? <p className="mt-2 text-sm text-slate-500">As the owner you cannot leave. Transfer ownership to another member first.</p> : null}
      </section>

      {canManage ? <AddMemberCard organizationId={organization.id} /> : null}

      <ConfirmDialog
        open={removing !== null}
        title={removingSelf ? "Leave organization?" : "Remove member?"}
        confirmLabel={removingSelf ? "Leave organization" : "Remove member"}
        busy={remove.isPending}
        error={remove.isError ? summarizeError(remove.error).message : null}
        onCancel={() => setRemoving(null)}
        onConfirm={() => removing && remove.mutate({ id: organization.id, userId: removing.userId })}
      >
        {removingSelf ? (
          <>
            You will lose access to <strong className="font-semibold text-slate-900">{organization.name}</strong> and to what you could reach through it, such as its observatories.
          </>
        ) : (
          <>
            <strong className="font-semibold text-slate-900">{removing?.name}</strong> will lose access to {organization.name} and everything it shares with its members.
          </>
        )}
      </ConfirmDialog>

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

function AddMemberCard({ organizationId }: { organizationId: string }) {
  const [email, setEmail] = useState("");
  const [added, setAdded] = useState<string | null>(null);
  const [permissions, setPermissions] = useState(noOrganizationPermissions);
  const [blank, setBlank] = useState<string | null>(null);
  const add = useMutation(
    trpc.organizations.addMember.mutationOptions({
      onSuccess: async (member) => {
        setEmail("");
        setPermissions(noOrganizationPermissions());
        setAdded(`${member.name} is now a member.`);
        await refreshOrganizationData();
      },
    }),
  );
  const problem = formProblem(add.error, { codeFields: { USER_NOT_FOUND: "email", ALREADY_MEMBER: "email" } });
  const emailError = blank ?? (problem?.code === "USER_NOT_FOUND" ? "No Meridian account uses this email address. Ask them to sign up first." : problem?.fieldErrors.email);
  const general = problem && !emailError ? problem.message : null;

  const submit = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    if (!email.trim()) {
      setBlank("Enter the email address of the person to add.");
      return add.reset();
    }
    setBlank(null);
    setAdded(null);
    add.mutate({ id: organizationId, email, permissions });
  };

  return (
    <Card title="Add a member" description="Enter the exact email address of their Meridian account.">
      <form onSubmit={submit} noValidate aria-label="Add a member" className="flex flex-col gap-4">
        {general ? <Alert tone="error">{general}</Alert> : null}
        {added ? <Alert tone="success">{added}</Alert> : null}
        <TextField label="Member email" type="email" name="email" autoComplete="off" required value={email} onChange={(e) => setEmail(e.target.value)} error={emailError} className="max-w-md" />
        <fieldset>
          <legend className="text-sm font-medium text-slate-700">Permissions</legend>
          <div className="mt-2 grid gap-3 sm:grid-cols-2">
            {organizationPermissionInfo.map((info) => (
              <CheckboxField
                key={info.key}
                label={
                  <>
                    {info.label}
                    {info.deprecated ? <Badge tone="amber" className="ml-2">Deprecated</Badge> : null}
                  </>
                }
                description={info.description}
                checked={permissions[info.key]}
                onChange={(checked) => setPermissions((current) => ({ ...current, [info.key]: checked }))}
              />
            ))}
          </div>
        </fieldset>
        <div>
          <Button type="submit" busy={add.isPending} icon={<UserPlus aria-hidden="true" className="size-4" />}>
            Add member
          </Button>
        </div>
      </form>
    </Card>
  );
}

function TransferOrganizationDialog({ organization, candidates, onClose, onTransferred }: { organization: Organization; candidates: OrganizationMember[]; onClose(): void; onTransferred(member: OrganizationMember): void }) {
  const [userId, setUserId] = useState("");
  const [blank, setBlank] = useState<string | null>(null);
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
      busy={transfer.isPending}
      error={problem && !problem.fieldErrors.userId ? problem.message : null}
      onSubmit={submit}
      onClose={onClose}
    >
      {candidates.length === 0 ? (
        <Alert tone="info">Add another member first: ownership can only go to a current member.</Alert>
      ) : (
        <SelectField label="New owner" value={userId} onChange={(e) => setUserId(e.target.value)} error={blank ?? problem?.fieldErrors.userId}>
          <option value="" disabled>
            Choose a member…
          </option>
          {candidates.map((member) => (
            <option key={member.userId} value={member.userId}>
              {member.name} ({member.email})
            </option>
          ))}
        </SelectField>
      )}
    </FormDialog>
  );
}
