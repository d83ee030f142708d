import { useState } from "react";
import { useMutation, useQuery } from "@tanstack/react-query";
import { FormDialog } from "../components/FormDialog";
import { NewOwnerSelect } from "../components/members/NewOwnerSelect";
import { OrganizationChoice, OTHER_ORGANIZATION } from "../components/members/OrganizationChoice";
import { isConfirmed, TypeToConfirm } from "../components/members/TypeToConfirm";
import { formProblem } from "../lib/form-errors";
import { useMyOrganizations } from "../organizations/useMyOrganizations";
import { trpc } from "../trpc";
import type { Observatory } from "./permissions";
import { refreshObservatories } from "./refresh";

export function TransferObservatoryDialog({
  observatory,
  onClose,
  onTransferred,
}: {
  observatory: Observatory;
  onClose(): void;
  onTransferred(name: string): void;
}) {
  const members = useQuery(trpc.observatories.members.queryOptions({ id: observatory.id }));
  const myOrganizations = useMyOrganizations();
  const [kind, setKind] = useState<"user" | "organization">("user");
  const [userId, setUserId] = useState("");
  const [organizationChoice, setOrganizationChoice] = useState("");
  const [otherId, setOtherId] = useState("");
  const [blank, setBlank] = useState<string | null>(null);
  const [typed, setTyped] = useState("");

  const owner = observatory.owner;
  const users = (members.data?.users ?? []).filter((user) => user.source === "direct" && !(owner.kind === "user" && owner.id === user.userId));
  const organizations = new Map<string, string>();
  for (const organization of members.data?.organizations ?? []) organizations.set(organization.organizationId, organization.name);
  for (const organization of myOrganizations.data?.items ?? []) organizations.set(organization.id, organization.name);
  if (owner.kind === "organization") organizations.delete(owner.id);

  const transfer = useMutation(
    trpc.observatories.transferOwnership.mutationOptions({
      onSuccess: async (_observatory, input) => {
        await refreshObservatories();
        const name = input.to.kind === "user" ? users.find((user) => user.userId === input.to.id)?.name : organizations.get(input.to.id);
        onTransferred(name ?? "the new owner");
      },
    }),
  );
  const field = kind === "user" ? "user" : "organization";
  const problem = formProblem(transfer.error, { codeFields: { NOT_A_MEMBER: field, NOT_FOUND: field } });
  const fieldError = blank ?? (problem?.code === "NOT_FOUND" && kind === "organization" ? "No organization has this ID." : problem?.fieldErrors[field]);
  const other = organizationChoice === OTHER_ORGANIZATION;
  const chosenUser = users.find((user) => user.userId === userId);
  // What the owner must type: the chosen user's email or name, or the organization's name; an
  // organization entered by ID is confirmed by typing that ID.
  const accepted =
    kind === "user"
      ? chosenUser
        ? [chosenUser.email, chosenUser.name]
        : []
      : other
        ? []
        : organizations.has(organizationChoice)
          ? [organizations.get(organizationChoice)]
          : [];
  const confirmed = kind === "organization" && other ? otherId.trim() !== "" : isConfirmed(typed, accepted);

  const submit = () => {
    const id = kind === "user" ? userId : other ? otherId.trim() : organizationChoice;
    if (!id) return setBlank(kind === "user" ? "Choose the new owner." : other ? "Enter the organization's ID." : "Choose an organization.");
    setBlank(null);
    transfer.mutate({ id: observatory.id, to: { kind, id } });
  };

  return (
    <FormDialog
      title="Transfer ownership"
      description={
        <>
          The new owner controls <strong className="font-semibold text-slate-700">{observatory.name}</strong>. A previous owning user keeps full access as a
          member; an organization that receives it becomes a member with every permission and cannot be removed while it owns it.
        </>
      }
      submitLabel="Transfer ownership"
      submitVariant="danger"
      submitDisabled={!confirmed}
      busy={transfer.isPending}
      error={problem && !fieldError ? problem.message : null}
      onSubmit={submit}
      onClose={onClose}
    >
      <fieldset>
        <legend className="text-sm font-medium text-slate-700">Transfer to</legend>
        <div className="mt-2 flex flex-col gap-2 sm:flex-row sm:gap-6">
          {(
            [
              ["user", "A user who is a member"],
              ["organization", "An organization"],
            ] as const
          ).map(([value, label]) => (
            <label key={value} className="flex items-center gap-2 text-sm text-slate-800">
              <input
                type="radio"
                name="transfer-kind"
                value={value}
                checked={kind === value}
                onChange={() => {
                  setKind(value);
                  setBlank(null);
                  transfer.reset();
                }}
                className="size-4 accent-indigo-600"
              />
              {label}
            </label>
          ))}
        </div>
      </fieldset>
      {kind === "user" ? (
        <NewOwnerSelect
          members={users}
          loading={members.isPending}
          value={userId}
          onChange={setUserId}
          error={fieldError ?? undefined}
          hint={users.length === 0 ? "Add the person as a user member first: ownership only goes to a member." : undefined}
        />
      ) : (
        <OrganizationChoice
          label="New owning organization"
          placeholder="Choose an organization…"
          organizations={[...organizations].map(([id, name]) => ({ id, name }))}
          choice={organizationChoice}
          onChoose={setOrganizationChoice}
          otherId={otherId}
          onOtherIdChange={setOtherId}
          error={fieldError ?? undefined}
        />
      )}
      <TypeToConfirm
        what={kind === "user" ? "the new owner's email or name" : "the organization's name"}
        accepted={accepted}
        value={typed}
        onChange={setTyped}
      />
    </FormDialog>
  );
}
