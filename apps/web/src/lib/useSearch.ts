import { useState } from "react";
import { useDebouncedValue } from "./useDebouncedValue";

/** How long typing must pause before the list is asked for again: one request per word rather than per letter. */
const SEARCH_SETTLE_MS = 300;

/** What a search box holds (`text`), and what to search for (`q`): the text trimmed, once typing has paused. */
export function useSearch() {
  const [text, setText] = useState("");
  const q = useDebouncedValue(text.trim(), SEARCH_SETTLE_MS);
  return { text, setText, q };
}
