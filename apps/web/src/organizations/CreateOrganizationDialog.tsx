import { useState } from "react";
import { useMutation } from "@tanstack/react-query";
import { FormDialog } from "../components/FormDialog";
import { formProblem, generalMessage } from "../lib/form-errors";
import { queryClient, trpc } from "../trpc";
import {
  emptyOrganizationForm,
  missingOrganizationFields,
  OrganizationFields,
  organizationFormFields,
  type OrganizationFormValues,
} from "./OrganizationFields";
import type { OrganizationSummary } from "./types";

export function CreateOrganizationDialog({ onClose, onCreated }: { onClose(): void; onCreated(organization: OrganizationSummary): void }) {
  const [values, setValues] = useState<OrganizationFormValues>(emptyOrganizationForm);
  const [blank, setBlank] = useState<Record<string, string>>({});
  const create = useMutation(
    trpc.organizations.create.mutationOptions({
      onSuccess: async (organization) => {
        await queryClient.invalidateQueries(trpc.organizations.pathFilter());
        onCreated(organization);
      },
    }),
  );
  const problem = formProblem(create.error, { codeFields: { SHORT_NAME_TAKEN: "shortName" } });
  const errors = { ...problem?.fieldErrors, ...blank };

  const submit = () => {
    const missing = missingOrganizationFields(values);
    setBlank(missing);
    if (Object.keys(missing).length > 0) return create.reset();
    create.mutate({
      name: values.name,
      shortName: values.shortName,
      type: values.type as Exclude<OrganizationFormValues["type"], "">,
      description: values.description.trim() ? values.description : null,
      contactEmail: values.contactEmail,
    });
  };

  return (
    <FormDialog
      title="Create organization"
      description="You become its owner. You can add members once it exists."
      submitLabel="Create organization"
      busy={create.isPending}
      error={generalMessage(problem, [...organizationFormFields])}
      wide
      onSubmit={submit}
      onClose={onClose}
    >
      <OrganizationFields values={values} errors={errors} onChange={setValues} />
    </FormDialog>
  );
}
