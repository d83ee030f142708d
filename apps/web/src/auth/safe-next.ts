/** Only paths inside the app are accepted as a place to return to after signing in. */
export function safeNextPath(value: string | null): string {
  if (!value || !value.startsWith("/") || value.startsWith("//") || value.startsWith("/login") || value.startsWith("/signup")) return "/";
  return value;
}
