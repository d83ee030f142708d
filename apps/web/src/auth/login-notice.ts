/** A message for the sign-in page, carried in the navigation state by the page that sent the visitor there. */
interface LoginNoticeState {
  loginNotice: string;
}

export const loginNoticeState = (message: string): LoginNoticeState => ({ loginNotice: message });

export function readLoginNotice(state: unknown): string | null {
  const message = (state as Partial<LoginNoticeState> | null)?.loginNotice;
  return typeof message === "string" ? message : null;
}
