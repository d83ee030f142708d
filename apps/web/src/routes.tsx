import type { ComponentType, ReactNode } from "react";
import { createBrowserRouter, Outlet } from "react-router-dom";
import { GuestOnly, RequireAuth, RequireServerAdmin } from "./auth/RequireAuth";
import { Spinner } from "./components/Spinner";
import { AppLayout } from "./layout/AppLayout";
import { DashboardPage } from "./pages/DashboardPage";
import { LoginPage } from "./pages/LoginPage";
import { NotFoundPage } from "./pages/NotFoundPage";
import { SignupPage } from "./pages/SignupPage";

/**
 * Pages other than the dashboard load on first visit, so the first paint (and the blocking
 * announcements modal) needs only the small main bundle. Until a page's code is there on the
 * first load, the layout shows a spinner in its place (React Router's hydrate fallback).
 */
function page<Module extends Record<string, unknown>>(load: () => Promise<Module>, name: keyof Module) {
  return {
    lazy: async () => ({ Component: (await load())[name] as ComponentType }),
    hydrateFallbackElement: <Spinner label="Loading the page" />,
  };
}

/** The server serves the SPA under /app/ (vite `base`); client routes are relative to it. */
const basename = import.meta.env.BASE_URL.replace(/\/$/, "");

/** Each route on one line, as the phone-layout test reads this file to find the pages. */
const guestOnly = (page: ReactNode) => <GuestOnly>{page}</GuestOnly>;

export const router = createBrowserRouter(
  [
    { path: "/login", element: guestOnly(<LoginPage />) },
    { path: "/signup", element: guestOnly(<SignupPage />) },
    // Not guest-only: a reset link must work in a browser where someone is still signed in.
    { path: "/forgot-password", ...page(() => import("./pages/ForgotPasswordPage"), "ForgotPasswordPage") },
    { path: "/reset-password", ...page(() => import("./pages/ResetPasswordPage"), "ResetPasswordPage") },
    // The link mailed to a new address: its token is the credential, whoever is signed in here.
    { path: "/confirm-email", ...page(() => import("./pages/ConfirmEmailPage"), "ConfirmEmailPage") },
    // Not guest-only either: whoever opens an invitation may be signed in, as the invited address or another.
    { path: "/invitations/:token", ...page(() => import("./pages/InvitationPage"), "InvitationPage") },
    {
      element: (
        <RequireAuth>
          <AppLayout />
        </RequireAuth>
      ),
      children: [
        { index: true, element: <DashboardPage /> },
        { path: "profile", ...page(() => import("./pages/ProfilePage"), "ProfilePage") },
        { path: "security", ...page(() => import("./pages/SecurityPage"), "SecurityPage") },
        { path: "api-keys", ...page(() => import("./pages/ApiKeysPage"), "ApiKeysPage") },
        { path: "observations", ...page(() => import("./pages/ObservationsPage"), "ObservationsPage") },
        { path: "observations/new", ...page(() => import("./pages/NewObservationPage"), "NewObservationPage") },
        { path: "observations/:id", ...page(() => import("./pages/ObservationPage"), "ObservationPage") },
        { path: "frames", ...page(() => import("./pages/FramesPage"), "FramesPage") },
        { path: "observatories", ...page(() => import("./pages/ObservatoriesPage"), "ObservatoriesPage") },
        { path: "observatories/:id", ...page(() => import("./pages/ObservatoryPage"), "ObservatoryPage") },
        { path: "network", ...page(() => import("./pages/NetworkPage"), "NetworkPage") },
        { path: "organizations", ...page(() => import("./pages/OrganizationsPage"), "OrganizationsPage") },
        { path: "organizations/:id", ...page(() => import("./pages/OrganizationPage"), "OrganizationPage") },
        { path: "projects", ...page(() => import("./pages/ProjectsPage"), "ProjectsPage") },
        { path: "projects/:id", ...page(() => import("./pages/ProjectPage"), "ProjectPage") },
        { path: "statistics", ...page(() => import("./pages/AnalyticsPage"), "MyAnalyticsPage") },
        { path: "announcements", ...page(() => import("./pages/AnnouncementsPage"), "AnnouncementsPage") },
        {
          path: "admin",
          element: (
            <RequireServerAdmin>
              <Outlet />
            </RequireServerAdmin>
          ),
          children: [
            { index: true, ...page(() => import("./pages/AdministrationPage"), "AdministrationPage") },
            { path: "users", ...page(() => import("./pages/AdminUsersPage"), "AdminUsersPage") },
            { path: "settings", ...page(() => import("./pages/ServerSettingsPage"), "ServerSettingsPage") },
            { path: "integrity", ...page(() => import("./pages/IntegrityPage"), "IntegrityPage") },
            { path: "backups", ...page(() => import("./pages/BackupsPage"), "BackupsPage") },
            { path: "jobs", ...page(() => import("./pages/JobsPage"), "JobsPage") },
            { path: "analytics", ...page(() => import("./pages/AnalyticsPage"), "SystemAnalyticsPage") },
          ],
        },
        { path: "*", element: <NotFoundPage /> },
      ],
    },
  ],
  { basename },
);
