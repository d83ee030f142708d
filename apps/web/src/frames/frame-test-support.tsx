import type { FoundFrame } from "./types";

/** An analysed frame as the search answers it; `frame` fields override the accepted defaults. */
export function foundFrame(id: string, fields: Omit<Partial<FoundFrame>, "frame"> & { frame?: Partial<FoundFrame["frame"]> } = {}): FoundFrame {
  const { frame, ...file } = fields;
  return {
    id,
    observationId: "obs-1",
    filename: `${id}.fits`,
    sizeBytes: 2_880,
    sha256: "0".repeat(64),
    contentType: "application/fits",
    kind: "image",
    previewOfId: null,
    deliveries: [],
    createdAt: "2026-11-20T21:30:00.000Z",
    ...file,
    frame: {
      status: "analysed",
      failure: null,
      header: {
        object: "M 31",
        dateObs: "2026-11-20T21:15:00.000Z",
        exposureSeconds: 120,
        filter: "Ha",
        binning: 1,
        width: 1024,
        height: 1024,
        ra: 10.68,
        dec: 41.27,
        imageType: "LIGHT",
      },
      targetName: "M 31",
      stars: 312,
      fwhmArcsec: 2.43,
      hfrArcsec: 1.3,
      eccentricity: 0.3,
      backgroundAdu: 1000,
      solution: { ra: 10.68, dec: 41.27, pixelScaleArcsec: 1.5, rotationDeg: 0, widthDeg: 0.4, heightDeg: 0.4 },
      solveFailure: null,
      pointingOffsetArcsec: 42.5,
      grade: "accepted",
      rejectedFor: [],
      analysedAt: "2026-11-20T21:31:00.000Z",
      ...frame,
    },
  };
}
