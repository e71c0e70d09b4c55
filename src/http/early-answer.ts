/**
 * The answer Node's `clientError` hook gave on a socket (src/http/node-server.ts), kept on the
 * socket: a route still waiting for that request's body (a body trickled past the request
 * timeout, answered 408 there) logs the same status and code as the client got, not the 400
 * its cut-off body would otherwise make (src/http/errors.ts).
 *
 * @module
 */
import type { Socket } from 'node:net'

const EARLY = Symbol('answered before the app')

type Marked = Socket & { [EARLY]?: { status: number; code: string; message: string } }

/** Records that `socket` was answered with `answer` outside the app. */
export function markEarlyAnswer(socket: Socket, answer: { status: number; code: string; message: string }): void {
  ;(socket as Marked)[EARLY] = answer
}

/** The answer `socket` got outside the app, if any. */
export function earlyAnswerOf(
  socket: Socket | null | undefined,
): { status: number; code: string; message: string } | undefined {
  return socket ? (socket as Marked)[EARLY] : undefined
}
