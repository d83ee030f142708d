import { catalogStars, fitsImage, openStarCatalog, projectStars, renderStarField, seededRandom, type Card } from "@meridian/simulator/sky";

export { fitsData16, fitsHeader, type CardValue } from "@meridian/simulator/sky";

const FWHM_PER_SIGMA = 2 * Math.sqrt(2 * Math.log(2));

export interface SkyFrameOptions {
  /** Where the frame's centre points, J2000 degrees. */
  ra: number;
  dec: number;
  /** Arcseconds per pixel. */
  scaleArcsec: number;
  /** The position angle of the image's +y axis (rows upward), degrees east of north. */
  rotationDeg: number;
  /** The stars' full width at half maximum, in pixels (Gaussian profiles). */
  fwhmPixels: number;
  width?: number;
  height?: number;
  /** The catalog to draw from: an astrometry.net index file (Debian's Tycho-2). */
  indexFile: string;
  seed?: number;
  /** More header cards (OBJECT, FILTER, EXPTIME…). */
  cards?: Card[];
  /** The image in a first IMAGE extension behind an empty primary HDU, as some cameras write it. */
  inExtension?: boolean;
}

/**
 * A frame of real sky for tests, drawn by the observatory simulator's renderer: the stars of an
 * astrometry.net index around the pointing, projected at the given scale and rotation as a camera
 * sees them, Gaussians of the given FWHM over a background of 1,000 ADU with noise, as a 16-bit
 * FITS image with the given header cards. Answers the bytes and the stars drawn.
 */
export async function renderSkyFrame(options: SkyFrameOptions): Promise<{ bytes: Buffer; stars: number }> {
  const width = options.width ?? 1024;
  const height = options.height ?? 1024;
  const radiusDeg = ((Math.hypot(width, height) / 2) * options.scaleArcsec) / 3600;
  const stars = await catalogStars({ files: [options.indexFile], ra: options.ra, dec: options.dec, radiusDeg });
  const spots = projectStars({ stars, centre: options, scaleArcsec: options.scaleArcsec, rotationDeg: options.rotationDeg, width, height });
  const { pixels, drawn } = renderStarField({ width, height, stars: spots, fwhmPixels: options.fwhmPixels, seed: options.seed ?? 1 });
  return { bytes: fitsImage({ width, height, pixels, cards: options.cards, inExtension: options.inExtension }), stars: drawn };
}

/** A field of `count` stars at random places: sky that matches no catalog, which a blind solver searches long for. */
export function renderRandomStars(options: { width: number; height: number; count: number; fwhmPixels: number; seed?: number; cards?: Card[] }) {
  const random = seededRandom((options.seed ?? 7) + 1);
  const sigma = options.fwhmPixels / FWHM_PER_SIGMA;
  const stars = Array.from({ length: options.count }, () => ({
    x: random() * options.width,
    y: random() * options.height,
    // A peak of 500 to 20,500 ADU, as its whole signal.
    flux: (500 + 20_000 * random() ** 3) * 2 * Math.PI * sigma * sigma,
  }));
  const { pixels, drawn } = renderStarField({ width: options.width, height: options.height, stars, fwhmPixels: options.fwhmPixels, seed: options.seed ?? 1 });
  return { bytes: fitsImage({ width: options.width, height: options.height, pixels, cards: options.cards }), stars: drawn };
}

/** The densest astrometry.net index of a catalog folder (Debian's index-tycho2-10 of /usr/share/astrometry): its first file. */
export async function densestIndexFile(catalogDir: string): Promise<string> {
  const catalog = await openStarCatalog(catalogDir);
  if ("missing" in catalog) throw new Error(catalog.missing);
  return catalog.indexes[0]!.files[0]!;
}
