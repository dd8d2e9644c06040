/**
 * The load generator, a process of its own (pinned to another core than the servers): reads a
 * {@link Job} from the JSON file named on the command line, drives it with autocannon's
 * programmatic API and prints one {@link JobResult} as the last line of standard output.
 * Every stream is bounded in time and in requests; only loopback targets are accepted.
 */
import { readFileSync } from 'node:fs'
import autocannon from 'autocannon'
import { isLoopback, type Job, type JobResult, type Stream, type StreamResult, type Variant } from './job.js'
import { summarize } from './stats.js'

type AutocannonRequest = NonNullable<autocannon.Options['requests']>[number]

interface Recorder {
  samples: Record<string, number[]>
  statuses: Record<string, number>
  requests: number
  errors: number
  timeouts: number
  /** Label of the answer being recorded: set by the request's `onResponse`, read by the `response` event. */
  current: string
}

const newRecorder = (): Recorder => ({ samples: {}, statuses: {}, requests: 0, errors: 0, timeouts: 0, current: '' })

// The counter goes into the /64 (the limits count IPv6 clients per /64 prefix): one prefix per request.
const forwardedFor = (prefix: number, n: number): string =>
  `fd${(prefix & 0xff).toString(16).padStart(2, '0')}:${((n >>> 16) & 0xffff).toString(16)}:${(n & 0xffff).toString(16)}::1`

/** Where the request templates of a stream record their answers; swapped between warm-up and the measured run. */
interface Sink {
  recorder: Recorder
}

/** One autocannon request template per variant; headers, bodies and addresses rotate per request, across phases. */
const templates = (variants: Variant[], job: Job, sink: Sink, counter: { n: number }): AutocannonRequest[] =>
  variants.map((variant) => {
    let turn = 0
    return {
      method: variant.method,
      path: variant.path,
      setupRequest: (request) => {
        const headers: Record<string, string> = { ...variant.headers[turn % variant.headers.length] }
        if (variant.uniqueForwardedFor) headers['x-forwarded-for'] = forwardedFor(job.addressPrefix, counter.n++)
        const body = variant.bodies ? variant.bodies[turn % variant.bodies.length] : undefined
        if (body !== undefined) headers['content-type'] = 'application/json'
        turn++
        return { ...request, headers: { ...request.headers, ...headers }, ...(body === undefined ? {} : { body }) }
      },
      onResponse: () => {
        sink.recorder.current = variant.label
      },
    }
  })

const runPhase = (
  job: Job,
  stream: Stream,
  requests: AutocannonRequest[],
  sink: Sink,
  seconds: number,
  maxRequests: number,
): Promise<Recorder> =>
  new Promise((resolve, reject) => {
    const recorder = newRecorder()
    for (const v of stream.variants) recorder.samples[v.label] = []
    sink.recorder = recorder
    const instance = autocannon(
      {
        url: job.base,
        connections: stream.connections,
        duration: seconds,
        maxOverallRequests: maxRequests,
        ...(stream.overallRate ? { overallRate: stream.overallRate } : {}),
        timeout: 10,
        requests,
      },
      (err: Error | null) => (err ? reject(err) : resolve(recorder)),
    )
    instance.on('response', (_client, statusCode, _bytes, responseTime) => {
      recorder.requests++
      recorder.statuses[statusCode] = (recorder.statuses[statusCode] ?? 0) + 1
      recorder.samples[recorder.current]?.push(responseTime)
    })
    instance.on('reqError', (err: unknown) => {
      recorder.errors++
      if (err instanceof Error && /timed out/.test(err.message)) recorder.timeouts++
    })
  })

const runStreams = async (job: Job): Promise<JobResult> => {
  const counter = { n: 0 }
  const prepared = job.streams.map((stream) => {
    const sink: Sink = { recorder: newRecorder() }
    return { stream, sink, requests: templates(stream.variants, job, sink, counter) }
  })
  // Warm-up: every stream at once, as in the measured run; its samples are dropped.
  const warmups = await Promise.all(
    prepared.map(({ stream, sink, requests }) =>
      stream.warmupSeconds > 0
        ? runPhase(job, stream, requests, sink, stream.warmupSeconds, stream.warmupMaxRequests ?? stream.maxRequests)
        : newRecorder(),
    ),
  )
  const results = await Promise.all(
    prepared.map(async ({ stream, sink, requests }, i): Promise<StreamResult> => {
      const started = performance.now()
      const recorder = await runPhase(job, stream, requests, sink, stream.seconds, stream.maxRequests)
      const seconds = (performance.now() - started) / 1000
      const all = Object.values(recorder.samples).flat()
      return {
        name: stream.name,
        seconds,
        requests: recorder.requests,
        warmupRequests: warmups[i]?.requests ?? 0,
        rps: recorder.requests / seconds,
        statuses: recorder.statuses,
        errors: recorder.errors,
        timeouts: recorder.timeouts,
        latency: summarize(all),
        samples: recorder.samples,
      }
    }),
  )
  const cpu = process.cpuUsage()
  return { streams: results, loadCpuMs: (cpu.user + cpu.system) / 1000 }
}

const main = async () => {
  const file = process.argv[2]
  if (!file) throw new Error('usage: node load.js <job.json>')
  const job = JSON.parse(readFileSync(file, 'utf8')) as Job
  if (!isLoopback(job.base)) throw new Error(`load: refusing a non-loopback target ${job.base}`)
  for (const s of job.streams)
    if (!(s.seconds > 0 && s.seconds <= 120 && s.maxRequests > 0 && s.maxRequests <= 5_000_000))
      throw new Error(`load: stream ${s.name} must be bounded (0 < seconds ≤ 120, 0 < maxRequests ≤ 5e6)`)
  const result = await runStreams(job)
  process.stdout.write(`${JSON.stringify(result)}\n`)
}

await main()
