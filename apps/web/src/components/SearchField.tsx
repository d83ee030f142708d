import { TextField } from "./TextField";

/** A box to search a list with (a search input: Escape empties it); nothing to fill in from the browser's memory. */
export function SearchField({
  label,
  placeholder,
  className,
  value,
  onChange,
}: {
  label: string;
  placeholder: string;
  className?: string;
  value: string;
  onChange(text: string): void;
}) {
  return (
    <TextField
      label={label}
      type="search"
      autoComplete="off"
      placeholder={placeholder}
      className={className}
      value={value}
      onChange={(event) => onChange(event.target.value)}
    />
  );
}
