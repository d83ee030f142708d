import { useState } from "react";
import { useQuery } from "@tanstack/react-query";
import { Trash2 } from "lucide-react";
import { BackupCleanupDialog } from "../backups/BackupCleanupDialog";
import { BackupScheduleCard } from "../backups/BackupScheduleCard";
import { BackupTable } from "../backups/BackupTable";
import { CreateBackupCard } from "../backups/CreateBackupCard";
import { Button } from "../components/Button";
import { PageHeader } from "../components/PageHeader";
import { useDocumentTitle } from "../lib/document-title";
import { trpc } from "../trpc";

/** System → Backup Management: create, list, verify, restore and clean up backups. */
export function BackupsPage() {
  useDocumentTitle("Backup management");
  const [cleaning, setCleaning] = useState(false);
  const settings = useQuery(trpc.admin.settings.queryOptions(undefined, { staleTime: 0 }));
  return (
    <>
      <PageHeader
        title="Backup management"
        description="Backups hold every collection and the records of uploaded files, not the image files themselves."
        actions={
          <Button variant="secondary" icon={<Trash2 aria-hidden="true" className="size-4" />} onClick={() => setCleaning(true)}>
            Delete old backups
          </Button>
        }
      />
      <div className="flex flex-col gap-8">
        <div className="grid gap-6 xl:grid-cols-2">
          <CreateBackupCard />
          <BackupScheduleCard settings={settings.data} />
        </div>
        <BackupTable />
      </div>
      {cleaning ? (
        <BackupCleanupDialog
          defaults={{ keepDays: settings.data?.backupKeepDays ?? 30, keepMin: settings.data?.backupKeepMin ?? 3 }}
          onClose={() => setCleaning(false)}
        />
      ) : null}
    </>
  );
}
