import { useEffect } from "react";

/** The browser tab names the page ("Users · Meridian"), and goes back to what it said when the page closes. */
export function useDocumentTitle(title: string) {
  useEffect(() => {
    const previous = document.title;
    document.title = `${title} · Meridian`;
    return () => {
      document.title = previous;
    };
  }, [title]);
}
