import { useState, type FormEvent } from "react";
import { useMutation } from "@tanstack/react-query";
import { Link, useNavigate, useSearchParams } from "react-router-dom";
import { checkNewPassword, NewPasswordFields, type NewPasswordErrors } from "../auth/NewPasswordFields";
import { loginNoticeState } from "../auth/login-notice";
import { resetSessionCache } from "../auth/session-cache";
import { Alert } from "../components/Alert";
import { Button } from "../components/Button";
import { AuthLayout } from "../layout/AuthLayout";
import { useDocumentTitle } from "../lib/document-title";
import { formProblem, generalMessage } from "../lib/form-errors";
import { hasErrors } from "../lib/required-fields";
import { trpc } from "../trpc";

const linkClass = "font-semibold text-indigo-600 hover:text-indigo-500";

function InvalidLink() {
  return (
    <Alert tone="error">
      This link is invalid or has expired. Reset links work once, for an hour.{" "}
      <Link to="/forgot-password" className={linkClass}>
        Request a new link
      </Link>
    </Alert>
  );
}

export function ResetPasswordPage() {
  useDocumentTitle("Choose a new password");
  const [searchParams] = useSearchParams();
  const token = searchParams.get("token") ?? "";
  const navigate = useNavigate();
  const [values, setValues] = useState({ newPassword: "", confirmation: "" });
  const [checked, setChecked] = useState<NewPasswordErrors>({});
  const confirm = useMutation(
    trpc.auth.confirmPasswordReset.mutationOptions({
      onSuccess: async () => {
        // Every session of that account has ended, this browser's too if it was signed in as them.
        resetSessionCache(null);
        await navigate("/login", { replace: true, state: loginNoticeState("Your password was changed. Sign in with the new one.") });
      },
    }),
  );
  const problem = formProblem(confirm.error);
  const invalidLink = !token || problem?.code === "INVALID_TOKEN";

  const submit = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    const found = checkNewPassword(values);
    setChecked(found);
    if (hasErrors(found)) return confirm.reset();
    confirm.mutate({ token, newPassword: values.newPassword });
  };

  return (
    <AuthLayout
      title="Choose a new password"
      footer={
        <Link to="/login" className={linkClass}>
          Back to sign in
        </Link>
      }
    >
      {invalidLink ? (
        <InvalidLink />
      ) : (
        <form onSubmit={submit} noValidate className="flex flex-col gap-4">
          {generalMessage(problem, ["newPassword"]) ? <Alert tone="error">{problem?.message}</Alert> : null}
          <NewPasswordFields
            values={values}
            errors={{ newPassword: checked.newPassword ?? problem?.fieldErrors.newPassword, confirmation: checked.confirmation }}
            onChange={setValues}
          />
          <Button type="submit" busy={confirm.isPending} className="w-full">
            Set new password
          </Button>
        </form>
      )}
    </AuthLayout>
  );
}
