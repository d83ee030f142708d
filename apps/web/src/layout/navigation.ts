import {
  Building2,
  Crosshair,
  ChartColumn,
  DatabaseBackup,
  DatabaseZap,
  FolderKanban,
  Images,
  KeyRound,
  ListChecks,
  LayoutDashboard,
  LockKeyhole,
  Megaphone,
  Network,
  Shield,
  SlidersHorizontal,
  Telescope,
  UserRound,
  UsersRound,
  type LucideIcon,
} from "lucide-react";

export interface NavItem {
  to: string;
  label: string;
  icon: LucideIcon;
  /** Shown only to server administrators. */
  adminOnly?: boolean;
  /** Active only on this exact path, not on the paths below it. */
  end?: boolean;
}

export interface NavSection {
  title?: string;
  items: NavItem[];
}

/** Every feature adds its entry here; the side navigation and the routes read the same list. */
export const navSections: NavSection[] = [
  {
    items: [
      { to: "/", label: "Dashboard", icon: LayoutDashboard, end: true },
      { to: "/observations", label: "Observations", icon: Crosshair },
      { to: "/frames", label: "Frames", icon: Images },
      { to: "/observatories", label: "Observatories", icon: Telescope },
      { to: "/network", label: "Network", icon: Network },
      { to: "/organizations", label: "Organizations", icon: Building2 },
      { to: "/projects", label: "Projects", icon: FolderKanban },
      { to: "/announcements", label: "Announcements", icon: Megaphone },
      { to: "/statistics", label: "Statistics", icon: ChartColumn },
    ],
  },
  {
    title: "Account",
    items: [
      { to: "/profile", label: "Profile", icon: UserRound },
      { to: "/security", label: "Security", icon: LockKeyhole },
      { to: "/api-keys", label: "API keys", icon: KeyRound },
    ],
  },
  {
    title: "Server",
    items: [
      { to: "/admin", label: "Administration", icon: Shield, adminOnly: true, end: true },
      { to: "/admin/users", label: "Users", icon: UsersRound, adminOnly: true },
      { to: "/admin/settings", label: "Server settings", icon: SlidersHorizontal, adminOnly: true },
      { to: "/admin/integrity", label: "Database integrity", icon: DatabaseZap, adminOnly: true },
      { to: "/admin/backups", label: "Backups", icon: DatabaseBackup, adminOnly: true },
      { to: "/admin/jobs", label: "Jobs", icon: ListChecks, adminOnly: true },
      { to: "/admin/analytics", label: "Analytics", icon: ChartColumn, adminOnly: true },
    ],
  },
];

export function visibleSections(isAdmin: boolean): NavSection[] {
  return navSections
    .map((section) => ({ ...section, items: section.items.filter((item) => !item.adminOnly || isAdmin) }))
    .filter((section) => section.items.length > 0);
}
