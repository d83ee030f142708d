export { startWorker, type RunningWorker } from "./start-worker";
