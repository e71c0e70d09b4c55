/** Line and relationship types of the overlay (polygon types are polygon.ts's). */

export type LineString = [number, number][]
export type MultiLineString = LineString[]
export type Relationship = 'crosses' | 'within' | 'contains' | 'touches'
