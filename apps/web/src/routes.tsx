import type { ComponentType, ReactNode } from "react";
import { createBrowserRouter, Outlet } from "react-router-dom";
import { GuestOnly, RequireAuth, RequireServerAdmin } from "./auth/RequireAuth";
import { AppLayout } from "./layout/AppLayout";
import { DashboardPage } from "./pages/DashboardPage";
import { LoginPage } from "./pages/LoginPage";
import { NotFoundPage } from "./pages/NotFoundPage";
import { SignupPage } from "./pages/SignupPage";

/**
 * Pages other than the dashboard load on first visit, so the first paint (and the blocking
 * announcements modal) needs only the small main bundle.
 */
function page<Module extends Record<string, unknown>>(load: () => Promise<Module>, name: keyof Module) {
  return async () => ({ Component: (await load())[name] as ComponentType });
}

/** The server serves the SPA under /app/ (vite `base`); client routes are relative to it. */
export const basename = import.meta.env.BASE_URL.replace(/\/$/, "");

/** Each route on one line, as the phone-layout test reads this file to find the pages. */
const guestOnly = (page: ReactNode) => <GuestOnly>{page}</GuestOnly>;

export const router = createBrowserRouter(
  [
    { path: "/login", element: guestOnly(<LoginPage />) },
    { path: "/signup", element: guestOnly(<SignupPage />) },
    // Not guest-only: a reset link must work in a browser where someone is still signed in.
    { path: "/forgot-password", lazy: page(() => import("./pages/ForgotPasswordPage"), "ForgotPasswordPage") },
    { path: "/reset-password", lazy: page(() => import("./pages/ResetPasswordPage"), "ResetPasswordPage") },
    {
      element: (
        <RequireAuth>
          <AppLayout />
        </RequireAuth>
      ),
      children: [
        { index: true, element: <DashboardPage /> },
        { path: "profile", lazy: page(() => import("./pages/ProfilePage"), "ProfilePage") },
        { path: "security", lazy: page(() => import("./pages/SecurityPage"), "SecurityPage") },
        { path: "api-keys", lazy: page(() => import("./pages/ApiKeysPage"), "ApiKeysPage") },
        { path: "observations", lazy: page(() => import("./pages/ObservationsPage"), "ObservationsPage") },
        { path: "observations/new", lazy: page(() => import("./pages/NewObservationPage"), "NewObservationPage") },
        { path: "observations/:id", lazy: page(() => import("./pages/ObservationPage"), "ObservationPage") },
        { path: "observatories", lazy: page(() => import("./pages/ObservatoriesPage"), "ObservatoriesPage") },
        { path: "observatories/:id", lazy: page(() => import("./pages/ObservatoryPage"), "ObservatoryPage") },
        { path: "organizations", lazy: page(() => import("./pages/OrganizationsPage"), "OrganizationsPage") },
        { path: "organizations/:id", lazy: page(() => import("./pages/OrganizationPage"), "OrganizationPage") },
        { path: "projects", lazy: page(() => import("./pages/ProjectsPage"), "ProjectsPage") },
        { path: "projects/:id", lazy: page(() => import("./pages/ProjectPage"), "ProjectPage") },
        { path: "statistics", lazy: page(() => import("./pages/AnalyticsPage"), "MyAnalyticsPage") },
        { path: "announcements", lazy: page(() => import("./pages/AnnouncementsPage"), "AnnouncementsPage") },
        {
          path: "admin",
          element: (
            <RequireServerAdmin>
              <Outlet />
            </RequireServerAdmin>
          ),
          children: [
            { index: true, lazy: page(() => import("./pages/AdministrationPage"), "AdministrationPage") },
            { path: "users", lazy: page(() => import("./pages/AdminUsersPage"), "AdminUsersPage") },
            { path: "integrity", lazy: page(() => import("./pages/IntegrityPage"), "IntegrityPage") },
            { path: "backups", lazy: page(() => import("./pages/BackupsPage"), "BackupsPage") },
            { path: "jobs", lazy: page(() => import("./pages/JobsPage"), "JobsPage") },
            { path: "analytics", lazy: page(() => import("./pages/AnalyticsPage"), "SystemAnalyticsPage") },
          ],
        },
        { path: "*", element: <NotFoundPage /> },
      ],
    },
  ],
  { basename },
);
