import { queryClient, trpc } from "../trpc";

export const refreshObservatories = () => queryClient.invalidateQueries(trpc.observatories.pathFilter());
