/** A user as the administration list shows them. */
export interface AdminUser {
  id: string;
  email: string;
  name: string;
  roles: string[];
  disabled: boolean;
  createdAt: string;
  lastLoginAt: string | null;
}

export const SERVER_ADMIN = "serverAdmin" as const;

export const isAdmin = (user: Pick<AdminUser, "roles">) => user.roles.includes(SERVER_ADMIN);

/**
 * The only enabled server admin, when the server counts just one (`enabledServerAdmins`, whatever the
 * search and the pages loaded) and it is among `users`: the server refuses to take that role away or
 * to disable it (LAST_SERVER_ADMIN).
 */
export function onlyEnabledAdmin(users: AdminUser[], enabledServerAdmins: number | undefined): AdminUser | undefined {
  return enabledServerAdmins === 1 ? users.find((user) => isAdmin(user) && !user.disabled) : undefined;
}

export type UserChangeKind = "disable" | "enable" | "grantAdmin" | "revokeAdmin";

export interface UserChange {
  kind: UserChangeKind;
  user: AdminUser;
}

/** The `admin.updateUser` input that makes a change: `roles` lists the server roles to hold (other roles are kept by the server). */
export function updateInput({ kind, user }: UserChange): { id: string; disabled?: boolean; roles?: Array<typeof SERVER_ADMIN> } {
  switch (kind) {
    case "disable":
      return { id: user.id, disabled: true };
    case "enable":
      return { id: user.id, disabled: false };
    case "grantAdmin":
      return { id: user.id, roles: [SERVER_ADMIN] };
    case "revokeAdmin":
      return { id: user.id, roles: [] };
  }
}

/** What the confirmation dialog and the notice afterwards say about a change. */
export function describeChange({ kind, user }: UserChange, self: boolean) {
  const who = self ? "You" : user.name;
  switch (kind) {
    case "disable":
      return {
        title: "Disable account?",
        confirm: "Disable account",
        body:
          `${who} will be signed out everywhere and ${self ? "your" : "their"} API keys stop ` +
          `working at once. Nobody can sign in to ${user.email} until it is enabled again.`,
        done: `${user.name} was disabled.`,
      };
    case "enable":
      return {
        title: "Enable account?",
        confirm: "Enable account",
        body: `${who} will be able to sign in to ${user.email} again.`,
        done: `${user.name} was enabled.`,
      };
    case "grantAdmin":
      return {
        title: "Make server admin?",
        confirm: "Make server admin",
        body: `${who} will be able to manage every user and every server setting, and see everything on this server.`,
        done: `${user.name} is now a server admin.`,
      };
    case "revokeAdmin":
      return {
        title: "Remove server admin?",
        confirm: "Remove server admin",
        body: `${who} will lose access to Administration.${self ? " This page will close for you." : ""}`,
        done: `${user.name} is no longer a server admin.`,
      };
  }
}
