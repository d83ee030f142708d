export { openServerRuntime, startServer, startServerWorker, type RunningServer } from "./start-server";
