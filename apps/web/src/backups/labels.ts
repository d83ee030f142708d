import type { BadgeTone } from "../components/Badge";
import type { RouterOutputs } from "../organizations/types";

export type Backup = RouterOutputs["backups"]["list"]["items"][number];

export const backupStatusTone: Record<Backup["status"], BadgeTone> = { running: "sky", completed: "amber", verified: "emerald", failed: "red" };
export const backupTriggerLabel: Record<Backup["trigger"], string> = { manual: "by an administrator", scheduled: "scheduled", cleanup: "before a cleanup" };

/** What the administrator types to restore a backup: its date (UTC), so the choice is deliberate. */
export const backupDate = (backup: Pick<Backup, "createdAt">) => backup.createdAt.slice(0, 10);

export const stageLabel: Record<string, string> = {
  archive: "Archiving collections",
  verify: "Reading the archive back",
  load: "Loading and verifying the archive",
  index: "Building indexes",
  swap: "Swapping the data in",
  done: "Done",
};
