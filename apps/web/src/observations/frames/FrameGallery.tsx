import { useId, type ReactNode } from "react";
import { FrameCard, type FrameFile, type PreviewFile } from "./FrameCard";
import type { GradingLimits } from "./frame-words";

/** How many of the frames were accepted, rejected, are waiting for analysis or failed it, in a line. */
function tally(frames: FrameFile[]): string {
  const count = (test: (file: FrameFile) => boolean) => frames.filter(test).length;
  const parts = [
    `${count((file) => file.frame.grade === "accepted" && file.frame.status === "analysed")} accepted`,
    `${count((file) => file.frame.grade === "rejected" && file.frame.status === "analysed")} rejected`,
  ];
  const queued = count((file) => file.frame.status === "queued");
  const failed = count((file) => file.frame.status === "failed");
  if (queued > 0) parts.push(`${queued} being analysed`);
  if (failed > 0) parts.push(`${failed} not analysable`);
  return `${frames.length} ${frames.length === 1 ? "frame" : "frames"}: ${parts.join(", ")}`;
}

/**
 * The observation's frames as a gallery of their previews, each with its grade and measures.
 * `previewOf` maps a frame's id to its preview file; `actions` adds what every file has.
 */
export function FrameGallery<File extends FrameFile>({
  frames,
  previewOf,
  timeZone,
  grading,
  actions,
}: {
  frames: File[];
  previewOf: ReadonlyMap<string, PreviewFile>;
  timeZone: string | undefined;
  grading: GradingLimits;
  actions?(file: File): ReactNode;
}) {
  const headingId = useId();
  return (
    <section aria-labelledby={headingId} className="mb-6">
      <h3 id={headingId} className="text-sm font-semibold text-slate-900">
        Frames
      </h3>
      <p className="mb-3 text-xs text-slate-500">{tally(frames)}</p>
      <ul aria-label="Frames" className="grid gap-3 sm:grid-cols-2">
        {frames.map((file) => (
          <FrameCard key={file.id} file={file} preview={previewOf.get(file.id)} timeZone={timeZone} grading={grading} actions={actions?.(file)} />
        ))}
      </ul>
    </section>
  );
}
