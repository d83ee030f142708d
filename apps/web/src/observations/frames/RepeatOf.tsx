import { useQuery } from "@tanstack/react-query";
import { RefreshCcw } from "lucide-react";
import { Link } from "react-router-dom";
import { trpc } from "../../trpc";

/** A line naming the observation this one repeats, linked (named once it is read; by its id if the reader may not read it). */
export function RepeatOfLine({ id, name }: { id: string; name: string | undefined }) {
  return (
    <p className="mb-4 flex items-center gap-1.5 text-sm text-slate-600">
      <RefreshCcw aria-hidden="true" className="size-4 shrink-0" />
      <span className="min-w-0">
        Repeat of{" "}
        <Link
          to={`/observations/${id}`}
          className="font-medium break-words text-indigo-600 hover:text-indigo-500 focus-visible:outline-2 focus-visible:outline-indigo-600"
        >
          {name ?? `observation ${id}`}
        </Link>
        , for the exposures it did not get accepted.
      </span>
    </p>
  );
}

/** The observation a repeat was made from (`repeatOf`), which the server creates when rejected exposures are repeated. */
export function RepeatOf({ id }: { id: string }) {
  const original = useQuery(trpc.observations.get.queryOptions({ id }, { retry: false }));
  return <RepeatOfLine id={id} name={original.data?.name} />;
}

/** A line naming the repeat the server made of this observation's missing exposures, linked. */
export function RepeatedAsLine({ id, name }: { id: string; name: string | undefined }) {
  return (
    <p className="mb-4 flex items-center gap-1.5 text-sm text-slate-600">
      <RefreshCcw aria-hidden="true" className="size-4 shrink-0" />
      <span className="min-w-0">
        Its exposures without an accepted frame are repeated in{" "}
        <Link
          to={`/observations/${id}`}
          className="font-medium break-words text-indigo-600 hover:text-indigo-500 focus-visible:outline-2 focus-visible:outline-indigo-600"
        >
          {name ?? `observation ${id}`}
        </Link>
        .
      </span>
    </p>
  );
}

/** The repeat made of this observation (`repeatId`), when its project asks for rejected exposures to be repeated. */
export function RepeatedAs({ id }: { id: string }) {
  const repeat = useQuery(trpc.observations.get.queryOptions({ id }, { retry: false }));
  return <RepeatedAsLine id={id} name={repeat.data?.name} />;
}
