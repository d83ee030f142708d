import type { ReactNode } from "react";
import { FileImage } from "lucide-react";
import { Link } from "react-router-dom";
import { separationArcsec } from "@meridian/rules/frames";
import { Badge } from "../components/Badge";
import { DataTable, td, Th } from "../components/Table";
import { Time } from "../components/Time";
import { dateObsInstant, formatExposure, formatFwhm, formatSkyAngle, gradeOf } from "./frame-words";
import type { FoundFrame } from "./types";
import type { FrameSelection } from "./useFrameSelection";

export interface FrameObservatory {
  name: string | undefined;
  timeZone: string | undefined;
}

const box = "size-4 rounded border-slate-300 accent-indigo-600 disabled:cursor-not-allowed disabled:opacity-50";

/** On a phone the headings are gone (each row is a card): a value names what it is. */
const PhoneLabel = ({ children }: { children: ReactNode }) => <span className="text-slate-500 sm:hidden">{children} </span>;

/** Whichever the frame is best known by: its target, the header's OBJECT, its file name. */
const frameTitle = (file: FoundFrame) => file.frame.targetName ?? file.frame.header.object ?? file.filename;

/**
 * The frames found, nearest first for a cone search: each with its preview, target, observatory,
 * when it was taken (in the observatory's zone, named), filter, exposure, grade (and why it was
 * rejected), stars, FWHM, pointing offset and, with a search point, its distance from it. On a
 * phone each row is a card.
 */
export function FrameResults({
  items,
  origin,
  observatoryOf,
  selection,
}: {
  items: readonly FoundFrame[];
  origin: { ra: number; dec: number } | null;
  observatoryOf(file: FoundFrame): FrameObservatory;
  selection: FrameSelection;
}) {
  return (
    <DataTable
      label="Frames"
      stackOnPhone
      columns={
        <>
          <Th>Frame</Th>
          <Th>Observatory</Th>
          <Th>Taken</Th>
          <Th>Filter</Th>
          <Th>Exposure</Th>
          <Th>Grade</Th>
          <Th>Stars</Th>
          <Th>FWHM</Th>
          <Th>Offset</Th>
          {origin ? <Th>Distance</Th> : null}
        </>
      }
    >
      {items.map((file) => {
        const { frame } = file;
        const where = observatoryOf(file);
        const grade = gradeOf(frame);
        const title = frameTitle(file);
        const checked = selection.has(file.id);
        const taken = dateObsInstant(frame.header.dateObs);
        return (
          <tr key={file.id} className="hover:bg-slate-50" data-frame-id={file.id}>
            <td className={td}>
              <div className="flex min-w-0 items-center gap-3">
                <input
                  type="checkbox"
                  className={box}
                  aria-label={`Select ${file.filename}`}
                  checked={checked}
                  disabled={!checked && selection.full}
                  title={!checked && selection.full ? "A download holds at most 200 frames: let some go first." : undefined}
                  onChange={(event) => selection.toggle(file.id, event.target.checked)}
                />
                {file.previewId ? (
                  <img
                    src={`/files/${file.previewId}/download`}
                    alt={`Preview of ${file.filename}`}
                    loading="lazy"
                    className="size-14 shrink-0 rounded object-cover ring-1 ring-slate-200"
                  />
                ) : (
                  <span className="flex size-14 shrink-0 items-center justify-center rounded bg-slate-50 text-slate-400" title="No preview">
                    <FileImage aria-hidden="true" className="size-6" />
                  </span>
                )}
                <div className="min-w-0">
                  <Link to={`/observations/${file.observationId}`} className="font-medium break-words text-slate-900 hover:text-indigo-600">
                    {title}
                  </Link>
                  <p className="truncate text-xs text-slate-500" title={file.filename}>
                    {file.filename}
                  </p>
                </div>
              </div>
            </td>
            <td className={td}>{where.name ?? "—"}</td>
            <td className={`${td} whitespace-nowrap`}>
              {taken ? (
                <Time iso={taken} zone={where.timeZone} short />
              ) : (
                <>
                  <span className="text-slate-500">Uploaded </span>
                  <Time iso={file.createdAt} zone={where.timeZone} short />
                </>
              )}
            </td>
            <td className={td}>
              <PhoneLabel>Filter</PhoneLabel>
              {frame.header.filter ?? "—"}
            </td>
            <td className={`${td} whitespace-nowrap`}>{formatExposure(frame.header.exposureSeconds)}</td>
            <td className={td}>
              <Badge tone={grade.tone}>{grade.label}</Badge>
              {grade.why ? <p className="mt-1 text-xs text-slate-600">{grade.why}</p> : null}
            </td>
            <td className={td}>
              <PhoneLabel>Stars</PhoneLabel>
              {frame.stars ?? "—"}
            </td>
            <td className={`${td} whitespace-nowrap`}>
              <PhoneLabel>FWHM</PhoneLabel>
              {formatFwhm(frame.fwhmArcsec)}
            </td>
            <td className={`${td} whitespace-nowrap`}>
              <PhoneLabel>Offset</PhoneLabel>
              {formatSkyAngle(frame.pointingOffsetArcsec)}
            </td>
            {origin ? (
              <td className={`${td} whitespace-nowrap`} data-distance>
                <PhoneLabel>Distance</PhoneLabel>
                {frame.solution ? formatSkyAngle(separationArcsec(origin, frame.solution)) : "—"}
              </td>
            ) : null}
          </tr>
        );
      })}
    </DataTable>
  );
}
