import type { ReactNode } from "react";
import { ShieldOff } from "lucide-react";
import { Navigate, useLocation, useSearchParams } from "react-router-dom";
import { EmptyState } from "../components/EmptyState";
import { FullPageMessage } from "../components/FullPageMessage";
import { Spinner } from "../components/Spinner";
import { summarizeError } from "../lib/errors";
import { safeNextPath } from "./safe-next";
import { isServerAdmin, useMe } from "./useMe";

/** Signed-out visitors go to the login page, which sends them back here afterwards. */
export function RequireAuth({ children }: { children: ReactNode }) {
  const me = useMe();
  const location = useLocation();
  if (me.isPending)
    return (
      <FullPageMessage>
        <Spinner label="Loading your account" />
      </FullPageMessage>
    );
  if (me.isError) return <FullPageMessage>Could not reach the server: {summarizeError(me.error).message}</FullPageMessage>;
  if (!me.data) {
    const next = location.pathname + location.search;
    return <Navigate to={next && next !== "/" ? `/login?next=${encodeURIComponent(next)}` : "/login"} replace />;
  }
  return children;
}

/** Inside the app frame: anyone else who types the address is told why there is nothing here. */
export function RequireServerAdmin({ children }: { children: ReactNode }) {
  const me = useMe();
  if (!isServerAdmin(me.data)) {
    return (
      <EmptyState icon={ShieldOff} title="Server administrators only">
        This page is for the administrators of this Meridian server. Ask one of them if you need something changed.
      </EmptyState>
    );
  }
  return children;
}

/** Login and sign-up are for signed-out visitors; signed-in ones go on to the app. */
export function GuestOnly({ children }: { children: ReactNode }) {
  const me = useMe();
  const [searchParams] = useSearchParams();
  if (me.isPending)
    return (
      <FullPageMessage>
        <Spinner label="Loading" />
      </FullPageMessage>
    );
  if (me.data) return <Navigate to={safeNextPath(searchParams.get("next"))} replace />;
  return children;
}
