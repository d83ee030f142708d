import { useEffect } from "react";

/** The browser tab names the page: "Users · Meridian". */
export function useDocumentTitle(title: string) {
  useEffect(() => {
    document.title = `${title} · Meridian`;
  }, [title]);
}
