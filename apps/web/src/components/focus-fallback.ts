/** Whether focus is lost: on the page's body (the element that had it was disabled or removed), or nowhere. */
const focusIsLost = () => document.activeElement === null || document.activeElement === document.body;

/**
 * Focus back on what had it before a dialog opened, when it can still take it; else, when focus is
 * lost, on the page's main content (the landmark the skip link leads to), never left on the body,
 * where a keyboard or screen reader user starts over at the top of the page.
 */
export function restoreFocus(opener: HTMLElement | null): void {
  if (opener?.isConnected && opener !== document.body && !opener.matches(":disabled")) opener.focus();
  if (!focusIsLost()) return;
  const main = document.querySelector<HTMLElement>("main");
  if (!main) return;
  if (!main.hasAttribute("tabindex")) main.tabIndex = -1;
  main.focus({ preventScroll: true });
}
