import { z } from "zod";
import { withoutControlCharacters } from "./field-schemas";
import { fieldMessage, issuePredicate, type IssueDetails } from "./validation-messages";

/**
 * What an organization's storage destination of each kind holds (docs/api-contract.md, "Delivery
 * to organization storage"), defined once: the API's input (`packages/domain`, organizations'
 * `externalStorage`) and the web's destination form check with these schemas, so the form refuses
 * what the API refuses, in its words. Unknown keys are refused, as everywhere in the API.
 */

export const storageDestinationKinds = ["google_drive", "dropbox", "s3"] as const;
export type StorageDestinationKind = (typeof storageDestinationKinds)[number];

const required = withoutControlCharacters(z.string().trim().min(1).max(2000));
const optionalText = withoutControlCharacters(z.string().trim().max(2000)).optional();

const isHttpUrl = (value: string) => {
  try {
    return ["http:", "https:"].includes(new URL(value).protocol);
  } catch {
    return false;
  }
};
const httpUrl = withoutControlCharacters(z.string().trim().max(2000)).refine(isHttpUrl, "must be an http or https URL");
const flag = z.union([z.boolean(), z.enum(["true", "false"])], { error: "must be true or false" });

export const storageSettingsSchemas = {
  s3: z.strictObject({
    endpoint: httpUrl.optional().describe("An S3-compatible service's http(s) URL; AWS when left out"),
    region: required,
    bucket: required,
    prefix: optionalText.describe("Put before every remote path"),
    forcePathStyle: flag.optional().describe('Path-style addresses (`endpoint/bucket/key`): a boolean, or "true" / "false"'),
  }),
  dropbox: z.strictObject({ folder: required }),
  google_drive: z.strictObject({ folderId: required }),
} satisfies Record<StorageDestinationKind, z.ZodObject>;

const secret = z.string().trim().min(1).max(10_000);

export const storageSecretsSchemas = {
  s3: z.strictObject({ accessKeyId: secret, secretAccessKey: secret }),
  dropbox: z.strictObject({ refreshToken: secret, appKey: secret, appSecret: secret }),
  google_drive: z.strictObject({ refreshToken: secret, clientId: secret, clientSecret: secret }),
} satisfies Record<StorageDestinationKind, z.ZodObject>;

/** The names of the settings a kind has, each with whether it must be given. */
export function storageSettingKeys(kind: StorageDestinationKind): Array<{ key: string; required: boolean }> {
  return Object.entries(storageSettingsSchemas[kind].shape as Record<string, z.ZodType>).map(([key, schema]) => ({
    key,
    required: !schema.safeParse(undefined).success,
  }));
}

function problemsOf(schema: z.ZodType, value: unknown, field: "settings" | "secrets", problems: Record<string, string>) {
  const result = schema.safeParse(value ?? {}, { error: (issue) => issuePredicate(issue as IssueDetails) });
  for (const issue of result.error?.issues ?? []) {
    const path = [field, ...issue.path];
    problems[path.map(String).join(".")] ??= fieldMessage(path, issue.message);
  }
}

/**
 * What the API would say of a destination's settings and, when given, its secrets, keyed by the
 * path under the destination (`settings.bucket`, `secrets.appKey`), each the sentence it would
 * carry; the first problem of a field only. Parsed with the server's error map.
 */
export function storageDestinationProblems(options: { kind: StorageDestinationKind; settings: unknown; secrets?: unknown }): Record<string, string> {
  const problems: Record<string, string> = {};
  problemsOf(storageSettingsSchemas[options.kind], options.settings, "settings", problems);
  if (options.secrets !== undefined) problemsOf(storageSecretsSchemas[options.kind], options.secrets, "secrets", problems);
  return problems;
}
