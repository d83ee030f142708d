import { useEffect } from "react";
import { setTimeDisplay } from "../lib/time-display";
import { useProfile } from "./useProfile";

/** Puts the profile's `timeDisplay` (absent: "observatory") into effect for every page once the profile is read. */
export function TimeDisplaySync() {
  const profile = useProfile();
  const choice = profile.data ? (profile.data.timeDisplay ?? "observatory") : undefined;
  useEffect(() => {
    if (choice) setTimeDisplay(choice);
  }, [choice]);
  return null;
}
