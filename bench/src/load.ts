/**
 * The load generator, a process of its own (pinned to another core than the servers): reads a
 * {@link Job} from the JSON file named on the command line, drives it with autocannon's
 * programmatic API and prints one {@link JobResult} as the last line of standard output.
 * A stream with a rate is sent at evenly spaced moments through `node:http` instead
 * (autocannon's rate sends each second's requests in one burst at its start).
 * Every stream is bounded in time and in requests; only loopback targets are accepted.
 */
import { readFileSync } from 'node:fs'
import { Agent, request } from 'node:http'
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

/** The headers and body of a variant's next request (its `turn`-th). */
const nextRequest = (variant: Variant, turn: number, job: Job, counter: { n: number }) => {
  const headers: Record<string, string> = { ...variant.headers[turn % variant.headers.length] }
  if (variant.uniqueForwardedFor) headers['x-forwarded-for'] = forwardedFor(job.addressPrefix, counter.n++)
  const body = variant.bodies ? variant.bodies[turn % variant.bodies.length] : undefined
  if (body !== undefined) headers['content-type'] = 'application/json'
  return { headers, body }
}

/** One autocannon request template per variant; headers, bodies and addresses rotate per request, across phases. */
const templates = (variants: Variant[], job: Job, sink: Sink, counter: { n: number }): AutocannonRequest[] =>
  variants.map((variant) => {
    let turn = 0
    return {
      method: variant.method,
      path: variant.path,
      setupRequest: (request) => {
        const { headers, body } = nextRequest(variant, turn++, job, counter)
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

/**
 * Open loop: request i leaves at `i / rate` seconds, whether or not earlier answers came, over at
 * most `connections` kept-alive sockets. A request that finds them all busy waits in the agent,
 * and that wait counts in its latency (it is taken from the moment the request is made).
 */
const runPaced = (
  job: Job,
  stream: Stream,
  rate: number,
  turns: number[],
  counter: { n: number },
  seconds: number,
  maxRequests: number,
): Promise<Recorder> =>
  new Promise((resolve) => {
    const recorder = newRecorder()
    for (const v of stream.variants) recorder.samples[v.label] = []
    const agent = new Agent({ keepAlive: true, maxSockets: stream.connections })
    const { hostname, port } = new URL(job.base)
    const started = performance.now()
    const interval = 1000 / rate
    let sent = 0
    let pending = 0
    let stopped = false
    const settle = () => {
      pending--
      if (stopped && pending === 0) {
        agent.destroy()
        resolve(recorder)
      }
    }
    const send = () => {
      const i = sent++ % stream.variants.length
      const variant = stream.variants[i] as Variant
      const turn = turns[i] ?? 0
      turns[i] = turn + 1
      const { headers, body } = nextRequest(variant, turn, job, counter)
      pending++
      const at = performance.now()
      const req = request({ host: hostname, port, method: variant.method, path: variant.path, headers, agent }, (res) => {
        res.resume()
        res.on('end', () => {
          recorder.requests++
          recorder.statuses[res.statusCode ?? 0] = (recorder.statuses[res.statusCode ?? 0] ?? 0) + 1
          recorder.samples[variant.label]?.push(performance.now() - at)
          settle()
        })
      })
      req.setTimeout(10_000, () => {
        recorder.timeouts++
        req.destroy(new Error('timed out'))
      })
      req.on('error', () => {
        recorder.errors++
        settle()
      })
      req.end(body)
    }
    const tick = () => {
      const now = performance.now()
      while (sent < maxRequests && now - started < seconds * 1000 && started + sent * interval <= now) send()
      if (sent >= maxRequests || now - started >= seconds * 1000) {
        stopped = true
        pending++
        settle()
        return
      }
      setTimeout(tick, Math.max(0, started + sent * interval - performance.now()))
    }
    tick()
  })

/** One phase of a stream: paced when it has a rate, else autocannon's closed loop. */
const phase = (
  job: Job,
  prepared: { stream: Stream; sink: Sink; requests: AutocannonRequest[]; turns: number[]; counter: { n: number } },
  seconds: number,
  maxRequests: number,
): Promise<Recorder> => {
  const { stream, sink, requests, turns, counter } = prepared
  return stream.overallRate
    ? runPaced(job, stream, stream.overallRate, turns, counter, seconds, maxRequests)
    : runPhase(job, stream, requests, sink, seconds, maxRequests)
}

const runStreams = async (job: Job): Promise<JobResult> => {
  const counter = { n: 0 }
  const prepared = job.streams.map((stream) => {
    const sink: Sink = { recorder: newRecorder() }
    const turns = stream.variants.map(() => 0)
    return { stream, sink, turns, counter, requests: templates(stream.variants, job, sink, counter) }
  })
  // Warm-up: every stream at once, as in the measured run; its samples are dropped.
  const warmups = await Promise.all(
    prepared.map((p) =>
      p.stream.warmupSeconds > 0
        ? phase(job, p, p.stream.warmupSeconds, p.stream.warmupMaxRequests ?? p.stream.maxRequests)
        : newRecorder(),
    ),
  )
  const results = await Promise.all(
    prepared.map(async (p, i): Promise<StreamResult> => {
      const { stream } = p
      const started = performance.now()
      const recorder = await phase(job, p, stream.seconds, stream.maxRequests)
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
