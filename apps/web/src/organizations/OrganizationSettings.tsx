import { useState, type FormEvent } from "react";
import { useMutation } from "@tanstack/react-query";
import { Alert } from "../components/Alert";
import { Card } from "../components/Card";
import { SaveFooter } from "../components/SaveFooter";
import { formProblem, generalMessage } from "../lib/form-errors";
import { trpc } from "../trpc";
import { missingOrganizationFields, OrganizationFields, organizationFormFields, type OrganizationFormValues } from "./OrganizationFields";
import { refreshOrganizationData } from "./refresh";
import type { Organization } from "./types";

const valuesOf = (organization: Organization): OrganizationFormValues => ({
  name: organization.name,
  shortName: organization.shortName,
  type: organization.type,
  description: organization.description ?? "",
  contactEmail: organization.contactEmail,
});

/** The owner's form for the organization's own details. */
export function OrganizationSettings({ organization }: { organization: Organization }) {
  const [values, setValues] = useState(() => valuesOf(organization));
  const [blank, setBlank] = useState<Record<string, string>>({});
  const save = useMutation(
    trpc.organizations.update.mutationOptions({
      onSuccess: async (saved) => {
        setValues(valuesOf({ ...organization, ...saved }));
        await refreshOrganizationData();
      },
    }),
  );
  const problem = formProblem(save.error, { prefix: "update", codeFields: { SHORT_NAME_TAKEN: "shortName" } });
  const errors = { ...problem?.fieldErrors, ...blank };
  const current = valuesOf(organization);
  const unchanged = (Object.keys(current) as Array<keyof OrganizationFormValues>).every((key) => current[key].trim() === values[key].trim());

  const submit = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    const missing = missingOrganizationFields(values);
    setBlank(missing);
    if (Object.keys(missing).length > 0) return save.reset();
    save.mutate({
      id: organization.id,
      update: {
        name: values.name,
        shortName: values.shortName,
        type: values.type || undefined,
        description: values.description.trim() ? values.description : null,
        contactEmail: values.contactEmail,
      },
    });
  };
  const general = generalMessage(problem, [...organizationFormFields]);

  return (
    <form onSubmit={submit} noValidate aria-label="Organization details">
      <Card
        title="Details"
        description="Shown to members. Only the owner changes them."
        footer={
          <SaveFooter saved={save.isSuccess} savedText="Details saved" busy={save.isPending} unchanged={unchanged}>
            Save details
          </SaveFooter>
        }
      >
        {general ? (
          <Alert tone="error" className="mb-4">
            {general}
          </Alert>
        ) : null}
        <OrganizationFields values={values} errors={errors} onChange={setValues} />
      </Card>
    </form>
  );
}
