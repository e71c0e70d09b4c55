/** The errors the key store's changes throw: the CLI turns each into exit 1 with its message. */

/** Thrown by store mutations for an id that has no key. */
export class KeyNotFoundError extends Error {
  override readonly name = 'KeyNotFoundError'
  constructor(readonly id: string) {
    super(`no API key with id '${id}'`)
  }
}

/** Thrown when a change is not allowed in the key's current state (e.g. reinstating a revoked key). */
export class KeyStateError extends Error {
  override readonly name = 'KeyStateError'
  constructor(
    readonly id: string,
    message: string,
  ) {
    super(message)
  }
}
