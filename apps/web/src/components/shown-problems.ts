/** The first control inside `root` that shows an error (Field marks it aria-invalid), if it can take focus. */
export function firstInvalidControl(root: HTMLElement): HTMLElement | null {
  return root.querySelector<HTMLElement>('[aria-invalid="true"]:not(:disabled)');
}

/** Whether `root` shows that something went wrong: an error alert or a control in error. */
export function showsProblem(root: HTMLElement): boolean {
  return root.querySelector('[role="alert"], [aria-invalid="true"]') !== null;
}
