import { queryClient, trpc } from "../trpc";

/** After a change to announcements: every list, count and banner may show it. */
export const refreshAnnouncements = () => queryClient.invalidateQueries(trpc.announcements.pathFilter());
