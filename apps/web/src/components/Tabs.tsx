import { useRef, type KeyboardEvent, type ReactNode } from "react";
import type { LucideIcon } from "lucide-react";
import { useSearchParams } from "react-router-dom";

export interface TabItem<T extends string = string> {
  id: T;
  label: string;
  icon?: LucideIcon;
}

/** The open tab lives in the address (`?tab=`), so reloads and shared links keep it. */
export function useTabParam<T extends string>(tabs: ReadonlyArray<TabItem<T>>): [T, (tab: T) => void] {
  const [searchParams, setSearchParams] = useSearchParams();
  const requested = searchParams.get("tab");
  const active = tabs.find((tab) => tab.id === requested)?.id ?? tabs[0]!.id;
  const select = (tab: T) =>
    setSearchParams(
      (current) => {
        const next = new URLSearchParams(current);
        if (tab === tabs[0]!.id) next.delete("tab");
        else next.set("tab", tab);
        return next;
      },
      { replace: true },
    );
  return [active, select];
}

const tabId = (prefix: string, id: string) => `${prefix}-tab-${id}`;
const panelId = (prefix: string, id: string) => `${prefix}-panel-${id}`;

/** ARIA tabs: arrow keys, Home and End move between tabs; only the selected one is in the tab order. */
export function TabList<T extends string>({
  tabs,
  active,
  onChange,
  label,
  idPrefix,
}: {
  tabs: ReadonlyArray<TabItem<T>>;
  active: T;
  onChange(tab: T): void;
  label: string;
  idPrefix: string;
}) {
  const refs = useRef(new Map<string, HTMLButtonElement>());
  const move = (event: KeyboardEvent<HTMLDivElement>) => {
    const index = tabs.findIndex((tab) => tab.id === active);
    let next: number;
    if (event.key === "ArrowRight") next = (index + 1) % tabs.length;
    else if (event.key === "ArrowLeft") next = (index - 1 + tabs.length) % tabs.length;
    else if (event.key === "Home") next = 0;
    else if (event.key === "End") next = tabs.length - 1;
    else return;
    event.preventDefault();
    const tab = tabs[next]!;
    onChange(tab.id);
    refs.current.get(tab.id)?.focus();
  };
  return (
    // Tabs wrap onto a second line on narrow screens instead of scrolling out of sight.
    <div className="mb-6 border-b border-slate-200">
      <div role="tablist" aria-label={label} onKeyDown={move} className="-mb-px flex flex-wrap gap-x-1">
        {tabs.map(({ id, label: tabLabel, icon: Icon }) => {
          const selected = id === active;
          return (
            <button
              key={id}
              ref={(node) => {
                if (node) refs.current.set(id, node);
                else refs.current.delete(id);
              }}
              type="button"
              role="tab"
              id={tabId(idPrefix, id)}
              aria-selected={selected}
              aria-controls={panelId(idPrefix, id)}
              tabIndex={selected ? 0 : -1}
              onClick={() => onChange(id)}
              className={
                `flex items-center gap-2 border-b-2 px-3 py-2.5 text-sm font-medium whitespace-nowrap ` +
                `transition-colors focus-visible:outline-2 focus-visible:outline-indigo-600 ${
                  selected ? "border-indigo-600 text-indigo-700" : "border-transparent text-slate-500 hover:border-slate-300 hover:text-slate-700"
                }`
              }
            >
              {Icon ? <Icon aria-hidden="true" className="size-4" /> : null}
              {tabLabel}
            </button>
          );
        })}
      </div>
    </div>
  );
}

export function TabPanel({ idPrefix, id, children }: { idPrefix: string; id: string; children: ReactNode }) {
  return (
    <div role="tabpanel" id={panelId(idPrefix, id)} aria-labelledby={tabId(idPrefix, id)}>
      {children}
    </div>
  );
}
