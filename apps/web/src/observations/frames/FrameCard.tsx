import type { ReactNode } from "react";
import { FileX, ImageOff } from "lucide-react";
import { Badge, type BadgeTone } from "../../components/Badge";
import { Time } from "../../components/Time";
import { formatArcsec, formatEccentricity, formatOffset, rejectionWords, solveWords, takenAt, type Frame, type GradingLimits } from "./frame-words";

/** A file whose bytes are a frame, with what its analysis found. */
export interface FrameFile {
  id: string;
  filename: string;
  createdAt: string;
  missing?: boolean;
  frame: Frame;
}

/** Where a frame's preview image is: a file of the observation (`previewOfId` the frame). */
export interface PreviewFile {
  id: string;
  missing?: boolean;
}

/** Previews are files like any other, downloaded with the session cookie. */
const previewUrl = (preview: PreviewFile) => `/files/${preview.id}/download`;

function stateOf(frame: Frame): { tone: BadgeTone; label: string } {
  if (frame.status === "queued") return { tone: "sky", label: "Analysing…" };
  if (frame.status === "failed") return { tone: "amber", label: "Analysis failed" };
  if (frame.grade === "accepted") return { tone: "emerald", label: "Accepted" };
  if (frame.grade === "rejected") return { tone: "red", label: "Rejected" };
  return { tone: "slate", label: "Not graded" };
}

function FramePreview({ file, preview }: { file: FrameFile; preview: PreviewFile | undefined }) {
  const box = "flex aspect-[4/3] w-full items-center justify-center bg-slate-900";
  if (preview && !preview.missing && !file.missing) {
    return (
      <div className={box}>
        <img src={previewUrl(preview)} alt={`Preview of ${file.filename}`} loading="lazy" className="max-h-full max-w-full object-contain" />
      </div>
    );
  }
  const Icon = file.missing ? FileX : ImageOff;
  return (
    <div className={`${box} flex-col gap-1 text-slate-400`}>
      <Icon aria-hidden="true" className="size-8" />
      <span className="text-xs">{file.missing ? "Its bytes are gone" : file.frame.status === "queued" ? "Preview after its analysis" : "No preview yet"}</span>
    </div>
  );
}

function Measure({ label, children }: { label: string; children: ReactNode }) {
  return (
    <div className="min-w-0">
      <dt className="text-xs text-slate-500">{label}</dt>
      <dd className="text-sm font-medium text-slate-900 tabular-nums">{children}</dd>
    </div>
  );
}

/** What the frame is of, and when it was taken (else uploaded), in the observatory's zone. */
function FrameCaption({ file, timeZone }: { file: FrameFile; timeZone: string | undefined }) {
  const { frame } = file;
  const taken = takenAt(frame);
  const what = [frame.targetName, frame.header.filter, frame.header.exposureSeconds !== null ? `${frame.header.exposureSeconds} s` : null].filter(Boolean);
  return (
    <p className="text-xs text-slate-500">
      {what.length > 0 ? `${what.join(" · ")} · ` : null}
      {taken ? "Taken " : "Uploaded "}
      <Time iso={taken ?? file.createdAt} zone={timeZone} />
    </p>
  );
}

function Measures({ frame }: { frame: Frame }) {
  return (
    <dl className="grid grid-cols-3 gap-x-3 gap-y-2">
      <Measure label="Stars">{frame.stars ?? "—"}</Measure>
      <Measure label="FWHM">{formatArcsec(frame.fwhmArcsec)}</Measure>
      <Measure label="HFR">{formatArcsec(frame.hfrArcsec)}</Measure>
      <Measure label="Eccentricity">{formatEccentricity(frame.eccentricity)}</Measure>
      <Measure label="Pointing offset">{frame.pointingOffsetArcsec === null ? "—" : formatOffset(frame.pointingOffsetArcsec)}</Measure>
    </dl>
  );
}

/**
 * One frame: its preview (or a placeholder until there is one), its grade and measures, where it
 * points, and why it was rejected or could not be analysed, in words. `actions` holds what any
 * file has (its download, its deliveries).
 */
export function FrameCard({
  file,
  preview,
  timeZone,
  grading,
  actions,
}: {
  file: FrameFile;
  preview: PreviewFile | undefined;
  timeZone: string | undefined;
  grading: GradingLimits;
  actions?: ReactNode;
}) {
  const { frame } = file;
  const state = stateOf(frame);
  const rejected = frame.status === "analysed" && frame.grade === "rejected";
  return (
    <li aria-label={file.filename} className="flex min-w-0 flex-col overflow-hidden rounded-lg bg-white shadow-sm ring-1 ring-slate-200">
      <FramePreview file={file} preview={preview} />
      <div className="flex min-w-0 flex-1 flex-col gap-2 p-3">
        <div className="flex min-w-0 items-start justify-between gap-2">
          <p className="min-w-0 truncate text-sm font-medium text-slate-900" title={file.filename}>
            {file.filename}
          </p>
          <Badge tone={state.tone} className="shrink-0">
            {state.label}
          </Badge>
        </div>
        <FrameCaption file={file} timeZone={timeZone} />
        {frame.status === "queued" ? <p className="text-xs text-slate-600">Its stars are being measured and its position solved.</p> : null}
        {frame.status === "failed" ? (
          <p className="text-xs break-words text-red-700">Could not be analysed: {frame.failure ?? "the analysis ended without saying why"}</p>
        ) : null}
        {frame.status === "analysed" ? (
          <>
            <Measures frame={frame} />
            {frame.solution || !frame.rejectedFor.includes("NOT_SOLVED") ? <p className="text-xs break-words text-slate-600">{solveWords(frame)}</p> : null}
          </>
        ) : null}
        {rejected ? (
          <ul aria-label={`Why ${file.filename} was rejected`} className="flex list-disc flex-col gap-0.5 pl-4 text-xs break-words text-red-700">
            {frame.rejectedFor.map((code) => (
              <li key={code}>{rejectionWords(code, frame, grading)}</li>
            ))}
          </ul>
        ) : null}
        {actions}
      </div>
    </li>
  );
}
