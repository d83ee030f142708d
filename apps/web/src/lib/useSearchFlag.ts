import { useSearchParams } from "react-router-dom";

/**
 * Something open (a dialog) whose state lives in the address as `?name=open`, so a link from
 * another page (the dashboard's checklist) can open it; closing it takes the parameter away.
 */
export function useSearchFlag(name: string): [boolean, (open: boolean) => void] {
  const [searchParams, setSearchParams] = useSearchParams();
  const set = (open: boolean) =>
    setSearchParams(
      (current) => {
        const next = new URLSearchParams(current);
        if (open) next.set(name, "open");
        else next.delete(name);
        return next;
      },
      { replace: true },
    );
  return [searchParams.get(name) === "open", set];
}
