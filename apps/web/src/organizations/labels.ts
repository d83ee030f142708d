import type { ExternalStorageKind, OrganizationPermissionKey, OrganizationPermissions, OrganizationType } from "./types";

export const organizationTypeLabels: Record<OrganizationType, string> = {
  university: "University",
  college: "College",
  high_school: "High school",
  research_institute: "Research institute",
  observatory: "Observatory",
  company: "Company",
  nonprofit: "Nonprofit",
  other: "Other",
};

export const organizationTypes = Object.keys(organizationTypeLabels) as OrganizationType[];

export interface OrganizationPermissionInfo {
  key: OrganizationPermissionKey;
  label: string;
  description: string;
}

/**
 * In the order docs/api-contract.md lists them. `can_manage_billing` is left out on purpose: the API
 * still accepts and stores it, but it grants nothing and the spec's later version dropped it.
 */
export const organizationPermissionInfo: OrganizationPermissionInfo[] = [
  { key: "can_manage_members", label: "Manage members", description: "Add and remove members, change their permissions, read the audit log." },
  { key: "can_manage_observatories", label: "Manage observatories", description: "Create observatories owned by the organization." },
  { key: "can_manage_projects", label: "Manage projects", description: "Create and manage the organization's projects." },
  { key: "can_manage_storage", label: "Manage storage", description: "Configure external storage destinations and their secrets." },
];

export const permissionLabel = (key: string) => organizationPermissionInfo.find((info) => info.key === key)?.label ?? key;

export const noOrganizationPermissions = (): OrganizationPermissions => ({
  can_manage_members: false,
  can_manage_observatories: false,
  can_manage_projects: false,
  can_manage_billing: false,
  can_manage_storage: false,
});

export interface StorageFieldInfo {
  key: string;
  label: string;
  placeholder?: string;
  /** A yes-or-no setting, sent as a boolean (a checkbox rather than a text field). */
  boolean?: boolean;
  description?: string;
}

export interface StorageKindInfo {
  label: string;
  settings: StorageFieldInfo[];
  secrets: StorageFieldInfo[];
}

export const storageKinds: Record<ExternalStorageKind, StorageKindInfo> = {
  s3: {
    label: "Amazon S3 (or compatible)",
    settings: [
      { key: "bucket", label: "Bucket", placeholder: "observations" },
      { key: "region", label: "Region", placeholder: "eu-central-1" },
      { key: "endpoint", label: "Endpoint", placeholder: "https://s3.example.org (optional)" },
      { key: "prefix", label: "Key prefix", placeholder: "meridian/ (optional)" },
      {
        key: "forcePathStyle",
        label: "Path-style addresses",
        boolean: true,
        description: "endpoint/bucket/key rather than bucket.endpoint/key; most self-hosted S3 stores need it.",
      },
    ],
    secrets: [
      { key: "accessKeyId", label: "Access key ID" },
      { key: "secretAccessKey", label: "Secret access key" },
    ],
  },
  google_drive: {
    label: "Google Drive",
    settings: [{ key: "folderId", label: "Folder ID", placeholder: "1AbCdEf…" }],
    secrets: [
      { key: "refreshToken", label: "Refresh token" },
      { key: "clientId", label: "OAuth client ID" },
      { key: "clientSecret", label: "OAuth client secret" },
    ],
  },
  dropbox: {
    label: "Dropbox",
    settings: [{ key: "folder", label: "Folder", placeholder: "/Meridian" }],
    secrets: [
      { key: "refreshToken", label: "Refresh token" },
      { key: "appKey", label: "App key" },
      { key: "appSecret", label: "App secret" },
    ],
  },
};

export const storageKindList = Object.keys(storageKinds) as ExternalStorageKind[];

export function settingLabel(kind: ExternalStorageKind, key: string) {
  return storageKinds[kind].settings.find((field) => field.key === key)?.label ?? key;
}

export function secretLabel(kind: ExternalStorageKind, key: string) {
  return storageKinds[kind].secrets.find((field) => field.key === key)?.label ?? key;
}
