import type { ApiKeyRecord } from '../auth/types.js'

/** Context variables set by the global middleware; read them with `c.get(...)`. */
export interface AppEnv {
  Variables: {
    /** Echoed or generated request id; also in `X-Request-Id` and every error body. */
    requestId: string
    /** The verified key, set by `requireApiKey` on /api/v1 routes. */
    apiKey: ApiKeyRecord
  }
}
