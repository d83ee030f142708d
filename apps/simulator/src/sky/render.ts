import type { CatalogStar } from "./catalog";
import { derivedSeed, seededGaussian, seededRandom } from "./random";

const RADIANS = Math.PI / 180;
/** The sky's level and the camera's read noise, ADU: the background a clear frame shows. */
export const SKY_ADU = 1000;
const READ_NOISE_ADU = 12;
/** A 9th-magnitude star's whole signal, ADU (a peak of 25,000 at a FWHM of 3.2 pixels). */
const MAGNITUDE_9_FLUX = 290_000;
/** Brighter stars are drawn with this peak at most, under the 16-bit ceiling and a source extractor's saturation level. */
const MAX_PEAK_ADU = 40_000;
const FWHM_PER_SIGMA = 2 * Math.sqrt(2 * Math.log(2));
/** Normal deviates drawn once a frame; a prime count, so that the xorshift's picks do not fall into step with rows. */
const NORMAL_TABLE_SIZE = 65_521;

/** A star on the image: its centre in pixels (0-based, x along a row) and its whole signal in ADU. */
export interface StarSpot {
  x: number;
  y: number;
  flux: number;
}

/** A star's whole signal for its V magnitude, dimmed by `extinction` magnitudes (clouds). */
const fluxOfMagnitude = (magnitude: number, extinction = 0) => MAGNITUDE_9_FLUX * 10 ** (-0.4 * (magnitude + extinction - 9));

/**
 * Catalog stars on an image (gnomonic projection about `centre`), at `scaleArcsec` per pixel with
 * the image's +y axis (rows upward) at `rotationDeg` east of north and east to the left when
 * north is up, as a camera sees the sky. The centre falls on the image's middle, (N + 1) / 2 in
 * FITS's 1-based pixels. Stars behind the tangent plane are left out; those outside the image
 * are kept (their light may reach it).
 */
export function projectStars(options: {
  stars: readonly CatalogStar[];
  centre: { ra: number; dec: number };
  scaleArcsec: number;
  rotationDeg: number;
  width: number;
  height: number;
  extinction?: number;
}): StarSpot[] {
  const scaleDeg = options.scaleArcsec / 3600;
  const [ra0, dec0, theta] = [options.centre.ra * RADIANS, options.centre.dec * RADIANS, options.rotationDeg * RADIANS];
  const spots: StarSpot[] = [];
  for (const star of options.stars) {
    const [ra, dec] = [star.ra * RADIANS, star.dec * RADIANS];
    const cosC = Math.sin(dec0) * Math.sin(dec) + Math.cos(dec0) * Math.cos(dec) * Math.cos(ra - ra0);
    if (cosC <= 0) continue;
    // Standard coordinates in degrees: xi toward the east, eta toward the north.
    const xi = (Math.cos(dec) * Math.sin(ra - ra0)) / cosC / RADIANS;
    const eta = (Math.cos(dec0) * Math.sin(dec) - Math.sin(dec0) * Math.cos(dec) * Math.cos(ra - ra0)) / cosC / RADIANS;
    // +y points at position angle theta; +x at theta - 90° (east to the left when north is up).
    const dx = (-xi * Math.cos(theta) + eta * Math.sin(theta)) / scaleDeg;
    const dy = (xi * Math.sin(theta) + eta * Math.cos(theta)) / scaleDeg;
    spots.push({ x: (options.width - 1) / 2 + dx, y: (options.height - 1) / 2 + dy, flux: fluxOfMagnitude(star.magnitude, options.extinction) });
  }
  return spots;
}

export interface StarFieldOptions {
  width: number;
  height: number;
  stars: readonly StarSpot[];
  /** The stars' full width at half maximum across any trail, pixels: Gaussian profiles. */
  fwhmPixels: number;
  /** Tracking that drifted during the exposure: each star smeared `lengthPixels` along `angleDeg` (from +x toward +y). */
  trail?: { lengthPixels: number; angleDeg: number };
  /** A smooth extra background (cloud lit from below), ADU at the centre, changing by `slope` of that across the frame along `angleDeg`. */
  glow?: { adu: number; slope: number; angleDeg: number };
  seed: number;
}

