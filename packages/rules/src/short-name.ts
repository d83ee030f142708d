import { fieldMessage } from "./validation-messages";

/** Short names: 2–32 characters, letters, digits, "-" or "_", starting with a letter or digit. */
export const SHORT_NAME_PATTERN = /^[A-Za-z0-9][A-Za-z0-9_-]{1,31}$/;
/** The rule in words, as the form's hint shows it and as the error message states it. */
export const SHORT_NAME_FORMAT = "2–32 letters, digits, “-” or “_”, starting with a letter or digit";
export const SHORT_NAME_PREDICATE = `must be ${SHORT_NAME_FORMAT}`;
/** What the API says about a short name of the wrong form. */
export const SHORT_NAME_MESSAGE = fieldMessage(["shortName"], SHORT_NAME_PREDICATE);

/** The message the API gives for this short name, or null when it has the right form. */
export function shortNameProblem(value: string): string | null {
  return SHORT_NAME_PATTERN.test(value.trim()) ? null : SHORT_NAME_MESSAGE;
}
