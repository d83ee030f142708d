import { Shield } from "lucide-react";
import { createBrowserRouter } from "react-router-dom";
import { GuestOnly, RequireAuth, RequireServerAdmin } from "./auth/RequireAuth";
import { AppLayout } from "./layout/AppLayout";
import { AnnouncementsPage } from "./pages/AnnouncementsPage";
import { ApiKeysPage } from "./pages/ApiKeysPage";
import { ComingSoonPage } from "./pages/ComingSoonPage";
import { DashboardPage } from "./pages/DashboardPage";
import { LoginPage } from "./pages/LoginPage";
import { NotFoundPage } from "./pages/NotFoundPage";
import { ObservatoriesPage } from "./pages/ObservatoriesPage";
import { ObservatoryPage } from "./pages/ObservatoryPage";
import { OrganizationPage } from "./pages/OrganizationPage";
import { OrganizationsPage } from "./pages/OrganizationsPage";
import { ProfilePage } from "./pages/ProfilePage";
import { ProjectPage } from "./pages/ProjectPage";
import { ProjectsPage } from "./pages/ProjectsPage";
import { SignupPage } from "./pages/SignupPage";

/** The server serves the SPA under /app/ (vite `base`); client routes are relative to it. */
export const basename = import.meta.env.BASE_URL.replace(/\/$/, "");

export const router = createBrowserRouter(
  [
    { path: "/login", element: <GuestOnly><LoginPage /></GuestOnly> },
    { path: "/signup", element: <GuestOnly><SignupPage /></GuestOnly> },
    {
      element: <RequireAuth><AppLayout /></RequireAuth>,
      children: [
        { index: true, element: <DashboardPage /> },
        { path: "profile", element: <ProfilePage /> },
        { path: "api-keys", element: <ApiKeysPage /> },
        { path: "observatories", element: <ObservatoriesPage /> },
        { path: "observatories/:id", element: <ObservatoryPage /> },
        { path: "organizations", element: <OrganizationsPage /> },
        { path: "organizations/:id", element: <OrganizationPage /> },
        { path: "projects", element: <ProjectsPage /> },
        { path: "projects/:id", element: <ProjectPage /> },
        { path: "announcements", element: <AnnouncementsPage /> },
        {
          path: "admin",
          element: <RequireServerAdmin><ComingSoonPage title="Administration" description="System settings, database integrity and backups." icon={Shield} /></RequireServerAdmin>,
        },
        { path: "*", element: <NotFoundPage /> },
      ],
    },
  ],
  { basename },
);
