import { useEffect, useId, useRef, useState, type FormEvent } from "react";
import { useQueryClient } from "@tanstack/react-query";
import { ChevronDown, FunnelX, Search, SlidersHorizontal } from "lucide-react";
import { Button } from "../components/Button";
import { SelectField } from "../components/SelectField";
import { TextField } from "../components/TextField";
import { summarizeError } from "../lib/errors";
import { CoordinateField, coordinateText } from "../observations/wizard/CoordinateField";
import { kindLabel, TargetNameField, type CatalogMatch } from "../observations/wizard/TargetNameField";
import {
  emptyFrameSearch,
  frameSearchInput,
  frameSearchParams,
  hasPosition,
  type FrameSearchErrors,
  type FrameSearchView,
  type RadiusUnit,
} from "./frame-search";
import { trpc } from "../trpc";

type SearchBy = "name" | "coordinates";
interface Choice {
  id: string;
  name: string;
}
/** The catalog object a name stands for, with its position as the coordinate fields write it. */
interface Position {
  name: string;
  ra: string;
  dec: string;
  description: string | null;
}

const positionOf = (match: Pick<CatalogMatch, "ra" | "dec">) => ({ ra: coordinateText.ra(match.ra), dec: coordinateText.dec(match.dec) });

const linkClass =
  "inline-flex items-center gap-1.5 rounded-md px-2.5 py-1.5 text-sm font-medium text-indigo-600 ring-1 ring-slate-200 " +
  "hover:bg-indigo-50 focus-visible:outline-2 focus-visible:outline-indigo-600";

/**
 * The Frames page's search: by a target's name (the catalog's suggestions and resolver, as in the
 * observation wizard) or by RA and Dec (sexagesimal or degrees), with a radius in arcminutes or
 * degrees, and the filters. Nothing is searched until it is submitted; every mistake is said at its
 * field and focus goes to the first. `onSearch` gets the search with the name's position filled in.
 * On a phone the filters fold behind a button that counts those set, so the results start soon.
 */
