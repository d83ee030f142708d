/** Real sky for tests and tools: the simulator's own renderer (`@meridian/simulator/sky`), so that there is one. */
export { catalogStars, openStarCatalog } from "./catalog";
export { fitsData16, fitsHeader, fitsImage, type Card, type CardValue } from "./fits";
export { seededRandom } from "./random";
export { projectStars, renderStarField } from "./render";
