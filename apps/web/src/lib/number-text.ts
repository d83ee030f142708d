/** A number typed in a text field; text that is not a number stays as it is, so the server names the field. */
export const asNumber = (text: string) => (text.trim() !== "" && Number.isFinite(Number(text)) ? Number(text) : (text as unknown as number));
