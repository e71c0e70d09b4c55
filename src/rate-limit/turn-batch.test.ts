import { describe, expect, it } from 'vitest'
import { type Ask, TurnBatch } from './turn-batch.js'

describe('TurnBatch', () => {
  it('sends the asks of one turn together, in order, and the next turn apart', async () => {
    const sent: Ask[][] = []
    const b = new TurnBatch<number>((asks, waiting) => {
      sent.push(asks)
      for (let k = 0; k < asks.length; k++) waiting[k].resolve(asks[k][1])
    })
    const first = await Promise.all([b.ask('a', 1, 0), b.ask('b', 2, 0), b.ask('a', 3, 0)])
    const second = await b.ask('c', 4, 0)
    expect(first).toEqual([1, 2, 3])
    expect(second).toBe(4)
    expect(sent.map((s) => s.map((a) => a[0]))).toEqual([['a', 'b', 'a'], ['c']])
  })

  it('rejects the counts its sender fails', async () => {
    const b = new TurnBatch<number>((_asks, waiting) => {
      for (const w of waiting) w.reject(new Error('down'))
    })
    await expect(b.ask('a', 1, 0)).rejects.toThrow('down')
  })
})
