import { useQuery } from "@tanstack/react-query";
import { ChartColumn } from "lucide-react";
import { AnalyticsDashboard } from "../analytics/AnalyticsDashboard";
import { ActionLink } from "../components/ActionLink";
import { EmptyState } from "../components/EmptyState";
import { PageHeader } from "../components/PageHeader";
import { QueryState } from "../components/QueryState";
import { useDocumentTitle } from "../lib/document-title";
import { trpc } from "../trpc";

const pages = {
  system: { title: "Analytics", description: "The whole server: observatories, observations, users, organizations and storage." },
  mine: { title: "Statistics", description: "The observatories you own or administer: their observations, observers and storage." },
};

function AnalyticsPage({ scope }: { scope: keyof typeof pages }) {
  const { title, description } = pages[scope];
  useDocumentTitle(title);
  // The server refreshes its summary every minute; so does the page.
  const analytics = useQuery(trpc.analytics[scope].queryOptions(undefined, { staleTime: 0, refetchInterval: 60_000 }));
  return (
    <>
      <PageHeader title={title} description={description} />
      <QueryState
        query={analytics}
        loading={`Loading ${title.toLowerCase()}`}
        error={`Could not load ${title.toLowerCase()}`}
        isEmpty={(data) => scope === "mine" && data.observatoryCount === 0}
        empty={
          <EmptyState
            icon={ChartColumn}
            title="No observatory of yours to count yet"
            actions={<ActionLink to="/observatories">Go to observatories</ActionLink>}
          >
            These figures cover the observatories you own or administer, counted again every minute. Create one, or ask an observatory's owner to make you one
            of its administrators.
          </EmptyState>
        }
      >
        {(data) => <AnalyticsDashboard analytics={data} />}
      </QueryState>
    </>
  );
}

/** System → Analytics: every observatory's figures (server admins). */
export const SystemAnalyticsPage = () => <AnalyticsPage scope="system" />;
/** The same figures for the observatories the signed-in user owns or administers. */
export const MyAnalyticsPage = () => <AnalyticsPage scope="mine" />;
