import { useState, type ChangeEvent, type FormEvent } from "react";
import { useMutation } from "@tanstack/react-query";
import { Link, useSearchParams } from "react-router-dom";
import { useAuthSuccess } from "../auth/useAuthSuccess";
import { Alert } from "../components/Alert";
import { Button } from "../components/Button";
import { TextField } from "../components/TextField";
import { AuthLayout } from "../layout/AuthLayout";
import { summarizeError } from "../lib/errors";
import { hasErrors, missingFields } from "../lib/required-fields";
import { trpc } from "../trpc";
import { useDocumentTitle } from "../lib/document-title";

export function SignupPage() {
  useDocumentTitle("Create account");
  const [searchParams] = useSearchParams();
  // An invitation link sends its address along, so the account is made for the invited one, and its
  // token, which the server checks and which lets the invited address sign up where signup is closed.
  const [form, setForm] = useState({ name: "", email: searchParams.get("email") ?? "", password: "" });
  const [blank, setBlank] = useState<Partial<Record<keyof typeof form, string>>>({});
  const onSuccess = useAuthSuccess();
  const signup = useMutation(trpc.auth.signup.mutationOptions({ onSuccess: (result) => onSuccess(result.user) }));
  const problem = signup.error ? summarizeError(signup.error) : null;
  const fieldErrors: Record<string, string | undefined> = { ...problem?.fieldErrors, ...blank };
  // EMAIL_TAKEN names the email field; other failures without field errors go on top.
  const emailError = fieldErrors.email;
  const showTopAlert = problem && problem.code !== "EMAIL_TAKEN";

  const update = (field: keyof typeof form) => (event: ChangeEvent<HTMLInputElement>) => setForm((current) => ({ ...current, [field]: event.target.value }));
  const submit = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    const missing = missingFields(form, { name: "Enter your name.", email: "Enter your email address.", password: "Choose a password." });
    setBlank(missing);
    if (hasErrors(missing)) return signup.reset();
    const invitationToken = searchParams.get("invitation");
    signup.mutate(invitationToken ? { ...form, invitationToken } : form);
  };

  return (
    <AuthLayout
      title="Create your account"
      subtitle="Schedule observations across your network of robotic telescopes."
      footer={
        <>
          Already have an account?{" "}
          <Link to={{ pathname: "/login", search: searchParams.toString() }} className="font-semibold text-indigo-600 hover:text-indigo-500">
            Sign in
          </Link>
        </>
      }
    >
      <form onSubmit={submit} noValidate className="flex flex-col gap-4">
        {showTopAlert ? <Alert tone="error">{problem.message}</Alert> : null}
        <TextField label="Name" name="name" autoComplete="name" required value={form.name} onChange={update("name")} error={fieldErrors.name} />
        <TextField label="Email" type="email" name="email" autoComplete="email" required value={form.email} onChange={update("email")} error={emailError} />
        <TextField
          label="Password"
          type="password"
          name="password"
          autoComplete="new-password"
          required
          minLength={8}
          value={form.password}
          onChange={update("password")}
          error={fieldErrors.password}
          hint="At least 8 characters."
        />
        <Button type="submit" busy={signup.isPending} className="w-full">
          Create account
        </Button>
      </form>
    </AuthLayout>
  );
}
