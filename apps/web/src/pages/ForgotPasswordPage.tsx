import { useState, type FormEvent } from "react";
import { useMutation } from "@tanstack/react-query";
import { Link } from "react-router-dom";
import { AccountEmailField } from "../components/AccountEmailField";
import { Alert } from "../components/Alert";
import { Button } from "../components/Button";
import { AuthLayout } from "../layout/AuthLayout";
import { useDocumentTitle } from "../lib/document-title";
import { formProblem, generalMessage } from "../lib/form-errors";
import { trpc } from "../trpc";

const linkClass = "font-semibold text-indigo-600 hover:text-indigo-500";

export function ForgotPasswordPage() {
  useDocumentTitle("Forgot password");
  const [email, setEmail] = useState("");
  const [blank, setBlank] = useState<string | undefined>();
  const request = useMutation(trpc.auth.requestPasswordReset.mutationOptions());
  const problem = formProblem(request.error);

  const submit = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    const missing = email.trim() ? undefined : "Enter your email address.";
    setBlank(missing);
    if (missing) return request.reset();
    request.mutate({ email: email.trim() });
  };

  return (
    <AuthLayout
      title="Reset your password"
      subtitle="We will email you a link to choose a new one."
      footer={
        <>
          Remembered it?{" "}
          <Link to="/login" className={linkClass}>
            Sign in
          </Link>
        </>
      }
    >
      {request.isSuccess ? (
        // The same answer whether or not the address has an account: the page must not tell.
        <Alert tone="success">
          If an account exists for that address, we sent a link to reset its password. The link works once and expires in an hour; check your spam folder if it
          does not arrive.
        </Alert>
      ) : (
        <form onSubmit={submit} noValidate className="flex flex-col gap-4">
          {generalMessage(problem, ["email"]) ? <Alert tone="error">{problem?.message}</Alert> : null}
          <AccountEmailField value={email} onChange={setEmail} error={blank ?? problem?.fieldErrors.email} />
          <Button type="submit" busy={request.isPending} className="w-full">
            Email me a reset link
          </Button>
        </form>
      )}
    </AuthLayout>
  );
}
