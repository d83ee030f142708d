import { useState, type FormEvent } from "react";
import { useMutation, useQuery } from "@tanstack/react-query";
import { useMe } from "../auth/useMe";
import { Alert } from "../components/Alert";
import { Button } from "../components/Button";
import { Card } from "../components/Card";
import { SuccessNotice } from "../components/SuccessNotice";
import { TextField } from "../components/TextField";
import { formatDateTime } from "../lib/format";
import { formProblem, generalMessage } from "../lib/form-errors";
import { hasErrors, missingFields } from "../lib/required-fields";
import { queryClient, trpc } from "../trpc";

const empty = { email: "", currentPassword: "" };
const WRONG_CURRENT_PASSWORD = "That is not your current password.";
const refreshPending = () => queryClient.invalidateQueries(trpc.user.pendingEmailChange.queryFilter());

/** The sign-in address: shown, and changed only once the link mailed to the new address is opened. */
export function EmailCard() {
  const me = useMe();
  const pending = useQuery(trpc.user.pendingEmailChange.queryOptions());
  const [values, setValues] = useState(empty);
  const [checked, setChecked] = useState<{ email?: string; currentPassword?: string }>({});
  const [notice, setNotice] = useState<string | null>(null);
  const request = useMutation(
    trpc.user.requestEmailChange.mutationOptions({
      onSuccess: async (_data, variables) => {
        setValues(empty);
        setNotice(`We sent a link to ${variables.email}. Open it within an hour to confirm the change.`);
        await refreshPending();
      },
    }),
  );
  const cancel = useMutation(
    trpc.user.cancelEmailChange.mutationOptions({
      onSuccess: async () => {
        request.reset();
        setNotice("The change was cancelled: the link sent to the new address no longer works.");
        await refreshPending();
      },
    }),
  );
  const problem = formProblem(request.error, { codeFields: { INVALID_CREDENTIALS: "currentPassword", EMAIL_TAKEN: "email" } });
  const serverErrors = problem?.fieldErrors ?? {};
  const errors = {
    email: checked.email ?? serverErrors.email,
    currentPassword: checked.currentPassword ?? (problem?.code === "INVALID_CREDENTIALS" ? WRONG_CURRENT_PASSWORD : serverErrors.currentPassword),
  };
  const topMessage = generalMessage(problem, ["email", "currentPassword"]);
  const waiting = pending.data?.pendingEmail ? pending.data : null;

  const submit = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    const email = values.email.trim();
    const found = missingFields(values, { email: "Enter the new email address.", currentPassword: "Enter your current password." });
    setChecked(found);
    setNotice(null);
    if (hasErrors(found)) return request.reset();
    request.mutate({ email, currentPassword: values.currentPassword });
  };

  return (
    <form onSubmit={submit} noValidate aria-label="Change email">
      <Card
        title="Email"
        description="You sign in with this address, and Meridian writes to it. A new address takes effect once you open the link we send there."
        footer={
          <Button type="submit" busy={request.isPending}>
            Change email
          </Button>
        }
      >
        <div className="flex max-w-md flex-col gap-4">
          <p className="text-sm text-slate-700">
            Current address: <strong className="break-all font-medium text-slate-900">{me.data?.email ?? "…"}</strong>
          </p>
          {waiting ? (
            <div className="flex flex-col gap-3 rounded-md bg-sky-50 p-3 text-sm text-sky-800 ring-1 ring-sky-200 ring-inset">
              <p>
                Waiting for confirmation of <strong className="break-all font-medium">{waiting.pendingEmail}</strong>: open the link we sent there before{" "}
                {formatDateTime(waiting.expiresAt)}. Until then you sign in with your current address.
              </p>
              <div>
                <Button variant="secondary" busy={cancel.isPending} onClick={() => cancel.mutate()}>
                  Cancel the change
                </Button>
              </div>
            </div>
          ) : null}
          {cancel.error ? <Alert tone="error">Could not cancel the change. Try again.</Alert> : null}
          {topMessage ? <Alert tone="error">{topMessage}</Alert> : null}
          <SuccessNotice message={notice} />
          <TextField
            label="New email"
            type="email"
            name="new-email"
            autoComplete="email"
            required
            value={values.email}
            onChange={(event) => setValues({ ...values, email: event.target.value })}
            error={errors.email}
          />
          <TextField
            label="Your password"
            hint="Your current password, to show it is you."
            type="password"
            name="email-current-password"
            autoComplete="current-password"
            required
            value={values.currentPassword}
            onChange={(event) => setValues({ ...values, currentPassword: event.target.value })}
            error={errors.currentPassword}
          />
        </div>
      </Card>
    </form>
  );
}
