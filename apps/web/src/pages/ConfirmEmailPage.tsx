import { useEffect, useRef } from "react";
import { useMutation } from "@tanstack/react-query";
import { Link, useSearchParams } from "react-router-dom";
import { Alert } from "../components/Alert";
import { Button } from "../components/Button";
import { Spinner } from "../components/Spinner";
import { AuthLayout } from "../layout/AuthLayout";
import { useDocumentTitle } from "../lib/document-title";
import { formProblem } from "../lib/form-errors";
import { queryClient, trpc } from "../trpc";

const linkClass = "font-semibold text-indigo-600 hover:text-indigo-500";

/**
 * The link mailed to a new address: it confirms the change as it opens (the token is the credential,
 * so it works signed out and in another browser) and says how that went.
 */
export function ConfirmEmailPage() {
  useDocumentTitle("Confirm your email address");
  const [searchParams] = useSearchParams();
  const token = searchParams.get("token") ?? "";
  const confirm = useMutation(
    trpc.auth.confirmEmailChange.mutationOptions({
      onSuccess: async () => {
        // A browser signed in as this account shows the new address at once.
        await Promise.all([
          queryClient.invalidateQueries(trpc.auth.me.queryFilter()),
          queryClient.invalidateQueries(trpc.user.pendingEmailChange.queryFilter()),
        ]);
      },
    }),
  );
  // Once per page, even where React runs effects twice: a second call would find the link used.
  const sent = useRef(false);
  useEffect(() => {
    if (!token || sent.current) return;
    sent.current = true;
    confirm.mutate({ token });
  }, [token, confirm]);
  const problem = formProblem(confirm.error);
  const invalidLink = !token || problem?.code === "INVALID_TOKEN";

  let body;
  if (invalidLink)
    body = (
      <Alert tone="error">
        This link is invalid or has expired. Links work once, for an hour, and a newer request replaces them.{" "}
        <Link to="/security" className={linkClass}>
          Ask for a new link
        </Link>
      </Alert>
    );
  else if (confirm.isSuccess)
    body = (
      <Alert tone="success">
        Your email address is now <strong className="break-all">{confirm.data.email}</strong>. Sign in with it from now on.
      </Alert>
    );
  else if (problem?.code === "EMAIL_TAKEN")
    body = (
      <Alert tone="error">
        Another account started using this address after you asked for the change, so your address stays as it was.{" "}
        <Link to="/security" className={linkClass}>
          Choose another address
        </Link>
      </Alert>
    );
  else if (problem)
    body = (
      <div className="flex flex-col gap-4">
        <Alert tone="error">{problem.message}</Alert>
        <Button onClick={() => confirm.mutate({ token })}>Try again</Button>
      </div>
    );
  else body = <Spinner label="Confirming your new email address" />;

  return (
    <AuthLayout
      title="Confirm your email address"
      footer={
        <span className="flex flex-wrap justify-center gap-x-4 gap-y-2">
          <Link to="/" className={linkClass}>
            Go to Meridian
          </Link>
          <Link to="/login" className={linkClass}>
            Sign in
          </Link>
        </span>
      }
    >
      {body}
    </AuthLayout>
  );
}
