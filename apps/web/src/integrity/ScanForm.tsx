import { useState } from "react";
import { useMutation, useQuery } from "@tanstack/react-query";
import { ScanSearch } from "lucide-react";
import { Button } from "../components/Button";
import { FormNotices } from "../components/FormNotices";
import { Card } from "../components/Card";
import { CheckboxField } from "../components/CheckboxField";
import { TextField } from "../components/TextField";
import { formProblem, generalMessage } from "../lib/form-errors";
import { asNumber } from "../lib/number-text";
import { queryClient, trpc } from "../trpc";
import type { Scan } from "./labels";

const quickCollections = ["observations", "projects"];

/**
 * Starts a scan. Quick: observations and projects, 100 documents each. Full: the chosen
 * collections, without a limit unless one is given, with the spec's options (all off by default).
 */
export function ScanForm({ onStarted }: { onStarted(scan: Scan): void }) {
  const [kind, setKind] = useState<"quick" | "full">("quick");
  const [chosen, setChosen] = useState<string[] | null>(null);
  const [limit, setLimit] = useState("");
  const [options, setOptions] = useState({ deepScan: false, checkStorage: false, verifyChecksums: false, checkHealth: false, includeTestData: false });
  const collections = useQuery(trpc.integrity.collections.queryOptions(undefined, { staleTime: 60_000 }));
  const all = collections.data?.items ?? [];
  const selected = chosen ?? all.map((collection) => collection.name);
  const start = useMutation(
    trpc.integrity.startScan.mutationOptions({
      onSuccess: async (scan) => {
        onStarted(scan);
        await queryClient.invalidateQueries(trpc.integrity.scans.pathFilter());
      },
    }),
  );
  const problem = formProblem(start.error);
  const general = generalMessage(problem, ["limitPerCollection", "collections"]);
  const option = (key: keyof typeof options, label: string, description: string) => (
    <CheckboxField label={label} description={description} checked={options[key]} onChange={(checked) => setOptions({ ...options, [key]: checked })} />
  );

  return (
    <form
      noValidate
      onSubmit={(event) => {
        event.preventDefault();
        start.mutate(
          kind === "quick" ? { kind, ...options } : { kind, ...options, collections: selected, limitPerCollection: limit.trim() ? asNumber(limit) : null },
        );
      }}
    >
      <Card
        title="Run a scan"
        description="Scans run in the background; you can leave this page and come back."
        footer={
          <Button
            type="submit"
            icon={<ScanSearch aria-hidden="true" className="size-4" />}
            busy={start.isPending}
            disabled={kind === "full" && selected.length === 0}
          >
            Start {kind} scan
          </Button>
        }
      >
        <FormNotices error={general} success={null} />
        <fieldset className="mb-4">
          <legend className="mb-2 text-sm font-medium text-slate-800">Kind</legend>
          <div className="flex flex-col gap-2 sm:flex-row sm:gap-6">
            {(
              [
                ["quick", `Quick: ${quickCollections.join(" and ")}, 100 documents each`],
                ["full", "Full: the collections you choose, every document"],
              ] as const
            ).map(([value, label]) => (
              <label key={value} className="flex items-center gap-2 text-sm text-slate-800">
                <input
                  type="radio"
                  name="scan-kind"
                  value={value}
                  checked={kind === value}
                  onChange={() => setKind(value)}
                  className="size-4 accent-indigo-600"
                />
                {label}
              </label>
            ))}
          </div>
        </fieldset>
        {kind === "full" ? (
          <div className="mb-4 flex flex-col gap-3">
            <fieldset>
              <legend className="mb-2 text-sm font-medium text-slate-800">Collections</legend>
              <div className="grid max-h-48 grid-cols-1 gap-1.5 overflow-y-auto rounded-md p-2 ring-1 ring-slate-200 sm:grid-cols-2">
                {all.map((collection) => (
                  <CheckboxField
                    key={collection.name}
                    label={`${collection.name} (${collection.exact ? "" : "~"}${collection.estimatedDocuments.toLocaleString()})`}
                    checked={selected.includes(collection.name)}
                    onChange={(checked) => setChosen(checked ? [...selected, collection.name] : selected.filter((name) => name !== collection.name))}
                  />
                ))}
              </div>
              {problem?.fieldErrors.collections ? <p className="mt-1 text-sm text-red-600">{problem.fieldErrors.collections}</p> : null}
            </fieldset>
            <TextField
              label="Limit per collection"
              hint="Empty: every document."
              inputMode="numeric"
              className="max-w-xs"
              value={limit}
              onChange={(event) => setLimit(event.target.value)}
              error={problem?.fieldErrors.limitPerCollection}
            />
          </div>
        ) : null}
        <div className="grid gap-3 sm:grid-cols-2">
          {option("deepScan", "Deep scan", "Check references across collections (owners, projects, observatories).")}
          {option("checkStorage", "Check object storage", "Compare file records with the objects in storage.")}
          {options.checkStorage
            ? option("verifyChecksums", "Verify checksums", "Read every object back and compare its SHA-256 (slow: limited to 32 MiB/s).")
            : null}
          {option("checkHealth", "Check system health", "Storage, server processes, job queue, disconnected observatories.")}
          {option("includeTestData", "Include test data", "Report test observations (id “test-…” or “test” in the name).")}
        </div>
      </Card>
    </form>
  );
}
