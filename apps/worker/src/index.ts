export { startWorker, type RunningWorker } from "./start-worker";
export { tasks, buildTaskList, crontab } from "./task-list";
