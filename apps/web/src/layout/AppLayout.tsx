import { useCallback, useState } from "react";
import { Menu } from "lucide-react";
import { Link, Outlet } from "react-router-dom";
import { MaintenanceBanner } from "./MaintenanceBanner";
import { AnnouncementLiveUpdates } from "../announcements/AnnouncementLiveUpdates";
import { CancelledAnnouncementNotices } from "../announcements/CancelledAnnouncementNotices";
import { ObservationLiveUpdates } from "../observations/ObservationLiveUpdates";
import { ObservatoryLiveUpdates } from "../observatories/ObservatoryLiveUpdates";
import { TimeDisplaySync } from "../profile/TimeDisplaySync";
import { SystemAnnouncementGate } from "../announcements/SystemAnnouncementGate";
import { useBlockingAnnouncements } from "../announcements/useBlockingAnnouncements";
import { useMe } from "../auth/useMe";
import { RealtimeProvider } from "../lib/realtime";
import { queryClient, trpc } from "../trpc";
import { Logo } from "./Logo";
import { NavigationDrawer } from "./NavigationDrawer";
import { SideNav } from "./SideNav";
import { UserMenu } from "./UserMenu";

/** A closed socket's credentials may be gone: asking who is signed in sends a signed-out user to the login page. */
const recheckSession = () => void queryClient.invalidateQueries(trpc.auth.me.queryFilter());

/**
 * The signed-in app: one realtime connection per user (a new one when the user changes), and the
 * frame, which pending system announcements block until they are acknowledged.
 */
export function AppLayout() {
  const me = useMe();
  return (
    <RealtimeProvider key={me.data?.id} onCredentialsGone={recheckSession}>
      <AnnouncementLiveUpdates />
      <ObservationLiveUpdates />
      <ObservatoryLiveUpdates />
      <TimeDisplaySync />
      <AppFrame />
    </RealtimeProvider>
  );
}

/** Side navigation (a drawer on phones), top bar with the user menu, and the page. */
function AppFrame() {
  const blocking = useBlockingAnnouncements();
  const [drawerOpen, setDrawerOpen] = useState(false);
  const closeDrawer = useCallback(() => setDrawerOpen(false), []);
  return (
    <>
      <div inert={blocking.length > 0} className="min-h-dvh bg-slate-50">
        <a
          href="#main"
          className="sr-only focus:not-sr-only focus:absolute focus:top-2 focus:left-2 focus:z-50 focus:rounded focus:bg-white focus:px-3 focus:py-2"
        >
          Skip to content
        </a>

        <aside className="fixed inset-y-0 left-0 hidden w-64 flex-col border-r border-slate-200 bg-white lg:flex">
          <div className="flex h-16 items-center px-6">
            <Link to="/" aria-label="Meridian home">
              <Logo />
            </Link>
          </div>
          <div className="flex-1 overflow-y-auto px-3 py-4">
            <SideNav />
          </div>
        </aside>

        {drawerOpen ? <NavigationDrawer onClose={closeDrawer} /> : null}

        <div className="lg:pl-64">
          <header className="sticky top-0 z-20 flex h-16 items-center gap-3 border-b border-slate-200 bg-white/90 px-4 backdrop-blur sm:px-6">
            <button
              type="button"
              aria-label="Open navigation"
              onClick={() => setDrawerOpen(true)}
              className="rounded-md p-2 text-slate-500 hover:bg-slate-100 lg:hidden"
            >
              <Menu aria-hidden="true" className="size-5" />
            </button>
            <Link to="/" className="lg:hidden" aria-label="Meridian home">
              <Logo />
            </Link>
            <div className="ml-auto">
              <UserMenu />
            </div>
          </header>
          <MaintenanceBanner />
          <CancelledAnnouncementNotices />
          {/* Focusable from script: the skip link's target, and where focus goes when what had it is gone (restoreFocus). */}
          <main id="main" tabIndex={-1} className="mx-auto w-full max-w-5xl px-4 py-6 outline-none sm:px-6 lg:py-8">
            <Outlet />
          </main>
        </div>
      </div>
      <SystemAnnouncementGate announcements={blocking} />
    </>
  );
}
