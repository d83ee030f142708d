import { useId, useState, type KeyboardEvent } from "react";
import { keepPreviousData, useQuery, useQueryClient } from "@tanstack/react-query";
import { formatDeclination, formatRightAscension } from "@meridian/rules";
import { useDebouncedValue } from "../../lib/useDebouncedValue";
import type { RouterOutputs } from "../../organizations/types";
import { trpc } from "../../trpc";

export type CatalogMatch = RouterOutputs["targets"]["search"]["items"][number];

/** The server takes names and queries of at most this many characters (TARGET_QUERY_MAX). */
const QUERY_MAX = 100;

export const kindLabel = (kind: string) => kind.replace(/_/g, " ");

/**
 * A target's name with suggestions from the offline catalog (`targets.search`): the ARIA combobox
 * pattern, the input keeping focus while ↓/↑ move through the listbox (aria-activedescendant),
 * Enter picks, Escape closes. Picking, or leaving a name the catalog knows while RA and Dec are
 * still empty (`targets.resolve`), hands the object to `onPick`.
 */
export function TargetNameField({
  label,
  autoFocus,
  value,
  error,
  hint,
  resolveOnLeave,
  onChange,
  onPick,
  onLeave,
  onNotFound,
}: {
  label: string;
  autoFocus?: boolean;
  value: string;
  error?: string;
  hint: string;
  resolveOnLeave: boolean;
  onChange(name: string): void;
  /** `picked` from the list, or `resolved` from the name as typed (on Enter, or on leaving the field). */
  onPick(match: CatalogMatch, how: "picked" | "resolved"): void;
  onLeave(): void;
  onNotFound(name: string): void;
}) {
  const id = useId();
  const listId = `${id}-list`;
  const messageId = `${id}-message`;
  const [open, setOpen] = useState(false);
  const [active, setActive] = useState(-1);
  const queryClient = useQueryClient();
  const query = useDebouncedValue(value.trim().slice(0, QUERY_MAX), 150);
  const search = useQuery({ ...trpc.targets.search.queryOptions({ q: query }), enabled: open && query !== "", placeholderData: keepPreviousData });
  const items = open && query !== "" ? (search.data?.items ?? []) : [];
  const expanded = items.length > 0;
  const noMatch = open && query !== "" && search.isSuccess && !search.isPlaceholderData && items.length === 0;

  const close = () => {
    setOpen(false);
    setActive(-1);
  };
  const pick = (match: CatalogMatch, how: "picked" | "resolved" = "picked") => {
    close();
    onPick(match, how);
  };
  const resolveTyped = async () => {
    const name = value.trim();
    if (!name) return;
    try {
      pick(await queryClient.fetchQuery(trpc.targets.resolve.queryOptions({ name: name.slice(0, QUERY_MAX) })), "resolved");
    } catch {
      onNotFound(name);
    }
  };

  const onKeyDown = (event: KeyboardEvent<HTMLInputElement>) => {
    if (event.key === "ArrowDown" || event.key === "ArrowUp") {
      event.preventDefault();
      if (!open) setOpen(true);
      if (items.length === 0) return;
      const step = event.key === "ArrowDown" ? 1 : -1;
      setActive((current) => (current === -1 && step === -1 ? items.length - 1 : (current + step + items.length) % items.length));
    } else if (event.key === "Enter" && expanded) {
      // The list is open: Enter chooses (the highlighted object, else the name as typed), it does not submit the step.
      event.preventDefault();
      if (active >= 0 && items[active]) pick(items[active]);
      else {
        close();
        void resolveTyped();
      }
    } else if (event.key === "Escape" && expanded) {
      event.preventDefault();
      event.stopPropagation();
      close();
    }
  };

  return (
    <div className="relative">
      <label htmlFor={id} className="block text-sm font-medium text-slate-700">
        {label}
      </label>
      <input
        id={id}
        type="text"
        role="combobox"
        autoFocus={autoFocus}
        autoComplete="off"
        spellCheck={false}
        maxLength={200}
        aria-autocomplete="list"
        aria-expanded={expanded}
        aria-controls={listId}
        aria-activedescendant={expanded && active >= 0 ? `${listId}-${active}` : undefined}
        aria-invalid={error ? true : undefined}
        aria-describedby={messageId}
        value={value}
        onChange={(event) => {
          onChange(event.target.value);
          setOpen(true);
          setActive(-1);
        }}
        onKeyDown={onKeyDown}
        onBlur={() => {
          close();
          onLeave();
          if (resolveOnLeave) void resolveTyped();
        }}
        className={
          `mt-1.5 block w-full rounded-md border-0 bg-white px-3 py-2 text-sm text-slate-900 shadow-sm ring-1 ring-inset ` +
          `placeholder:text-slate-400 focus:ring-2 focus:outline-none focus:ring-inset ${
            error ? "ring-red-400 focus:ring-red-500" : "ring-slate-300 focus:ring-indigo-600"
          }`
        }
        placeholder="M 31, NGC 7000, Vega…"
      />
      <ul
        id={listId}
        role="listbox"
        aria-label="Catalog matches"
        hidden={!expanded}
        className="absolute inset-x-0 z-20 mt-1 max-h-72 overflow-y-auto rounded-md bg-white py-1 text-sm shadow-lg ring-1 ring-slate-200"
      >
        {items.map((item, index) => (
          <li
            key={`${item.designation}-${item.name}`}
            id={`${listId}-${index}`}
            role="option"
            aria-selected={index === active}
            // Keep focus in the input: the click picks without a blur first.
            onMouseDown={(event) => event.preventDefault()}
            onClick={() => pick(item)}
            className={`cursor-pointer px-3 py-2 ${index === active ? "bg-indigo-600 text-white" : "text-slate-900 hover:bg-slate-50"}`}
          >
            <span className="font-medium">{item.name}</span>
            {item.designation !== item.name ? <span> ({item.designation})</span> : null}
            <span className={`block text-xs ${index === active ? "text-indigo-100" : "text-slate-500"}`}>
              {kindLabel(item.kind)} · {item.catalog} · {formatRightAscension(item.ra)} {formatDeclination(item.dec)}
            </span>
          </li>
        ))}
      </ul>
      <p id={messageId} className={`mt-1.5 text-sm ${error ? "text-red-600" : "text-slate-500"}`}>
        {error ?? (noMatch ? "No object of that name in the catalog: enter its RA and Dec below." : hint)}
      </p>
    </div>
  );
}
