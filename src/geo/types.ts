/** A position `[lon, lat]` in WGS84 degrees. */
export type LonLat = [number, number]
/** A bounding box `[minLon, minLat, maxLon, maxLat]` in WGS84 degrees. */
export type Bbox = [number, number, number, number]
