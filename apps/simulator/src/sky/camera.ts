import { catalogStars, indexForField, openStarCatalog, type StarIndex } from "./catalog";
import { fitsImage, type Card } from "./fits";
import { derivedSeed, seededRandom } from "./random";
import { projectStars, renderStarField } from "./render";

const RADIANS = Math.PI / 180;
const ARCSEC_PER_RADIAN = 206_264.806;

/** The optics a simulated observatory reports in its equipment and draws its frames with. */
export interface Optics {
  camera: string;
  telescope: string;
  /** The camera's pixel, micrometres, unbinned. */
  pixelSizeMicrons: number;
  focalLengthMm: number;
  sensorWidthPixels: number;
  sensorHeightPixels: number;
}

/**
 * A 100 mm f/5 refractor and a 2k CCD: 3.05″ a pixel over 1.7°, a field Debian's Tycho-2 indexes
 * (quads of 1° and more) solve and hold a few dozen stars of.
 */
export const DEFAULT_OPTICS: Optics = {
  camera: "Simulated CCD 2048",
  telescope: "Simulated 500 mm telescope",
  pixelSizeMicrons: 7.4,
  focalLengthMm: 500,
  sensorWidthPixels: 2048,
  sensorHeightPixels: 2048,
};

/** Arcseconds a pixel: pixel size × binning / focal length. */
export const pixelScaleArcsec = (optics: Pick<Optics, "pixelSizeMicrons" | "focalLengthMm">, binning = 1) =>
  (ARCSEC_PER_RADIAN * optics.pixelSizeMicrons * binning) / (optics.focalLengthMm * 1000);

const positive = (value: unknown): value is number => typeof value === "number" && Number.isFinite(value) && value > 0;
const wholePositive = (value: unknown): value is number => positive(value) && Number.isInteger(value);

/** The optics an equipment report names (`camera`, `telescope`, `pixelSizeMicrons`, …), the defaults for what it leaves out. */
export function opticsOf(equipment: Record<string, unknown> = {}): Optics {
  const pick = <K extends keyof Optics>(key: K, valid: (value: unknown) => boolean): Optics[K] =>
    (valid(equipment[key]) ? equipment[key] : DEFAULT_OPTICS[key]) as Optics[K];
  const text = (value: unknown) => typeof value === "string" && value.trim() !== "";
  return {
    camera: pick("camera", text),
    telescope: pick("telescope", text),
    pixelSizeMicrons: pick("pixelSizeMicrons", positive),
    focalLengthMm: pick("focalLengthMm", positive),
    sensorWidthPixels: pick("sensorWidthPixels", wholePositive),
    sensorHeightPixels: pick("sensorHeightPixels", wholePositive),
  };
}

/** What an observatory drawing real sky reports: its equipment with the optics filled in and `pixelScaleArcsec` (unbinned), the solver's hint. */
export function skyEquipment<Equipment extends Record<string, unknown>>(equipment: Equipment = {} as Equipment): Equipment {
  const optics = opticsOf(equipment);
  return { ...equipment, ...optics, pixelScaleArcsec: Number(pixelScaleArcsec(optics).toFixed(4)) };
}

/** How the simulated night treats the frames. */
export interface SkySettings {
  /** The folder of astrometry.net index files (STAR_CATALOG_DIR; Debian's is /usr/share/astrometry). */
  catalogDir: string;
  /** The stars' full width at half maximum, arcseconds (default 4). */
  seeingArcsec?: number;
  /** Each frame points off its target by a random distance up to this, arcminutes (default 0). */
  pointingErrorArcmin?: number;
  /** Each frame's stars trail this far along a random direction, arcseconds (default 0). */
  trackingErrorArcsec?: number;
  /** The share of frames taken through cloud, 0–1 (default 0): most stars lost, a bright smooth background. */
  cloudFraction?: number;
  /** The camera's angle: the image's up at this position angle, degrees east of north (default 0). */
  rotationDeg?: number;
  /** The same seed draws the same frames in the same order (default 1). */
  seed?: number;
}

/** What went into a frame, for whoever checks the analysis against it. */
export interface FrameFacts {
  /** Where the frame's centre really points (the target moved by the pointing error), J2000 degrees. */
  centre: { ra: number; dec: number };
  pointingErrorArcsec: number;
  clouded: boolean;
  seeingArcsec: number;
  trailArcsec: number;
  pixelScaleArcsec: number;
  rotationDeg: number;
  width: number;
  height: number;
  /** Catalog stars drawn inside the frame, and the index they came from. */
  stars: number;
  indexId: number;
}

export interface Shot {
  target: { name: string; ra: number; dec: number };
  filter: string;
  exposureSeconds: number;
  binning: number;
  startedAt: Date;
}

/** The point `distanceDeg` from `from` toward position angle `angleDeg` (east of north), on the sphere. */
export function offsetPoint(from: { ra: number; dec: number }, distanceDeg: number, angleDeg: number) {
  const [dec0, distance, angle] = [from.dec * RADIANS, distanceDeg * RADIANS, angleDeg * RADIANS];
  const dec = Math.asin(Math.sin(dec0) * Math.cos(distance) + Math.cos(dec0) * Math.sin(distance) * Math.cos(angle));
  const ra = from.ra + Math.atan2(Math.sin(angle) * Math.sin(distance) * Math.cos(dec0), Math.cos(distance) - Math.sin(dec0) * Math.sin(dec)) / RADIANS;
  return { ra: ((ra % 360) + 360) % 360, dec: dec / RADIANS };
}

