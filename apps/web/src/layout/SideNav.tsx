import { NavLink } from "react-router-dom";
import { isServerAdmin, useMe } from "../auth/useMe";
import { visibleSections } from "./navigation";

/** Keyboard focus shows as the app's outline (as on buttons), inside the link's edges so the drawer does not clip it. */
const linkFocus = "focus-visible:outline-2 focus-visible:-outline-offset-2 focus-visible:outline-indigo-600";

export function SideNav({ onNavigate }: { onNavigate?: () => void }) {
  const me = useMe();
  const sections = visibleSections(isServerAdmin(me.data));
  return (
    <nav aria-label="Main" className="flex flex-col gap-6">
      {sections.map((section, index) => (
        <div key={section.title ?? index}>
          {section.title ? <h2 className="mb-1 px-3 text-xs font-semibold tracking-wide text-slate-400 uppercase">{section.title}</h2> : null}
          <ul className="flex flex-col gap-0.5">
            {section.items.map(({ to, label, icon: Icon, end }) => (
              <li key={to}>
                <NavLink
                  to={to}
                  end={end}
                  onClick={onNavigate}
                  className={({ isActive }) =>
                    `flex items-center gap-3 rounded-md px-3 py-2 text-sm font-medium transition-colors ${linkFocus} ${
                      isActive ? "bg-indigo-50 text-indigo-700" : "text-slate-600 hover:bg-slate-100 hover:text-slate-900"
                    }`
                  }
                >
                  <Icon aria-hidden="true" className="size-4 shrink-0" />
                  {label}
                </NavLink>
              </li>
            ))}
          </ul>
        </div>
      ))}
    </nav>
  );
}