export function FrameSearchForm({
  view,
  observatories,
  projects,
  onSearch,
}: {
  view: FrameSearchView;
  observatories: readonly Choice[];
  projects: readonly Choice[];
  onSearch(view: FrameSearchView): void;
}) {
  const queryClient = useQueryClient();
  const formRef = useRef<HTMLFormElement>(null);
  const [draft, setDraft] = useState(view);
  const [by, setBy] = useState<SearchBy>(view.target || !hasPosition(view) ? "name" : "coordinates");
  const [picked, setPicked] = useState<Position | null>(
    view.target && hasPosition(view) ? { name: view.target, ra: view.ra, dec: view.dec, description: null } : null,
  );
  const [errors, setErrors] = useState<FrameSearchErrors>({});
  const [notFound, setNotFound] = useState<string | null>(null);
  const [resolving, setResolving] = useState(false);
  const [focusInvalid, setFocusInvalid] = useState(0);
  const [unfolded, setUnfolded] = useState(false);
  const filtersId = useId();
  const byName = useId();

  // Back, forward and a shared link change the search under the form: show what it says.
  // Taken in while rendering, as the new search renders, rather than in an effect after it.
  const viewKey = frameSearchParams(view).toString();
  const [shownKey, setShownKey] = useState(viewKey);
  if (viewKey !== shownKey) {
    setShownKey(viewKey);
    setDraft(view);
    setErrors({});
    if (view.target && hasPosition(view)) {
      setBy("name");
      // The object just picked or looked up keeps its description; one from a link is known by its name.
      setPicked((current) =>
        current?.name === view.target && current.ra === view.ra && current.dec === view.dec
          ? current
          : { name: view.target, ra: view.ra, dec: view.dec, description: null },
      );
    } else if (hasPosition(view)) setBy("coordinates");
  }
  useEffect(() => {
    if (focusInvalid > 0) formRef.current?.querySelector<HTMLElement>('[aria-invalid="true"]')?.focus();
  }, [focusInvalid]);

  const set = (fields: Partial<FrameSearchView>) => {
    setDraft((current) => ({ ...current, ...fields }));
    setErrors((current) => {
      const next = { ...current };
      for (const key of Object.keys(fields)) delete next[key as keyof FrameSearchErrors];
      return next;
    });
  };
  const fail = (found: FrameSearchErrors) => {
    setErrors(found);
    // A mistake among the filters shows on a phone too, where they may be folded away.
    if (found.from || found.to) setUnfolded(true);
    setFocusInvalid((count) => count + 1);
  };

  /** The search to run: the name's position looked up in the catalog unless it was picked already. */
  const complete = async (): Promise<FrameSearchView | null> => {
    if (by === "coordinates") return { ...draft, target: "" };
    const name = draft.target.trim();
    if (!name) return { ...draft, target: "", ra: "", dec: "" };
    if (picked?.name === name) return { ...draft, target: name, ra: picked.ra, dec: picked.dec };
    setResolving(true);
    try {
      const match = await queryClient.fetchQuery(trpc.targets.resolve.queryOptions({ name: name.slice(0, 100) }));
      setPicked({ name, ...positionOf(match), description: describe(match) });
      return { ...draft, target: name, ...positionOf(match) };
    } catch (error) {
      const problem = summarizeError(error);
      fail({
        target:
          problem.code === "TARGET_NOT_FOUND"
            ? `“${name}” is not in the catalog: search by its coordinates instead.`
            : `Could not look up “${name}”: ${problem.message}`,
      });
      return null;
    } finally {
      setResolving(false);
    }
  };

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    const next = await complete();
    if (!next) return;
    const found = frameSearchInput(next).errors;
    if (Object.keys(found).length > 0) return fail(found);
    setErrors({});
    onSearch(next);
  };

  const clear = () => {
    setDraft(emptyFrameSearch);
    setPicked(null);
    setErrors({});
    onSearch(emptyFrameSearch);
  };

  const filtersSet = [draft.filter.trim(), draft.from, draft.to, draft.grade, draft.observatoryId, draft.projectId].filter(Boolean).length;
  const folded = unfolded ? "contents" : "max-sm:hidden sm:contents";
  const nameHint =
    picked?.name === draft.target.trim() && picked.name
      ? `Position of ${picked.description ?? picked.name} from the catalog, J2000: ${picked.ra} ${picked.dec}.`
      : notFound && notFound === draft.target.trim()
        ? `“${notFound}” is not in the catalog: search by its coordinates instead.`
        : "Type a name for suggestions from the catalog; its position is the search's centre.";

  return (
    <form
      ref={formRef}
      noValidate
      aria-label="Search frames"
      onSubmit={(event) => void submit(event)}
      className="mb-6 space-y-4 rounded-lg bg-white p-4 shadow-sm ring-1 ring-slate-200"
    >
      <fieldset>
        <legend className="text-sm font-medium text-slate-700">Search by</legend>
        <div className="mt-2 flex flex-wrap gap-x-6 gap-y-2 text-sm">
          {(
            [
              ["name", "Target name"],
              ["coordinates", "Coordinates"],
            ] as const
          ).map(([value, label]) => (
            <label key={value} className="inline-flex items-center gap-2 text-slate-900">
              <input type="radio" name={byName} value={value} checked={by === value} onChange={() => setBy(value)} className="size-4 accent-indigo-600" />
              {label}
            </label>
          ))}
        </div>
      </fieldset>
      <div className="grid gap-3 sm:grid-cols-2 lg:grid-cols-4">
        {by === "name" ? (
          <div className="sm:col-span-2">
            <TargetNameField
              label="Target name"
              value={draft.target}
              error={errors.target}
              hint={nameHint}
              resolveOnLeave={picked?.name !== draft.target.trim()}
              onChange={(target) => set({ target })}
              onPick={(match, how) => {
                const name = how === "picked" ? match.name : draft.target.trim();
                if (how === "picked") set({ target: match.name });
                setPicked({ name, ...positionOf(match), description: describe(match) });
              }}
              onLeave={() => undefined}
              onNotFound={setNotFound}
            />
          </div>
        ) : (
          (["ra", "dec"] as const).map((axis) => (
            <CoordinateField
              key={axis}
              axis={axis}
              value={draft[axis]}
              error={errors[axis]}
              onChange={(value) => set({ [axis]: value })}
              onBlur={() => undefined}
            />
          ))
        )}
        <TextField
          label="Radius"
          inputMode="decimal"
          autoComplete="off"
          value={draft.radius}
          error={errors.radius}
          hint="At most 10° (600′)"
          onChange={(event) => set({ radius: event.target.value })}
        />
        <SelectField label="Radius unit" value={draft.unit} onChange={(event) => set({ unit: event.target.value as RadiusUnit })}>
          <option value="arcmin">arcminutes (′)</option>
          <option value="deg">degrees (°)</option>
        </SelectField>
      </div>
      <button
        type="button"
        aria-expanded={unfolded}
        aria-controls={filtersId}
        onClick={() => setUnfolded((current) => !current)}
        className={`${linkClass} sm:hidden`}
      >
        <SlidersHorizontal aria-hidden="true" className="size-4" />
        Filters{filtersSet > 0 ? ` (${filtersSet} set)` : ""}
        <ChevronDown aria-hidden="true" className={`size-4 ${unfolded ? "rotate-180" : ""}`} />
      </button>
      <div className="grid gap-3 sm:grid-cols-2 lg:grid-cols-3">
        <div id={filtersId} className={folded}>
          <TextField
            label="Filter"
            autoComplete="off"
            placeholder="Ha, L, V…"
            value={draft.filter}
            maxLength={100}
            onChange={(event) => set({ filter: event.target.value })}
          />
          <TextField
            label="Taken from (UTC day)"
            type="date"
            value={draft.from}
            max={draft.to || undefined}
            error={errors.from}
            onChange={(event) => set({ from: event.target.value })}
          />
          <TextField
            label="Taken to (UTC day)"
            type="date"
            value={draft.to}
            min={draft.from || undefined}
            error={errors.to}
            hint="Both days included, by the frame's DATE-OBS."
            onChange={(event) => set({ to: event.target.value })}
          />
          <SelectField label="Grade" value={draft.grade} onChange={(event) => set({ grade: event.target.value as FrameSearchView["grade"] })}>
            <option value="">Any grade</option>
            <option value="accepted">Accepted</option>
            <option value="rejected">Rejected</option>
          </SelectField>
          <SelectField label="Observatory" value={draft.observatoryId} onChange={(event) => set({ observatoryId: event.target.value })}>
            <option value="">All observatories</option>
            {observatories.map((observatory) => (
              <option key={observatory.id} value={observatory.id}>
                {observatory.name}
              </option>
            ))}
          </SelectField>
          <SelectField label="Project" value={draft.projectId} onChange={(event) => set({ projectId: event.target.value })}>
            <option value="">All projects</option>
            {projects.map((project) => (
              <option key={project.id} value={project.id}>
                {project.name}
              </option>
            ))}
          </SelectField>
        </div>
      </div>
      <div className="flex flex-wrap gap-2">
        <Button type="submit" busy={resolving} icon={<Search aria-hidden="true" className="size-4" />}>
          Search
        </Button>
        <Button variant="secondary" icon={<FunnelX aria-hidden="true" className="size-4" />} onClick={clear}>
          Clear
        </Button>
      </div>
    </form>
  );
}

const describe = (match: CatalogMatch) => `${match.designation !== match.name ? `${match.name} (${match.designation})` : match.name}, ${kindLabel(match.kind)}`;
