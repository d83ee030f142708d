import { ArrowRight } from "lucide-react";
import { Link } from "react-router-dom";
import { AnnouncementBanners } from "../announcements/AnnouncementBanners";
import { useMe } from "../auth/useMe";
import { PageHeader } from "../components/PageHeader";
import { GettingStarted } from "../dashboard/GettingStarted";
import { navSections } from "../layout/navigation";
import { DashboardObservations } from "../observations/DashboardObservations";
import { useDocumentTitle } from "../lib/document-title";

export function DashboardPage() {
  useDocumentTitle("Dashboard");
  const me = useMe();
  const sections = navSections[0]!.items.filter((item) => item.to !== "/");
  return (
    <>
      <PageHeader title={`Welcome${me.data ? `, ${me.data.name}` : ""}`} description="Your observatory network at a glance." />
      <AnnouncementBanners />
      <GettingStarted />
      <DashboardObservations />
      <ul className="grid gap-4 sm:grid-cols-2">
        {sections.map(({ to, label, icon: Icon }) => (
          <li key={to}>
            <Link to={to} className="group flex items-center gap-4 rounded-lg bg-white p-5 shadow-sm ring-1 ring-slate-200 transition hover:ring-indigo-300">
              <span className="flex size-10 items-center justify-center rounded-lg bg-indigo-50 text-indigo-600">
                <Icon aria-hidden="true" className="size-5" />
              </span>
              <span className="flex-1 text-sm font-semibold text-slate-900">{label}</span>
              <ArrowRight aria-hidden="true" className="size-4 text-slate-400 transition group-hover:translate-x-0.5 group-hover:text-indigo-600" />
            </Link>
          </li>
        ))}
      </ul>
    </>
  );
}
