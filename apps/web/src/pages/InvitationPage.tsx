import { useMutation, useQuery } from "@tanstack/react-query";
import { Link, useNavigate, useParams } from "react-router-dom";
import { useMe } from "../auth/useMe";
import { useSignOut } from "../auth/useSignOut";
import { Alert } from "../components/Alert";
import { Button, buttonClass } from "../components/Button";
import { Spinner } from "../components/Spinner";
import { AuthLayout } from "../layout/AuthLayout";
import { useDocumentTitle } from "../lib/document-title";
import { summarizeError } from "../lib/errors";
import { queryClient, trpc } from "../trpc";

const linkClass = "font-semibold text-indigo-600 hover:text-indigo-500";
const invitedAddress = "font-semibold break-all text-slate-700";
const places = { organization: "organizations", observatory: "observatories", project: "projects" } as const;
const nouns = { organization: "organization", observatory: "observatory", project: "project" } as const;

/**
 * Where an emailed invitation link lands, signed in or not: what it is for and from whom; then
 * sign in or sign up with the invited address (the email pre-filled), and join with one press.
 */
export function InvitationPage() {
  useDocumentTitle("Invitation");
  const token = useParams().token ?? "";
  const navigate = useNavigate();
  const me = useMe();
  const preview = useQuery(trpc.invitations.preview.queryOptions({ token }, { retry: false, staleTime: 0 }));
  const signOut = useSignOut();
  const accept = useMutation(
    trpc.invitations.accept.mutationOptions({
      onSuccess: async (joined) => {
        // The new membership changes the lists the app shows (organizations, observatories, projects).
        await queryClient.invalidateQueries();
        await navigate(`/${places[joined.kind]}/${joined.id}`, { replace: true });
      },
    }),
  );

  if (preview.isPending || me.isPending) return <Spinner label="Loading the invitation" />;
  if (preview.isError) {
    return (
      <AuthLayout
        title="Invitation"
        footer={
          <Link to="/" className={linkClass}>
            Go to Meridian
          </Link>
        }
      >
        <Alert tone="error">{summarizeError(preview.error).message} Ask whoever invited you to send a new invitation.</Alert>
      </AuthLayout>
    );
  }

  const invitation = preview.data;
  const noun = nouns[invitation.kind];
  const here = `/invitations/${encodeURIComponent(token)}`;
  // The token lets the invited address sign up on a server where anyone else may not; the sign-in
  // page hands it on to its own "create account" link.
  const next = new URLSearchParams({ next: here, email: invitation.email, invitation: token }).toString();
  const signedIn = me.data ?? null;
  const sameAddress = signedIn !== null && signedIn.email.toLowerCase() === invitation.email.toLowerCase();

  return (
    <AuthLayout
      title={`Join ${invitation.name}`}
      footer={
        <>
          Not expecting this? Ignore it: the link stops working on its own.{" "}
          <Link to="/" className={linkClass}>
            Go to Meridian
          </Link>
        </>
      }
      subtitle={
        <>
          {invitation.invitedBy} invited <strong className={invitedAddress}>{invitation.email}</strong> to the {noun} {invitation.name} on Meridian.
        </>
      }
    >
      <div className="flex flex-col gap-4">
        {accept.isError ? <Alert tone="error">{summarizeError(accept.error).message}</Alert> : null}
        {signedIn === null ? (
          invitation.accountExists ? (
            <>
              <p className="text-sm text-slate-600">An account already uses this address. Sign in with it to accept.</p>
              <Link to={`/login?${next}`} className={buttonClass("primary", "w-full")}>
                Sign in to accept
              </Link>
              <Link to="/forgot-password" className={`text-sm ${linkClass}`}>
                Forgot your password?
              </Link>
            </>
          ) : (
            <>
              <p className="text-sm text-slate-600">Create your Meridian account with this address; you join as soon as you accept.</p>
              <Link to={`/signup?${next}`} className={buttonClass("primary", "w-full")}>
                Create your account
              </Link>
              <p className="text-sm text-slate-500">
                Created it already?{" "}
                <Link to={`/login?${next}`} className={linkClass}>
                  Sign in
                </Link>
              </p>
            </>
          )
        ) : sameAddress ? (
          <Button className="w-full" busy={accept.isPending} onClick={() => accept.mutate({ token })}>
            Join the {noun}
          </Button>
        ) : (
          <>
            <Alert tone="info">
              You are signed in as <span className="break-all">{signedIn.email}</span>, but this invitation is for{" "}
              <span className="break-all">{invitation.email}</span>. Sign out and sign in (or sign up) with the invited address.
            </Alert>
            <Button variant="secondary" className="w-full" busy={signOut.isPending} onClick={() => signOut.mutate()}>
              Sign out
            </Button>
          </>
        )}
      </div>
    </AuthLayout>
  );
}
