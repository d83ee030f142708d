import { useEffect, useRef } from "react";
import { useQuery } from "@tanstack/react-query";
import { Download, FileArchive, FileImage, FileX } from "lucide-react";
import { Badge } from "../components/Badge";
import { EmptyState } from "../components/EmptyState";
import { QueryState } from "../components/QueryState";
import { formatDateTime } from "../lib/format";
import type { RouterOutputs } from "../organizations/types";
import { queryClient, trpc } from "../trpc";
import { FileDeliveries, useFileDeliveryUpdates } from "./FileDeliveries";
import { FrameGallery } from "./frames/FrameGallery";
import { framePollInterval, queuedFrames } from "./frames/frame-polling";
import type { GradingLimits } from "./frames/frame-words";
import { formatBytes } from "./labels";

type LostFile = RouterOutputs["observations"]["files"]["lost"][number];

const downloadUrl = (fileId: string) => `/files/${fileId}/download`;

type ObservationFile = RouterOutputs["observations"]["files"]["items"][number];
type FrameFile = ObservationFile & { frame: NonNullable<ObservationFile["frame"]> };

const isFrame = (file: ObservationFile): file is FrameFile => file.frame !== null && file.kind !== "preview";

function DownloadLink({ file }: { file: ObservationFile }) {
  return (
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
  );
}

const goneFromStorage = "Its bytes are gone from storage: there is nothing to download. The observatory can upload it again.";

/** Under a frame of the gallery: what every file has, its download (or why there is none) and its deliveries. */
function FrameFileActions({ file, observationId }: { file: ObservationFile; observationId: string }) {
  return (
    <div className="mt-auto flex min-w-0 flex-col gap-1">
      {file.missing ? <p className="text-xs text-red-700">{goneFromStorage}</p> : null}
      <FileDeliveries fileId={file.id} filename={file.filename} observationId={observationId} deliveries={file.deliveries} />
      <div className="flex items-center justify-between gap-2">
        <span className="text-xs text-slate-500">{formatBytes(file.sizeBytes)}</span>
        {file.missing ? <Badge tone="red">Missing</Badge> : <DownloadLink file={file} />}
      </div>
    </div>
  );
}

/**
 * The observation's files: its frames as a gallery of their previews with what their analysis
 * found, then the other files with their previews as thumbnails; each downloadable (the session
 * cookie authorises the download), a file whose bytes are gone from storage saying so instead.
 * No event says a frame's analysis ended, so the list is read again while one waits for it, and
 * the observation (its progress) when one is done.
 */
export function ObservationFiles({ observationId, timeZone, grading }: { observationId: string; timeZone: string | undefined; grading: GradingLimits }) {
  const files = useQuery(
    trpc.observations.files.queryOptions({ id: observationId }, { staleTime: 0, refetchInterval: (query) => framePollInterval(query.state.data?.items) }),
  );
  useFileDeliveryUpdates(observationId);
  useProgressAfterAnalyses(observationId, files.data?.items);
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
        const frames = data.items.filter(isFrame);
        const others = data.items.filter((file) => file.kind !== "preview" && !isFrame(file));
        return (
          <>
            {data.items.some((file) => !file.missing) ? <DownloadAll observationId={observationId} /> : null}
            {frames.length > 0 ? (
              <FrameGallery
                frames={frames}
                previewOf={previewOf}
                timeZone={timeZone}
                grading={grading}
                actions={(file) => <FrameFileActions file={file} observationId={observationId} />}
              />
            ) : null}
            {frames.length > 0 && (others.length > 0 || data.lost.length > 0) ? (
              <h3 className="mb-3 text-sm font-semibold text-slate-900">Other files</h3>
            ) : null}
            {others.length > 0 || data.lost.length > 0 ? (
              <ul className="grid gap-3 sm:grid-cols-2" aria-label="Files">
                {others.map((file) => {
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
                          <p className="mt-1 text-xs text-red-700">{goneFromStorage}</p>
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
                        <DownloadLink file={file} />
                      )}
                    </li>
                  );
                })}
                {data.lost.map((file) => (
                  <LostFileItem key={file.fileId} file={file} />
                ))}
              </ul>
            ) : null}
          </>
        );
      }}
    </QueryState>
  );
}

/** When a frame's analysis ends, its grade counts toward the observation's progress: the observation is read again. */
function useProgressAfterAnalyses(observationId: string, items: ObservationFile[] | undefined) {
  const queued = queuedFrames(items);
  const before = useRef(queued);
  useEffect(() => {
    if (queued < before.current) void queryClient.invalidateQueries(trpc.observations.get.queryFilter({ id: observationId }));
    before.current = queued;
  }, [queued, observationId]);
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
