import { useEffect, useRef, useState } from "react";
import { FileArchive } from "lucide-react";
import { Alert } from "../components/Alert";
import { Button } from "../components/Button";
import { summarizeError } from "../lib/errors";
import { downloadFrameArchive } from "./frame-archive";
import { MAX_ARCHIVE_FRAMES, type FrameSelection } from "./useFrameSelection";

const plural = (count: number) => `${count} frame${count === 1 ? "" : "s"}`;

/**
 * Above the results: "Select all on page" (mixed while some are), how many are selected out of the
 * download's bound, and the download of the selection as one ZIP; a refused download says why.
 */
export function FrameDownloadBar({
  shown,
  selection,
  download = downloadFrameArchive,
}: {
  shown: number;
  selection: FrameSelection;
  download?(fileIds: readonly string[]): Promise<void>;
}) {
  const allRef = useRef<HTMLInputElement>(null);
  const [busy, setBusy] = useState(false);
  const [problem, setProblem] = useState<string | null>(null);
  const count = selection.ids.length;
  const all = count > 0 && count === Math.min(shown, MAX_ARCHIVE_FRAMES);
  useEffect(() => {
    if (allRef.current) allRef.current.indeterminate = count > 0 && !all;
  }, [count, all]);

  const start = async () => {
    setBusy(true);
    setProblem(null);
    try {
      await download(selection.ids);
    } catch (error) {
      setProblem(summarizeError(error).message);
    } finally {
      setBusy(false);
    }
  };

  return (
    <section aria-label="Download" className="mb-3 space-y-2">
      <div className="flex flex-wrap items-center gap-x-4 gap-y-2 rounded-lg bg-white px-4 py-3 text-sm shadow-sm ring-1 ring-slate-200">
        <label className="inline-flex items-center gap-2 font-medium text-slate-700">
          <input
            ref={allRef}
            type="checkbox"
            className="size-4 rounded border-slate-300 accent-indigo-600"
            checked={all}
            disabled={shown === 0}
            onChange={(event) => selection.setAll(event.target.checked)}
          />
          Select all on page
        </label>
        <p className="text-slate-600" role="status">
          {count === 0 ? "No frame selected" : `${plural(count)} selected`} (at most {MAX_ARCHIVE_FRAMES} in one download)
          {selection.capped ? `: the first ${MAX_ARCHIVE_FRAMES} shown are selected.` : ""}
        </p>
        <Button
          variant="secondary"
          className="sm:ml-auto"
          icon={<FileArchive aria-hidden="true" className="size-4" />}
          busy={busy}
          disabled={count === 0}
          onClick={() => void start()}
        >
          {count === 0 ? "Download selected (ZIP)" : `Download ${plural(count)} (ZIP)`}
        </Button>
      </div>
      {problem ? <Alert tone="error">Could not download the frames: {problem}</Alert> : null}
    </section>
  );
}
