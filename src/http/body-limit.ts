/**
 * The largest request body read (docs/api.md "Errors"): a larger one answers 413
 * `PayloadTooLarge` before it is read whole, and the connection is closed (app.ts). Here, not in
 * app.ts, because the OpenAPI document states it on every operation with a body (openapi.ts).
 */
export const MAX_BODY_BYTES = 2 * 1024 * 1024
