import { ChevronLeft, ChevronRight } from "lucide-react";
import { Button } from "../../components/Button";
import { SelectField } from "../../components/SelectField";
import { dayName, shiftDate } from "../../lib/zone-time";

/** Tonight and the nights after it that the picker offers. */
const NIGHTS = 8;

const nightName = (date: string, index: number) => (index === 0 ? `Tonight, ${dayName(date)}` : index === 1 ? `Tomorrow, ${dayName(date)}` : dayName(date));

/**
 * Tonight (`first`, the observatory's current night) and the seven nights after it, by the date each
 * begins on in the observatory's zone; a night from a shared link beyond them is offered too.
 */
export function NightPicker({ first, value, onChange }: { first: string; value: string; onChange(date: string): void }) {
  const nights = Array.from({ length: NIGHTS }, (_, index) => shiftDate(first, index));
  const options = nights.includes(value) ? nights : [...nights, value].sort();
  const index = options.indexOf(value);
  return (
    <div className="flex items-end gap-2">
      <Button
        variant="secondary"
        aria-label="Previous night"
        disabled={index <= 0}
        onClick={() => onChange(options[index - 1]!)}
        icon={<ChevronLeft aria-hidden="true" className="size-4" />}
        className="px-2.5"
      />
      <SelectField label="Night" value={value} onChange={(event) => onChange(event.target.value)} className="min-w-0 flex-1 sm:w-56 sm:flex-none">
        {options.map((date) => (
          <option key={date} value={date}>
            {nightName(date, nights.indexOf(date))}
          </option>
        ))}
      </SelectField>
      <Button
        variant="secondary"
        aria-label="Next night"
        disabled={index >= options.length - 1}
        onClick={() => onChange(options[index + 1]!)}
        icon={<ChevronRight aria-hidden="true" className="size-4" />}
        className="px-2.5"
      />
    </div>
  );
}
