import { useQuery } from "@tanstack/react-query";
import { Download, FileArchive, FileImage, FileX } from "lucide-react";
import { Badge } from "../components/Badge";
import { EmptyState } from "../components/EmptyState";
import { QueryState } from "../components/QueryState";
import { formatDateTime } from "../lib/format";
import type { RouterOutputs } from "../organizations/types";
import { trpc } from "../trpc";
import { FileDeliveries, useFileDeliveryUpdates } from "./FileDeliveries";
import { formatBytes } from "./labels";

type LostFile = RouterOutputs["observations"]["files"]["lost"][number];

const downloadUrl = (fileId: string) => `/files/${fileId}/download`;

/**
 * The observation's files with their previews as thumbnails, each downloadable (the session cookie
 * authorises the download); a file whose bytes are gone from storage says so instead.
 */
export function ObservationFiles({ observationId }: { observationId: string }) {
  const files = useQuery(trpc.observations.files.queryOptions({ id: observationId }, { staleTime: 0 }));
  useFileDeliveryUpdates(observationId);
  return (
    <QueryState
      query={files}
      loading="Loading files"
      error="Could not load files"
      isEmpty={(data) => data.items.length === 0 && data.lost.length === 0}
      empty={
        <EmptyState icon={FileImage} title="No files yet">
          The observatory uploads images as it takes them.
        </EmptyState>
      }
    >
      {(data) => {
        const previewOf = new Map(data.items.filter((file) => file.previewOfId).map((file) => [file.previewOfId!, file]));
        return (
          <>
            {data.items.some((file) => !file.missing) ? <DownloadAll observationId={observationId} /> : null}
            <ul className="grid gap-3 sm:grid-cols-2" aria-label="Files">
              {data.items
                .filter((file) => file.kind !== "preview")
                .map((file) => {
                  const preview = previewOf.get(file.id);
                  return (
                    <li key={file.id} className="flex min-w-0 items-center gap-3 rounded-lg bg-white p-3 shadow-sm ring-1 ring-slate-200">
                      {preview && !preview.missing && !file.missing ? (
                        <img src={downloadUrl(preview.id)} alt={`Preview of ${file.filename}`} className="size-16 rounded object-cover ring-1 ring-slate-200" />
                      ) : (
                        <span className="flex size-16 shrink-0 items-center justify-center rounded bg-slate-50 text-slate-400">
                          {file.missing ? <FileX aria-hidden="true" className="size-6" /> : <FileImage aria-hidden="true" className="size-6" />}
                        </span>
                      )}
                      <div className="min-w-0 flex-1">
                        <p className="truncate text-sm font-medium text-slate-900">{file.filename}</p>
                        <p className="text-xs text-slate-500">
                          {formatBytes(file.sizeBytes)} · {file.contentType}
                        </p>
                        {file.missing ? (
                          <p className="mt-1 text-xs text-red-700">
                            Its bytes are gone from storage: there is nothing to download. The observatory can upload it again.
                          </p>
                        ) : (
                          <p className="truncate font-mono text-xs text-slate-400" title="SHA-256">
                            {file.sha256.slice(0, 16)}…
                          </p>
                        )}
                        <FileDeliveries fileId={file.id} filename={file.filename} observationId={observationId} deliveries={file.deliveries} />
                      </div>
                      {file.missing ? (
                        <Badge tone="red" className="shrink-0">
                          Missing
                        </Badge>
                      ) : (
                        <a
                          href={downloadUrl(file.id)}
                          download={file.filename}
                          className={
                            "inline-flex items-center gap-1 rounded-md px-2 py-1.5 text-sm font-medium text-indigo-600 " +
                            "hover:bg-indigo-50 focus-visible:outline-2 focus-visible:outline-indigo-600"
                          }
                          aria-label={`Download ${file.filename}`}
                        >
                          <Download aria-hidden="true" className="size-4" />
                          Download
                        </a>
                      )}
                    </li>
                  );
                })}
              {data.lost.map((file) => (
                <LostFileItem key={file.fileId} file={file} />
              ))}
            </ul>
          </>
        );
      }}
    </QueryState>
  );
}

/** A file whose bytes were lost and whose record a repair removed: still named, with when that was found and settled. */
function LostFileItem({ file }: { file: LostFile }) {
  return (
    <li className="flex min-w-0 items-center gap-3 rounded-lg bg-white p-3 shadow-sm ring-1 ring-slate-200">
      <span className="flex size-16 shrink-0 items-center justify-center rounded bg-slate-50 text-slate-400">
        <FileX aria-hidden="true" className="size-6" />
      </span>
      <div className="min-w-0 flex-1">
        <p className="truncate text-sm font-medium text-slate-900">{file.filename}</p>
        <p className="text-xs text-slate-500">
          {formatBytes(file.sizeBytes)} · {file.contentType}
        </p>
        <p className="mt-1 text-xs text-red-700">
          Lost: its bytes were gone from storage when an integrity scan looked on{" "}
          <time dateTime={file.foundMissingAt}>{formatDateTime(file.foundMissingAt)}</time>, and its record was removed on{" "}
          <time dateTime={file.removedAt}>{formatDateTime(file.removedAt)}</time>. The observatory can upload it again.
        </p>
      </div>
      <Badge tone="red" className="shrink-0">
        Lost
      </Badge>
    </li>
  );
}

/** Every file the store still holds, as one ZIP streamed by the server (files it lost are named in MISSING.txt inside). */
function DownloadAll({ observationId }: { observationId: string }) {
  return (
    <p className="mb-3 flex justify-end">
      <a
        href={`/observations/${observationId}/files/archive`}
        download
        className={
          "inline-flex items-center gap-1.5 rounded-md px-2.5 py-1.5 text-sm font-medium text-indigo-600 ring-1 ring-slate-200 " +
          "hover:bg-indigo-50 focus-visible:outline-2 focus-visible:outline-indigo-600"
        }
      >
        <FileArchive aria-hidden="true" className="size-4" />
        Download all (ZIP)
      </a>
    </p>
  );
}
