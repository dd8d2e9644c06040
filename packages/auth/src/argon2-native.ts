/**
 * argon2id through the native addon (@node-rs/argon2), where it loads. On Linux under Node the
 * hashes run on threads of their own at a lower CPU priority; elsewhere on libuv's thread pool
 * (docs/reference/limits.md#password-hashing).
 *
 * Why the priority: argon2id is ~10 ms of CPU per password. When the process has fewer cores
 * than it has work (one vCPU, a container's CPU limit, a login storm), the kernel shares a core
 * between a hashing thread and the event loop, and a request waits for its turn, milliseconds
 * each time. A hashing thread of lower priority takes the core only when the event loop leaves
 * it: requests are answered first and logins hash in the time that is left.
 *
 * The module specifiers are variables, so a bundler making a Worker does not try to pack a
 * native addon.
 */
import type { Argon2Params } from './password.js'

/** One way to compute argon2id. */
export interface Argon2Implementation {
  name: 'native' | 'portable'
  hash(password: string, params: Argon2Params): Promise<string>
  /** Throws for a string that is not an argon2 PHC hash. */
  verify(stored: string, password: string): Promise<boolean>
  /** Hashes that may run at once. */
  slots: number
}

// `Algorithm.Argon2id` is an ambient const enum, which isolated modules cannot read.
export const ARGON2ID = 2

/** The nice value of a hashing thread (0 is the event loop's; 19 the lowest priority). */
export const HASHING_NICE = 10

/** One core short of the machine (or of libuv's pool), at least one. */
const slotsOf = (cores: number, pool: number) => Math.max(1, Math.min(cores, pool) - 1)

const load = async <T>(specifier: string): Promise<T> => (await import(specifier)) as T

/** Where the addon loads: libuv's pool (its async API), or lower-priority threads where they can be made. */
export const loadNative = async (): Promise<Argon2Implementation | null> => {
  const addon = '@node-rs/argon2'
  try {
    const native = await load<typeof import('@node-rs/argon2')>(addon)
    const os = await load<typeof import('node:os')>('node:os')
    const threads = await lowPriorityThreads(addon, slotsOf(os.availableParallelism(), Number.POSITIVE_INFINITY))
    if (threads) return threads
    const pool = Number(globalThis.process?.env?.UV_THREADPOOL_SIZE) || 4
    return {
      name: 'native',
      hash: (password, params) => native.hash(password, { algorithm: ARGON2ID, ...params }),
      verify: (stored, password) => native.verify(stored, password),
      slots: slotsOf(os.availableParallelism(), pool),
    }
  } catch {
    return null
  }
}

/**
 * What each hashing thread runs: it lowers its own priority (a thread's nice value is its own on
 * Linux; `/proc/thread-self` names its id), then hashes one request at a time with the addon's
 * synchronous API.
 */
const THREAD_SOURCE = `
const { parentPort, workerData } = require('node:worker_threads')
const { readlinkSync } = require('node:fs')
const { setPriority } = require('node:os')
const argon2 = require(workerData.addon)
setPriority(Number(readlinkSync('/proc/thread-self').split('/').pop()), workerData.nice)
parentPort.on('message', ({ id, op, a, b, params }) => {
  try {
    const value = op === 'hash' ? argon2.hashSync(a, { algorithm: ${ARGON2ID}, ...params }) : argon2.verifySync(a, b)
    parentPort.postMessage({ id, value })
  } catch (err) {
    parentPort.postMessage({ id, error: err instanceof Error ? err.message : String(err) })
  }
})
parentPort.postMessage({ id: 0, value: 'ready' })
`

type Reply = { id: number; value?: string | boolean; error?: string }
type Job = { op: 'hash' | 'verify'; a: string; b?: string; params?: Argon2Params }

/**
 * `slots` hashing threads, started on first use; `null` where they cannot be (not Linux, not
 * Node, no `/proc/thread-self`) or the first one does not come up. A thread that dies fails its
 * hash (a login answers 500, as a failing pool job would) and is started again by the next.
 */
const lowPriorityThreads = async (addon: string, slots: number): Promise<Argon2Implementation | null> => {
  const proc = globalThis.process
  if (proc?.platform !== 'linux' || proc.release?.name !== 'node' || proc.versions?.bun || proc.versions?.deno) return null
  const fs = await load<typeof import('node:fs')>('node:fs')
  if (!fs.existsSync('/proc/thread-self')) return null
  const { Worker } = await load<typeof import('node:worker_threads')>('node:worker_threads')
  const { createRequire } = await load<typeof import('node:module')>('node:module')
  const workerData = { addon: createRequire(import.meta.url).resolve(addon), nice: HASHING_NICE }

  // A thread hashes one job at a time (`run` takes it off `idle` for the job): `job` answers it.
  type Thread = { worker: InstanceType<typeof Worker>; job: ((reply: Reply) => void) | null; dead: boolean }
  const idle: Thread[] = []
  let next = 1
  const start = () =>
    new Promise<Thread>((resolve, reject) => {
      const worker = new Worker(THREAD_SOURCE, { eval: true, workerData })
      const thread: Thread = { worker, job: null, dead: false }
      const settle = (reply: Reply) => {
        const job = thread.job
        thread.job = null
        job?.(reply)
      }
      const fail = (why: string) => {
        if (thread.dead) return
        thread.dead = true
        const at = idle.indexOf(thread)
        if (at >= 0) idle.splice(at, 1)
        settle({ id: 0, error: why })
        reject(new Error(why))
      }
      worker.on('message', (reply: Reply) => {
        if (reply.id === 0) {
          // Idle threads do not keep the process alive; one holds it while it starts or hashes.
          worker.unref()
          return resolve(thread)
        }
        settle(reply)
      })
      worker.on('error', (err) => fail(`argon2 thread failed: ${err.message}`))
      worker.on('exit', (code) => fail(`argon2 thread exited (${code})`))
    })
  const run = async (job: Job): Promise<string | boolean> => {
    const thread = idle.pop() ?? (await start())
    try {
      const reply = await new Promise<Reply>((settle) => {
        thread.job = settle
        thread.worker.ref()
        thread.worker.postMessage({ id: next++, ...job })
      })
      if (reply.error !== undefined) throw new Error(reply.error)
      return reply.value as string | boolean
    } finally {
      thread.worker.unref()
      if (!thread.dead) idle.push(thread)
    }
  }
  // The first thread comes up now: where it cannot (the addon fails to load in a thread), the pool.
  try {
    idle.push(await start())
  } catch {
    return null
  }
  return {
    name: 'native',
    hash: async (password, params) => (await run({ op: 'hash', a: password, params })) as string,
    verify: async (stored, password) => (await run({ op: 'verify', a: stored, b: password })) as boolean,
    slots,
  }
}
