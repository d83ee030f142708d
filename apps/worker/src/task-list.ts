import type { TaskList } from "graphile-worker";
import type { TaskServices } from "./define-task";
import { announcementEmailsTask } from "./tasks/announcement-emails";
import { announcementStartedTask } from "./tasks/announcement-started";
import { announcementsMaintenanceTask } from "./tasks/announcements-maintenance";
import { pruneRateLimitsTask } from "./tasks/prune-rate-limits";
import { pruneRealtimeEventsTask } from "./tasks/prune-realtime-events";
import { sendEmailTask } from "./tasks/send-email";

export const tasks = [sendEmailTask, pruneRateLimitsTask, pruneRealtimeEventsTask, announcementEmailsTask, announcementStartedTask, announcementsMaintenanceTask];

export const crontab = ["0 * * * * prune_rate_limits", "*/10 * * * * prune_realtime_events", "* * * * * announcements_maintenance"].join("\n");

export function buildTaskList(services: TaskServices): TaskList {
  return Object.fromEntries(tasks.map((task) => [task.name, task.create(services)]));
}
