import type { LucideIcon } from "lucide-react";
import { EmptyState } from "../components/EmptyState";
import { PageHeader } from "../components/PageHeader";

/** Stand-in for a section that is not built yet; the route and navigation entry already exist. */
export function ComingSoonPage({ title, description, icon }: { title: string; description: string; icon: LucideIcon }) {
  return (
    <>
      <PageHeader title={title} description={description} />
      <EmptyState icon={icon} title="Coming soon">
        This part of Meridian is on its way. Check back after the next update.
      </EmptyState>
    </>
  );
}