/** Sexagesimal as cameras write OBJCTRA ('HH MM SS.ss', hours) and OBJCTDEC ('+DD MM SS.s'). */
export function sexagesimal(value: number, options: { hours: boolean }): string {
  const decimals = options.hours ? 2 : 1;
  const units = Math.round(Math.abs(options.hours ? value / 15 : value) * 3600 * 10 ** decimals);
  const perMinute = 60 * 10 ** decimals;
  const [whole, minutes, seconds] = [Math.floor(units / (60 * perMinute)), Math.floor(units / perMinute) % 60, (units % perMinute) / 10 ** decimals];
  const text = `${String(whole).padStart(2, "0")} ${String(minutes).padStart(2, "0")} ${seconds.toFixed(decimals).padStart(3 + decimals, "0")}`;
  return options.hours ? text : `${value < 0 ? "-" : "+"}${text}`;
}

/** FITS's DATE-OBS: UTC without a zone letter. */
const dateObs = (at: Date) => at.toISOString().replace(/Z$/, "");

/**
 * A camera on real sky: each frame of a target is its field as the optics see it, drawn from the
 * star catalog's index that suits the field (`indexForField`) with `query-starkd`, under the
 * settings' seeing, pointing error, tracking and clouds, each frame's dice drawn from the seed and
 * the frame's number, written as a 16-bit FITS file with the cards cameras write. `open` answers
 * why not when the catalog cannot be drawn from.
 */
export class SkyCamera {
  private framesTaken = 0;

  private constructor(
    private readonly indexes: StarIndex[],
    readonly optics: Optics,
    private readonly settings: Required<SkySettings>,
  ) {}

  static async open(settings: SkySettings, optics: Optics): Promise<SkyCamera | { missing: string }> {
    const catalog = await openStarCatalog(settings.catalogDir);
    if ("missing" in catalog) return catalog;
    const filled = { seeingArcsec: 4, pointingErrorArcmin: 0, trackingErrorArcsec: 0, cloudFraction: 0, rotationDeg: 0, seed: 1, ...settings };
    return new SkyCamera(catalog.indexes, optics, filled);
  }

  async expose(shot: Shot): Promise<{ bytes: Buffer; facts: FrameFacts }> {
    const { settings, optics } = this;
    const random = seededRandom(derivedSeed(settings.seed, this.framesTaken));
    this.framesTaken += 1;
    // Every die is cast whatever the settings, so that changing one setting leaves the others' draws as they were.
    const [offsetDraw, offsetAngle, cloudDraw, extinctionDraw, glowDraw, glowAngle, trailAngle, noiseSeed] = Array.from({ length: 8 }, random);
    const binning = shot.binning;
    const scale = pixelScaleArcsec(optics, binning);
    const [width, height] = [Math.floor(optics.sensorWidthPixels / binning), Math.floor(optics.sensorHeightPixels / binning)];
    // Uniform over the disc of the pointing error.
    const offsetArcmin = settings.pointingErrorArcmin * Math.sqrt(offsetDraw!);
    const centre = offsetPoint(shot.target, offsetArcmin / 60, 360 * offsetAngle!);
    const clouded = cloudDraw! < settings.cloudFraction;
    const index = indexForField(this.indexes, (Math.max(width, height) * scale) / 3600);
    const margin = 10 + (5 * (settings.seeingArcsec + settings.trackingErrorArcsec)) / scale;
    const radiusDeg = ((Math.hypot(width, height) / 2 + margin) * scale) / 3600;
    const stars = await catalogStars({ files: index.files, ...centre, radiusDeg });
    const spots = projectStars({
      stars,
      centre,
      scaleArcsec: scale,
      rotationDeg: settings.rotationDeg,
      width,
      height,
      extinction: clouded ? 6 + 3 * extinctionDraw! : 0,
    });
    const { pixels, drawn } = renderStarField({
      width,
      height,
      stars: spots,
      fwhmPixels: settings.seeingArcsec / scale,
      trail: settings.trackingErrorArcsec > 0 ? { lengthPixels: settings.trackingErrorArcsec / scale, angleDeg: 180 * trailAngle! } : undefined,
      glow: clouded ? { adu: 4000 + 8000 * glowDraw!, slope: 0.4, angleDeg: 360 * glowAngle! } : undefined,
      seed: Math.floor(noiseSeed! * 2 ** 32),
    });
    const cards: Card[] = [
      ["OBJECT", shot.target.name],
      ["DATE-OBS", dateObs(shot.startedAt)],
      ["EXPTIME", shot.exposureSeconds],
      ["FILTER", shot.filter],
      ["XBINNING", binning],
      ["YBINNING", binning],
      ["RA", shot.target.ra],
      ["DEC", shot.target.dec],
      ["OBJCTRA", sexagesimal(shot.target.ra, { hours: true })],
      ["OBJCTDEC", sexagesimal(shot.target.dec, { hours: false })],
      ["IMAGETYP", "Light Frame"],
      ["TELESCOP", optics.telescope],
      ["INSTRUME", optics.camera],
      ["XPIXSZ", optics.pixelSizeMicrons * binning],
      ["YPIXSZ", optics.pixelSizeMicrons * binning],
      ["FOCALLEN", optics.focalLengthMm],
      ["SWCREATE", "Meridian observatory simulator"],
    ];
    return {
      bytes: fitsImage({ width, height, pixels, cards }),
      facts: {
        centre,
        pointingErrorArcsec: offsetArcmin * 60,
        clouded,
        seeingArcsec: settings.seeingArcsec,
        trailArcsec: settings.trackingErrorArcsec,
        pixelScaleArcsec: scale,
        rotationDeg: settings.rotationDeg,
        width,
        height,
        stars: drawn,
        indexId: index.indexId,
      },
    };
  }
}