/**
 * The image of a star field: each star drawn only within a stamp of five of its sigmas (never a
 * loop over the whole frame per star), an elongated Gaussian when the tracking trailed (its
 * variance along the trail grows by length² / 12, a uniform smear's), over the sky's level and any
 * glow, then read noise and photon noise on the signal above the sky. One Float32 value a pixel,
 * seeded noise. Answers the pixels (row after row, FITS order) and how many stars fell inside.
 */
export function renderStarField(options: StarFieldOptions): { pixels: Float32Array; drawn: number } {
  const { width, height } = options;
  const pixels = new Float32Array(width * height);
  const sigma = options.fwhmPixels / FWHM_PER_SIGMA;
  const trailLength = options.trail?.lengthPixels ?? 0;
  const sigmaAlong = Math.sqrt(sigma * sigma + (trailLength * trailLength) / 12);
  const angle = (options.trail?.angleDeg ?? 0) * RADIANS;
  const [cos, sin] = [Math.cos(angle), Math.sin(angle)];
  const [alongFactor, acrossFactor] = [-1 / (2 * sigmaAlong * sigmaAlong), -1 / (2 * sigma * sigma)];
  const reach = Math.ceil(5 * sigmaAlong);
  const maxFlux = MAX_PEAK_ADU * 2 * Math.PI * sigma * sigmaAlong;
  let drawn = 0;
  for (const { x, y, flux } of options.stars) {
    if (x < -reach || y < -reach || x > width + reach || y > height + reach) continue;
    const peak = Math.min(flux, maxFlux) / (2 * Math.PI * sigma * sigmaAlong);
    const [rowFrom, rowTo] = [Math.max(0, Math.floor(y - reach)), Math.min(height - 1, Math.ceil(y + reach))];
    const [columnFrom, columnTo] = [Math.max(0, Math.floor(x - reach)), Math.min(width - 1, Math.ceil(x + reach))];
    for (let row = rowFrom; row <= rowTo; row += 1) {
      const dy = row - y;
      for (let column = columnFrom; column <= columnTo; column += 1) {
        const dx = column - x;
        const along = dx * cos + dy * sin;
        const across = dy * cos - dx * sin;
        pixels[row * width + column]! += peak * Math.exp(along * along * alongFactor + across * across * acrossFactor);
      }
    }
    if (x >= 0 && y >= 0 && x < width && y < height) drawn += 1;
  }
  // Normal deviates from a table drawn from the seed, picked by a xorshift per pixel: a frame has millions of pixels,
  // and a logarithm and a cosine for each took seconds.
  const normals = Float32Array.from({ length: NORMAL_TABLE_SIZE }, seededGaussian(seededRandom(options.seed)));
  let state = derivedSeed(options.seed, 0) || 1;
  const glow = options.glow;
  const glowAngle = (glow?.angleDeg ?? 0) * RADIANS;
  const readVariance = READ_NOISE_ADU * READ_NOISE_ADU;
  for (let row = 0; row < height; row += 1) {
    const rowGlow = glow ? glow.adu * (1 + glow.slope * (row / height - 0.5) * Math.sin(glowAngle)) : 0;
    const columnGlow = glow ? (glow.adu * glow.slope * Math.cos(glowAngle)) / width : 0;
    for (let column = 0, index = row * width; column < width; column += 1, index += 1) {
      state ^= state << 13;
      state ^= state >>> 17;
      state ^= state << 5;
      const extra = glow ? rowGlow + columnGlow * (column - width / 2) : 0;
      const signal = pixels[index]! + extra;
      const spread = signal > 0 ? Math.sqrt(readVariance + signal) : READ_NOISE_ADU;
      pixels[index] = SKY_ADU + signal + spread * normals[(state >>> 0) % NORMAL_TABLE_SIZE]!;
    }
  }
  return { pixels, drawn };
}
