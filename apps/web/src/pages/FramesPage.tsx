import { useQuery } from "@tanstack/react-query";
import { useSearchParams } from "react-router-dom";
import { Alert } from "../components/Alert";
import { LoadMoreButton } from "../components/LoadMoreButton";
import { PageHeader } from "../components/PageHeader";
import { QueryState } from "../components/QueryState";
import { FrameDownloadBar } from "../frames/FrameDownloadBar";
import { FrameResults } from "../frames/FrameResults";
import { frameSearchInput, frameSearchOf, frameSearchParams, isNarrowed, type FrameSearchInput, type FrameSearchView } from "../frames/frame-search";
import { FrameSearchForm } from "../frames/FrameSearchForm";
import { FramesEmpty } from "../frames/FramesEmpty";
import { useFrameSelection } from "../frames/useFrameSelection";
import { useFrameSurroundings } from "../frames/useFrameSurroundings";
import { useDocumentTitle } from "../lib/document-title";
import { pageInput, useCursorPages } from "../lib/useCursorPages";
import { trpc, trpcClient } from "../trpc";

const PAGE_SIZE = 50;

/** Frames found by where they point on the sky and by filters; the search lives in the URL, so it can be shared and reloaded. */
export function FramesPage() {
  useDocumentTitle("Frames");
  const [params, setParams] = useSearchParams();
  const view = frameSearchOf(params);
  const { input, errors } = frameSearchInput(view);
  const observatories = useQuery(trpc.observatories.list.queryOptions({ limit: 200 }));
  const projects = useQuery(trpc.projects.list.queryOptions(undefined));
  const show = (next: FrameSearchView) => setParams(frameSearchParams(next));
  const problems = Object.values(errors);

  return (
    <>
      <PageHeader
        title="Frames"
        description="Every frame you may read, measured, plate-solved and graded: find them by target or position on the sky, and download a selection."
      />
      <FrameSearchForm view={view} observatories={observatories.data?.items ?? []} projects={projects.data?.items ?? []} onSearch={show} />
      {problems.length > 0 ? (
        <Alert tone="error">This search cannot run: {problems.join(" ")}</Alert>
      ) : (
        <FoundFrames view={view} input={input} observatories={observatories.data?.items} onClear={() => setParams(new URLSearchParams())} />
      )}
    </>
  );
}

function FoundFrames({
  view,
  input,
  observatories,
  onClear,
}: {
  view: FrameSearchView;
  input: FrameSearchInput;
  observatories: ReadonlyArray<{ id: string; name: string; timeZone: string }> | undefined;
  onClear(): void;
}) {
  const search = { ...input, limit: PAGE_SIZE };
  const { query, items } = useCursorPages(
    trpc.frames.search.infiniteQueryKey(search),
    (cursor, signal) => trpcClient.frames.search.query(pageInput(search, cursor), { signal }),
    { keepPreviousList: true },
  );
  const frames = items.filter((file) => file.frame !== null).map((file) => ({ ...file, frame: file.frame! }));
  const { withPreviews, observatoryOf } = useFrameSurroundings(frames, observatories);
  const selection = useFrameSelection(frames.map((file) => file.id));
  const origin = input.ra !== undefined && input.dec !== undefined ? { ra: input.ra, dec: input.dec } : null;
  return (
    <QueryState
      query={query}
      loading="Searching frames"
      refreshing="Searching frames"
      error="Could not search frames"
      isEmpty={() => frames.length === 0}
      empty={<FramesEmpty narrowed={isNarrowed(view)} cone={origin !== null} onClear={onClear} />}
    >
      {() => (
        <>
          <FrameDownloadBar shown={frames.length} selection={selection} />
          <FrameResults items={withPreviews} origin={origin} observatoryOf={observatoryOf} selection={selection} />
          <LoadMoreButton query={query} className="mt-4" />
        </>
      )}
    </QueryState>
  );
}
