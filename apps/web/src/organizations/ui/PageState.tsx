import type { ReactNode } from "react";
import { ArrowLeft, SearchX } from "lucide-react";
import { Link } from "react-router-dom";
import { Alert } from "../../components/Alert";
import { EmptyState } from "../../components/EmptyState";
import { Spinner } from "../../components/Spinner";
import { summarizeError } from "../../lib/errors";

export function BackLink({ to, children }: { to: string; children: ReactNode }) {
  return (
    <Link to={to} className="mb-3 inline-flex items-center gap-1 text-sm font-medium text-slate-500 hover:text-slate-700">
      <ArrowLeft aria-hidden="true" className="size-4" />
      {children}
    </Link>
  );
}

/** Loading, "not found" (the server answers 404 for what the caller may not see) and other failures. */
export function QueryState({ query, what, backTo, backLabel }: { query: { isPending: boolean; isError: boolean; error: unknown }; what: string; backTo: string; backLabel: string }) {
  if (query.isPending) return <Spinner label={`Loading ${what}`} />;
  if (!query.isError) return null;
  const problem = summarizeError(query.error);
  if (problem.code === "NOT_FOUND") {
    return (
      <EmptyState icon={SearchX} title={`This ${what} does not exist`}>
        It may have been removed, or you are not a member.{" "}
        <Link to={backTo} className="font-semibold text-indigo-600 hover:text-indigo-500">
          {backLabel}
        </Link>
      </EmptyState>
    );
  }
  return (
    <Alert tone="error">
      Could not load the {what}: {problem.message}
    </Alert>
  );
}
