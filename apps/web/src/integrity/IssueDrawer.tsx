import { useMutation } from "@tanstack/react-query";
import { Wrench } from "lucide-react";
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

/** One issue: what was found, the exact change a repair makes (as a diff), and the repair itself. */
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
  return (
    <Drawer title={current.code} description={<span className="break-all">{`${current.collection} · ${current.documentId}`}</span>} onClose={onClose}>
      <div className="flex flex-col gap-5">
        <div className="flex flex-wrap gap-2">
          <Badge tone={severityTone[current.severity]}>{current.severity}</Badge>
          <Badge>{typeLabel(current.type)}</Badge>
          <Badge tone={current.status === "repaired" ? "emerald" : "slate"}>{current.status}</Badge>
          {current.autoFixable ? <Badge tone="indigo">auto-fixable</Badge> : null}
        </div>
        <p className="text-sm text-slate-800">{current.message}</p>
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
        ) : (
          <Alert tone="info">No automatic repair: this needs a person to look at the document.</Alert>
        )}
        {current.repair ? (
          <Alert tone={current.repair.verified ? "success" : "error"}>
            Repaired {formatDateTime(current.repair.at)}
            {current.repair.verified ? "; the check no longer finds it." : "; the check could not confirm it."}
          </Alert>
        ) : null}
        {repair.isError ? <Alert tone="error">{summarizeError(repair.error).message}</Alert> : null}
        {current.autoFixable && current.status === "open" ? (
          <div>
            <Button icon={<Wrench aria-hidden="true" className="size-4" />} busy={repair.isPending} onClick={() => repair.mutate({ issueId: current.id })}>
              Repair this issue
            </Button>
            <p className="mt-2 text-xs text-slate-500">The document is read again first: if it changed since the scan, nothing is changed.</p>
          </div>
        ) : null}
      </div>
    </Drawer>
  );
}
