/** `1 point`, `2 points`, `3 boundaries`: a count and its noun, for answer messages. */
export const plural = (n: number, one: string, many = `${one}s`): string => `${n} ${n === 1 ? one : many}`
