/**
 * The server's request-log writer: the lines of one event-loop turn reach the stream in one
 * write, in order, at the end of that turn; lines of a later turn in a later write.
 */
import { PassThrough, Writable } from 'node:stream'
import { setImmediate as nextTurn } from 'node:timers/promises'
import { describe, expect, it } from 'vitest'
import { batchedLines } from '../src/log.js'

describe('batchedLines', () => {
  it('writes the lines of one turn together, in order, once the turn ends', async () => {
    const out = new PassThrough()
    const writes: string[] = []
    out.on('data', (chunk: Buffer) => writes.push(chunk.toString()))
    const log = batchedLines(out)

    log('GET /todos 200 1ms')
    log('POST /todos 201 2ms')
    log('GET /health 200 0ms')
    expect(writes).toEqual([])
    await nextTurn()
    await nextTurn()
    expect(writes).toEqual(['GET /todos 200 1ms\nPOST /todos 201 2ms\nGET /health 200 0ms\n'])

    log('DELETE /todos/x 404 1ms')
    await nextTurn()
    await nextTurn()
    expect(writes).toEqual(['GET /todos 200 1ms\nPOST /todos 201 2ms\nGET /health 200 0ms\n', 'DELETE /todos/x 404 1ms\n'])
  })

  it('ignores a stream that fails (a closed pipe) instead of throwing', async () => {
    const closed = new Writable({
      write: (_chunk, _encoding, done) => done(Object.assign(new Error('write EPIPE'), { code: 'EPIPE' })),
    })
    const log = batchedLines(closed)
    log('GET /health 200 0ms')
    await nextTurn()
    await nextTurn()
    log('GET /health 200 0ms')
    await nextTurn()
    await nextTurn()
    expect(closed.destroyed).toBe(true)
  })
})
