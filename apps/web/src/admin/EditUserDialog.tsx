import { useState } from "react";
import { useMutation } from "@tanstack/react-query";
import { FormDialog } from "../components/FormDialog";
import { TextField } from "../components/TextField";
import { formProblem, generalMessage } from "../lib/form-errors";
import { hasErrors, missingFields } from "../lib/required-fields";
import { queryClient, trpc } from "../trpc";
import type { AdminUser } from "./user-changes";

/**
 * A server admin corrects an account's name and sign-in email. The server checks both as at signup and
 * refuses an address another account uses (EMAIL_TAKEN, shown on the field); a new address is told to
 * the old one, the new one is told it signs in there now, and the account stays signed in.
 */
export function EditUserDialog({ user, self, onClose, onSaved }: { user: AdminUser; self: boolean; onClose(): void; onSaved(user: AdminUser): void }) {
  const [form, setForm] = useState({ name: user.name, email: user.email });
  const [blank, setBlank] = useState<Partial<Record<keyof typeof form, string>>>({});
  const save = useMutation(
    trpc.admin.updateUser.mutationOptions({
      onSuccess: async (saved) => {
        await queryClient.invalidateQueries(trpc.admin.users.pathFilter());
        // The account menu shows one's own name and email.
        if (self) await queryClient.invalidateQueries(trpc.auth.me.queryFilter());
        onSaved(saved);
      },
    }),
  );
  const problem = formProblem(save.error, { codeFields: { EMAIL_TAKEN: "email" } });
  const errors: Record<string, string | undefined> = { ...problem?.fieldErrors, ...blank };

  const submit = () => {
    const missing = missingFields(form, { name: "Enter a name.", email: "Enter an email address." });
    setBlank(missing);
    if (hasErrors(missing)) return save.reset();
    save.mutate({ id: user.id, name: form.name, email: form.email });
  };

  return (
    <FormDialog
      title="Edit user"
      description={`Correct the name and email of ${self ? "your account" : user.name}. Sessions stay signed in.`}
      submitLabel="Save changes"
      busy={save.isPending}
      error={generalMessage(problem, ["name", "email"])}
      onSubmit={submit}
      onClose={onClose}
    >
      <TextField
        label="Name"
        name="name"
        autoComplete="off"
        required
        maxLength={100}
        value={form.name}
        onChange={(event) => setForm((current) => ({ ...current, name: event.target.value }))}
        error={errors.name}
      />
      <TextField
        label="Email"
        type="email"
        name="email"
        autoComplete="off"
        required
        maxLength={254}
        value={form.email}
        onChange={(event) => setForm((current) => ({ ...current, email: event.target.value }))}
        error={errors.email}
        hint="The address this account signs in with. When it changes, both the old and the new address are told."
      />
    </FormDialog>
  );
}
