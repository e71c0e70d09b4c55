import { describe, expect, it } from 'vitest'
import { clientAddress, trustedProxies } from './client-address.js'

describe('clientAddress', () => {
  const trusted = trustedProxies(' 10.0.0.1, ::ffff:10.0.0.2 ,')

  it('is the socket address when no proxy is trusted, whatever X-Forwarded-For says', () => {
    expect(clientAddress('::ffff:203.0.113.9', '198.51.100.7', trustedProxies(undefined))).toBe('203.0.113.9')
    expect(clientAddress('203.0.113.9', '198.51.100.7', trusted)).toBe('203.0.113.9')
  })

  it('behind trusted proxies, the rightmost address they did not add', () => {
    expect(clientAddress('10.0.0.1', '198.51.100.7', trusted)).toBe('198.51.100.7')
    // a client that sends its own X-Forwarded-For cannot pose as the first address
    expect(clientAddress('10.0.0.1', '1.2.3.4, 198.51.100.7, 10.0.0.2', trusted)).toBe('198.51.100.7')
    // every hop trusted: the leftmost
    expect(clientAddress('::ffff:10.0.0.2', '10.0.0.1', trusted)).toBe('10.0.0.1')
    expect(clientAddress('10.0.0.1', undefined, trusted)).toBe('10.0.0.1')
  })

  it('is unknown without a socket (in-process requests)', () => {
    expect(clientAddress(undefined, '1.2.3.4', trusted)).toBeUndefined()
  })
})
