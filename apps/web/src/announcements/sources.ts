import { pageInput } from "../lib/useCursorPages";
import { trpc, trpcClient } from "../trpc";
import { ANNOUNCEMENT_PAGE_SIZE, type AnnouncementSource } from "./AnnouncementTable";
import type { AnnouncementScope, AnnouncementStatus, ScopedKind } from "./types";

const withStatus = (status: AnnouncementStatus | undefined) => (status ? { status } : {});

/** The announcements page: one scope's announcements the caller manages (all of them for server admins). */
export const managedSource =
  (scope: AnnouncementScope) =>
  (status: AnnouncementStatus | undefined): AnnouncementSource => {
    const input = { scope, limit: ANNOUNCEMENT_PAGE_SIZE, ...withStatus(status) };
    return {
      queryKey: trpc.announcements.managed.infiniteQueryKey(input),
      fetchPage: (cursor, signal) => trpcClient.announcements.managed.query(pageInput(input, cursor), { signal }),
    };
  };

/** An observatory's, organization's or project's page: all its announcements, past included (senders). */
export const historySource =
  (scope: ScopedKind, scopeId: string) =>
  (status: AnnouncementStatus | undefined): AnnouncementSource => {
    const input = { scope, scopeId, limit: ANNOUNCEMENT_PAGE_SIZE, ...withStatus(status) };
    return {
      queryKey: trpc.announcements.history.infiniteQueryKey(input),
      fetchPage: (cursor, signal) => trpcClient.announcements.history.query(pageInput(input, cursor), { signal }),
    };
  };
