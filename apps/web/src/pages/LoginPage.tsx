import { useState, type FormEvent } from "react";
import { useMutation } from "@tanstack/react-query";
import { Link, useLocation, useSearchParams } from "react-router-dom";
import { readLoginNotice } from "../auth/login-notice";
import { useAuthSuccess } from "../auth/useAuthSuccess";
import { AccountEmailField } from "../components/AccountEmailField";
import { Alert } from "../components/Alert";
import { Button } from "../components/Button";
import { SuccessNotice } from "../components/SuccessNotice";
import { TextField } from "../components/TextField";
import { AuthLayout } from "../layout/AuthLayout";
import { useDocumentTitle } from "../lib/document-title";
import { summarizeError } from "../lib/errors";
import { hasErrors, missingFields } from "../lib/required-fields";
import { trpc } from "../trpc";

export function LoginPage() {
  useDocumentTitle("Sign in");
  const [searchParams] = useSearchParams();
  // An invitation link sends its address along.
  const [email, setEmail] = useState(searchParams.get("email") ?? "");
  const [password, setPassword] = useState("");
  const [blank, setBlank] = useState<{ email?: string; password?: string }>({});
  const notice = readLoginNotice(useLocation().state);
  const onSuccess = useAuthSuccess();
  const login = useMutation(trpc.auth.login.mutationOptions({ onSuccess: (result) => onSuccess(result.user) }));
  const problem = login.error ? summarizeError(login.error) : null;

  const submit = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    const missing = missingFields({ email, password }, { email: "Enter your email address.", password: "Enter your password." });
    setBlank(missing);
    if (hasErrors(missing)) return login.reset();
    login.mutate({ email, password });
  };

  return (
    <AuthLayout
      title="Sign in"
      subtitle="Welcome back to your observatory network."
      footer={
        <>
          New to Meridian?{" "}
          <Link to={{ pathname: "/signup", search: searchParams.toString() }} className="font-semibold text-indigo-600 hover:text-indigo-500">
            Create an account
          </Link>
        </>
      }
    >
      <form onSubmit={submit} noValidate className="flex flex-col gap-4">
        {problem ? <Alert tone="error">{problem.message}</Alert> : <SuccessNotice message={notice} />}
        <AccountEmailField value={email} onChange={setEmail} error={blank.email ?? problem?.fieldErrors.email} />
        <TextField
          label="Password"
          type="password"
          name="password"
          autoComplete="current-password"
          required
          value={password}
          onChange={(e) => setPassword(e.target.value)}
          error={blank.password ?? problem?.fieldErrors.password}
        />
        <p className="-mt-2 text-right text-sm">
          <Link to="/forgot-password" className="font-semibold text-indigo-600 hover:text-indigo-500">
            Forgot password?
          </Link>
        </p>
        <Button type="submit" busy={login.isPending} className="w-full">
          Sign in
        </Button>
      </form>
    </AuthLayout>
  );
}
