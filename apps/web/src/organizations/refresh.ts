import { queryClient, trpc } from "../trpc";

/** Organization membership also decides observatory access: refresh both. */
export async function refreshOrganizationData() {
  await Promise.all([queryClient.invalidateQueries(trpc.organizations.pathFilter()), queryClient.invalidateQueries(trpc.observatories.pathFilter())]);
}
