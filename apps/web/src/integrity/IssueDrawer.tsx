import { useMutation } from "@tanstack/react-query";
import { ArrowRight, Wrench } from "lucide-react";
import { Link } from "react-router-dom";
import { Alert } from "../components/Alert";
import { Badge } from "../components/Badge";
import { Button } from "../components/Button";
import { Drawer } from "../components/Drawer";
import { summarizeError } from "../lib/errors";
import { formatDateTime } from "../lib/format";
import { queryClient, trpc } from "../trpc";
import { diffLines, severityTone, typeLabel, type Issue } from "./labels";

const signStyle = { "-": "bg-red-50 text-red-800", "+": "bg-emerald-50 text-emerald-800", " ": "text-slate-600" } as const;
const signName = { "-": "removed", "+": "added", " ": "unchanged" } as const;

const documentPages: Record<string, { path: string; name: string }> = {
  observations: { path: "/observations", name: "observation" },
  observatories: { path: "/observatories", name: "observatory" },
  projects: { path: "/projects", name: "project" },
  organizations: { path: "/organizations", name: "organization" },
};

/** Where a person can look at what the issue is about: its observation (a file's), or the document's own page. */
function relatedLink(issue: Issue): { to: string; label: string } | null {
  if (issue.observationId) return { to: `/observations/${issue.observationId}`, label: "Open the observation" };
  const page = documentPages[issue.collection];
  return page ? { to: `${page.path}/${issue.documentId}`, label: `Open the ${page.name}` } : null;
}

/**
 * One issue: what was found, the exact change a repair makes (as a diff), the repair itself, and
 * what a person should do when a repair alone does not settle it, with a link to the document.
 */
export function IssueDrawer({ issue, onClose }: { issue: Issue; onClose(): void }) {
  const repair = useMutation(
    trpc.integrity.repairIssue.mutationOptions({
      onSuccess: async () => {
        await queryClient.invalidateQueries(trpc.integrity.issues.pathFilter());
      },
    }),
  );
  const current = repair.data ?? issue;
  const lines = current.fix ? diffLines(current.fix.changes) : [];
  const related = relatedLink(current);
  return (
    <Drawer
      title={current.code}
      description={<span className="break-all">{`${current.collection} · ${current.documentId}`}</span>}
      busy={repair.isPending}
      onClose={onClose}
    >
      <div className="flex flex-col gap-5">
        <div className="flex flex-wrap gap-2">
          <Badge tone={severityTone[current.severity]}>{current.severity}</Badge>
          <Badge>{typeLabel(current.type)}</Badge>
          <Badge tone={current.status === "repaired" ? "emerald" : "slate"}>{current.status}</Badge>
          {current.autoFixable ? <Badge tone="indigo">auto-fixable</Badge> : null}
        </div>
        <p className="text-sm wrap-anywhere text-slate-800">{current.message}</p>
        {current.nextStep ? (
          <section aria-labelledby="next-step-heading" className="flex flex-col gap-2 rounded-md bg-amber-50 p-3 ring-1 ring-amber-200 ring-inset">
            <h3 id="next-step-heading" className="text-sm font-semibold text-amber-900">
              What to do
            </h3>
            <p className="text-sm wrap-anywhere text-amber-900">{current.nextStep}</p>
          </section>
        ) : null}
        {related ? (
          <p>
            <Link
              to={related.to}
              className="inline-flex items-center gap-1 text-sm font-medium text-indigo-600 underline underline-offset-2 hover:no-underline"
            >
              {related.label} <ArrowRight aria-hidden="true" className="size-4" />
            </Link>
          </p>
        ) : null}
        {current.fix ? (
          <section aria-labelledby="fix-heading" className="flex flex-col gap-2">
            <h3 id="fix-heading" className="text-sm font-semibold text-slate-900">
              Proposed change
            </h3>
            <p className="text-sm text-slate-600">{current.fix.description}</p>
            <pre aria-label="The change as a diff" className="overflow-x-auto rounded-md text-xs ring-1 ring-slate-200">
              {lines.map((line, index) => (
                <div key={index} className={`px-3 py-0.5 font-mono ${signStyle[line.sign]}`}>
                  <span className="sr-only">{signName[line.sign]}: </span>
                  <span aria-hidden="true">{line.sign} </span>
                  {line.text}
                </div>
              ))}
            </pre>
          </section>
        ) : current.nextStep ? null : (
          <Alert tone="info">No automatic repair: look at the document{related ? " (linked above)" : ""} and correct it where it is edited.</Alert>
        )}
        {current.repair ? (
          <Alert tone={current.repair.verified ? "success" : "error"}>
            Repaired {formatDateTime(current.repair.at)}
            {current.repair.verified ? "; the check no longer finds it." : "; the check could not confirm it."}
          </Alert>
        ) : null}
        {repair.isError ? <Alert tone="error">{summarizeError(repair.error).message}</Alert> : null}
        {current.fix && current.status === "open" ? (
          <div>
            <Button icon={<Wrench aria-hidden="true" className="size-4" />} busy={repair.isPending} onClick={() => repair.mutate({ issueId: current.id })}>
              Repair this issue
            </Button>
            <p className="mt-2 text-xs text-slate-500">
              The document is read again first: if it changed since the scan, nothing is changed.
              {current.autoFixable ? "" : " This repair is never part of a bulk repair: choose it here, one issue at a time."}
            </p>
          </div>
        ) : null}
      </div>
    </Drawer>
  );
}
