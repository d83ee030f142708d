import { useState, type FormEvent } from "react";
import { useMutation } from "@tanstack/react-query";
import { checkNewPassword, NewPasswordFields, type NewPasswordErrors, type NewPasswordValues } from "../auth/NewPasswordFields";
import { Alert } from "../components/Alert";
import { Button } from "../components/Button";
import { Card } from "../components/Card";
import { SuccessNotice } from "../components/SuccessNotice";
import { TextField } from "../components/TextField";
import { formProblem, generalMessage } from "../lib/form-errors";
import { hasErrors } from "../lib/required-fields";
import { queryClient, trpc } from "../trpc";

const empty = { currentPassword: "", newPassword: "", confirmation: "" };
const WRONG_CURRENT_PASSWORD = "That is not your current password.";

export function ChangePasswordCard() {
  const [values, setValues] = useState(empty);
  const [checked, setChecked] = useState<NewPasswordErrors & { currentPassword?: string }>({});
  const change = useMutation(
    trpc.user.changePassword.mutationOptions({
      onSuccess: async () => {
        setValues(empty);
        await queryClient.invalidateQueries(trpc.user.sessions.queryFilter());
      },
    }),
  );
  const problem = formProblem(change.error, { codeFields: { INVALID_CREDENTIALS: "currentPassword" } });
  const serverErrors = problem?.fieldErrors ?? {};
  const errors = {
    currentPassword: checked.currentPassword ?? (problem?.code === "INVALID_CREDENTIALS" ? WRONG_CURRENT_PASSWORD : serverErrors.currentPassword),
    newPassword: checked.newPassword ?? serverErrors.newPassword,
    confirmation: checked.confirmation,
  };
  const topMessage = generalMessage(problem, ["currentPassword", "newPassword"]);

  const submit = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    const found = { ...checkNewPassword(values), ...(values.currentPassword ? {} : { currentPassword: "Enter your current password." }) };
    setChecked(found);
    if (hasErrors(found)) return change.reset();
    change.mutate({ currentPassword: values.currentPassword, newPassword: values.newPassword });
  };

  return (
    <form onSubmit={submit} noValidate>
      <Card
        title="Password"
        description="Changing it signs you out everywhere else: other browsers and devices must sign in again."
        footer={
          <Button type="submit" busy={change.isPending}>
            Change password
          </Button>
        }
      >
        <div className="flex max-w-md flex-col gap-4">
          {topMessage ? <Alert tone="error">{topMessage}</Alert> : null}
          <SuccessNotice message={change.isSuccess ? "Your password was changed. Your other sessions were signed out." : null} />
          <TextField
            label="Current password"
            type="password"
            name="current-password"
            autoComplete="current-password"
            required
            value={values.currentPassword}
            onChange={(event) => setValues({ ...values, currentPassword: event.target.value })}
            error={errors.currentPassword}
          />
          <NewPasswordFields values={values} errors={errors} onChange={(next: NewPasswordValues) => setValues({ ...values, ...next })} />
        </div>
      </Card>
    </form>
  );
}
