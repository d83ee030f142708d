import { describeCron, isCronExpression, nextCronTimes } from "@meridian/rules/cron";
import type { ReactNode } from "react";
import { TextField, type TextFieldProps } from "../components/TextField";
import { formatDateTime } from "../lib/format";

const NEXT_RUNS = 3;

/** A valid expression in words and its next runs in the reader's time, read by the server's own parser. */
export function cronExplanation(expression: string, now = new Date()): string {
  const trimmed = expression.trim();
  if (!trimmed) return "Never.";
  if (!isCronExpression(trimmed)) return "";
  const runs = nextCronTimes(trimmed, now, NEXT_RUNS).map((run) => formatDateTime(run.toISOString()));
  return `${describeCron(trimmed)} (UTC). Next: ${runs.join("; ")} (your time).`;
}

/** A cron expression (five fields, UTC): its help, then what it means and when it runs next, or the API's message beside it. */
export function CronField({ help, value, ...field }: Omit<TextFieldProps, "hint" | "value"> & { help: ReactNode; value: string }) {
  const explanation = cronExplanation(value);
  return (
    <TextField
      {...field}
      value={value}
      autoCapitalize="none"
      autoComplete="off"
      spellCheck={false}
      hint={
        <>
          <span className="block">{help}</span>
          {explanation ? <span className="mt-1 block text-slate-700">{explanation}</span> : null}
        </>
      }
    />
  );
}
