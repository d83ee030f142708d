import { DeleteCard } from "../components/DeleteCard";
import { trpc } from "../trpc";
import { refreshOrganizationData } from "./refresh";
import type { Organization } from "./types";

/** The owner deletes an organization that owns nothing; the server names what still blocks it. */
export function DeleteOrganizationCard({ organization }: { organization: Organization }) {
  return (
    <DeleteCard
      what="organization"
      name={organization.name}
      description="Possible once it owns no observatories and no projects: transfer or delete those first."
      consequences={
        <>
          <strong className="font-semibold text-slate-900">{organization.name}</strong> and its member list will be gone for good. Its members lose what they
          had through it, it leaves every observatory it is a member of, and its announcements stop showing: active ones are cancelled, acknowledged ones end.
        </>
      }
      mutation={trpc.organizations.delete.mutationOptions()}
      variables={{ id: organization.id }}
      leaveTo="/organizations"
      refresh={refreshOrganizationData}
    />
  );
}
