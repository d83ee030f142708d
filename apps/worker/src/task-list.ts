import type { TaskList } from "graphile-worker";
import type { TaskServices } from "./define-task";
import { pruneRateLimitsTask } from "./tasks/prune-rate-limits";
import { pruneRealtimeEventsTask } from "./tasks/prune-realtime-events";
import { sendEmailTask } from "./tasks/send-email";

export const tasks = [sendEmailTask, pruneRateLimitsTask, pruneRealtimeEventsTask];

export const crontab = ["0 * * * * prune_rate_limits", "*/10 * * * * prune_realtime_events"].join("\n");

export function buildTaskList(services: TaskServices): TaskList {
  return Object.fromEntries(tasks.map((task) => [task.name, task.create(services)]));
}
