import { queryClient, trpc } from "../trpc";

export const refreshProjects = () => queryClient.invalidateQueries(trpc.projects.pathFilter());
