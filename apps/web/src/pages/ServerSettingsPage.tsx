import { useEffect } from "react";
import { useQuery } from "@tanstack/react-query";
import { useLocation } from "react-router-dom";
import { ServerSettingsForm } from "../admin/ServerSettingsForm";
import { PageHeader } from "../components/PageHeader";
import { QueryState } from "../components/QueryState";
import { useDocumentTitle } from "../lib/document-title";
import { trpc } from "../trpc";

/** System → Server settings: what observatories must run, when observations are stuck, when scans and backups run. */
export function ServerSettingsPage() {
  useDocumentTitle("Server settings");
  const settings = useQuery(trpc.admin.settings.queryOptions(undefined, { staleTime: 0 }));
  const { hash } = useLocation();
  const loaded = Boolean(settings.data);
  // Links such as /admin/settings#backups land on their section once the form is there.
  useEffect(() => {
    if (loaded && hash) document.getElementById(decodeURIComponent(hash.slice(1)))?.scrollIntoView();
  }, [loaded, hash]);
  return (
    <>
      <PageHeader
        title="Server settings"
        description="Apply to the whole server at once; each change is recorded in the audit log. Schedules are cron expressions in UTC."
      />
      <QueryState query={settings} loading="Loading settings" error="Could not load settings">
        {(data) => <ServerSettingsForm settings={data} />}
      </QueryState>
    </>
  );
}
