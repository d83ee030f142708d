import { useId, useState } from "react";
import { keepPreviousData, useQuery } from "@tanstack/react-query";
import { X } from "lucide-react";
import { CheckboxField } from "../components/CheckboxField";
import { Spinner } from "../components/Spinner";
import { TextField } from "../components/TextField";
import { summarizeError } from "../lib/errors";
import { useDebouncedValue } from "../lib/useDebouncedValue";
import { trpc } from "../trpc";
import { targetKindInfo } from "./labels";
import type { TargetChoice } from "./targets";
import type { TargetKind, TargetOption } from "./types";

const OPTIONS_SHOWN = 8;
const SEARCH_SETTLE_MS = 250;

/**
 * Who of one kind (users, observatories…) receives a system announcement: everyone, or those
 * chosen from a search. The options are loaded once the search box is first used.
 */
export function TargetPicker({
  kind,
  choice,
  error,
  onChange,
}: {
  kind: TargetKind;
  choice: TargetChoice;
  error?: string;
  onChange(choice: TargetChoice): void;
}) {
  const info = targetKindInfo[kind];
  const errorId = useId();
  const [search, setSearch] = useState("");
  const [browsing, setBrowsing] = useState(false);
  const q = useDebouncedValue(search.trim(), SEARCH_SETTLE_MS);
  const options = useQuery(
    trpc.announcements.targetOptions.queryOptions(q ? { kind, q, limit: OPTIONS_SHOWN } : { kind, limit: OPTIONS_SHOWN }, {
      enabled: browsing && !choice.all,
      placeholderData: keepPreviousData,
    }),
  );
  const chosenIds = new Set(choice.chosen.map((option) => option.id));
  const toggle = (option: TargetOption, checked: boolean) =>
    onChange({ ...choice, chosen: checked ? [...choice.chosen, option] : choice.chosen.filter((item) => item.id !== option.id) });
  const noun = info.label.toLowerCase();

  return (
    <fieldset aria-describedby={error ? errorId : undefined} className="min-w-0 rounded-md p-3 ring-1 ring-slate-200 ring-inset">
      <legend className="px-1 text-sm font-medium text-slate-700">{info.label}</legend>
      <CheckboxField label={info.all} checked={choice.all} onChange={(all) => onChange({ ...choice, all })} />
      {!choice.all ? (
        <div className="mt-3 flex flex-col gap-2">
          {choice.chosen.length > 0 ? (
            <ul aria-label={`Chosen ${noun}`} className="flex flex-wrap gap-1.5">
              {choice.chosen.map((option) => (
                <li
                  key={option.id}
                  className={
                    "inline-flex max-w-full items-center gap-1 rounded-full bg-indigo-50 py-0.5 pr-1 pl-2.5 " +
                    "text-xs font-medium text-indigo-700 ring-1 ring-indigo-200 ring-inset"
                  }
                >
                  <span className="truncate">{option.label}</span>
                  <button
                    type="button"
                    aria-label={`Remove ${option.label}`}
                    onClick={() => toggle(option, false)}
                    className="rounded-full p-0.5 hover:bg-indigo-100"
                  >
                    <X aria-hidden="true" className="size-3" />
                  </button>
                </li>
              ))}
            </ul>
          ) : null}
          <TextField
            label={info.search}
            type="search"
            autoComplete="off"
            value={search}
            onChange={(e) => setSearch(e.target.value)}
            onFocus={() => setBrowsing(true)}
          />
          {browsing ? (
            options.isPending ? (
              <Spinner label={`Loading ${noun}`} />
            ) : options.isError ? (
              <p className="text-sm text-red-600">
                Could not load {noun}: {summarizeError(options.error).message}
              </p>
            ) : options.data.items.length === 0 ? (
              <p className="text-sm text-slate-500">{q ? `Nothing matches “${q}”.` : `There are no ${noun} yet.`}</p>
            ) : (
              <>
                <ul aria-label={`Matching ${noun}`} className="max-h-44 divide-y divide-slate-100 overflow-y-auto rounded-md ring-1 ring-slate-200 ring-inset">
                  {options.data.items.map((option) => (
                    <li key={option.id}>
                      <label className="flex cursor-pointer items-center gap-3 px-3 py-2 text-sm hover:bg-slate-50">
                        <input
                          type="checkbox"
                          className="size-4 shrink-0 rounded border-slate-300 accent-indigo-600"
                          checked={chosenIds.has(option.id)}
                          onChange={(event) => toggle(option, event.target.checked)}
                        />
                        <span className="min-w-0 flex-1">
                          <span className="block truncate text-slate-800">{option.label}</span>
                          {option.detail ? <span className="block truncate text-xs text-slate-500">{option.detail}</span> : null}
                        </span>
                      </label>
                    </li>
                  ))}
                </ul>
                {options.data.total > options.data.items.length ? (
                  <p className="text-xs text-slate-500">
                    {q ? "The first matches are shown" : `${options.data.items.length} of ${options.data.total} shown`}: search to find others.
                  </p>
                ) : null}
              </>
            )
          ) : null}
        </div>
      ) : null}
      {error ? (
        <p id={errorId} className="mt-2 text-sm text-red-600">
          {error}
        </p>
      ) : null}
    </fieldset>
  );
}
