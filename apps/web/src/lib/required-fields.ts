/** Messages for required fields left blank, checked before calling the server. */
export function missingFields<T extends Record<string, string>>(values: T, messages: Partial<Record<keyof T, string>>): Partial<Record<keyof T, string>> {
  const errors: Partial<Record<keyof T, string>> = {};
  for (const key of Object.keys(messages) as Array<keyof T>) {
    if (!values[key]?.trim()) errors[key] = messages[key];
  }
  return errors;
}

export const hasErrors = (errors: object) => Object.keys(errors).length > 0;
