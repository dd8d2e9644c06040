/**
 * Child processes of a run: servers (pinned to the server cores, standard output to a log
 * file so a full pipe can never stall them), the load generator and one-shot measurements
 * (pinned to the load core). Every wait is bounded.
 */
import { type ChildProcess, execFileSync, spawn } from 'node:child_process'
import { closeSync, existsSync, openSync, readFileSync, writeFileSync } from 'node:fs'
import { createServer, type Server } from 'node:net'
import { join } from 'node:path'
import { setTimeout as sleep } from 'node:timers/promises'

/** Which cores the servers and the load generator run on; `null` when pinning is impossible. */
export interface Pinning {
  server: string | null
  load: string | null
  note: string
}

const allowedCpus = (): number[] => {
  const status = readFileSync('/proc/self/status', 'utf8')
  const list = /^Cpus_allowed_list:\s*(.+)$/m.exec(status)?.[1] ?? ''
  const cpus: number[] = []
  for (const part of list.split(',')) {
    const [a, b] = part.split('-').map(Number)
    if (a === undefined || Number.isNaN(a)) continue
    for (let c = a; c <= (b ?? a); c++) cpus.push(c)
  }
  return cpus
}

/** The last allowed core for the load generator, every other one for the servers. */
export const choosePinning = (): Pinning => {
  let cpus: number[] = []
  try {
    cpus = allowedCpus()
    execFileSync('taskset', ['-c', String(cpus[0] ?? 0), 'true'], { stdio: 'ignore' })
  } catch {
    return { server: null, load: null, note: 'not pinned (taskset unavailable)' }
  }
  if (cpus.length < 2) return { server: null, load: null, note: `not pinned (only ${cpus.length} core allowed)` }
  const load = String(cpus.at(-1))
  const server = cpus.slice(0, -1).join(',')
  return { server, load, note: `servers on core ${server}, load generator on core ${load} (taskset)` }
}

const pinned = (cores: string | null, command: string, args: string[]): [string, string[]] =>
  cores === null ? [command, args] : ['taskset', ['-c', cores, command, ...args]]

export interface Running {
  name: string
  base: string
  pid: number
  child: ChildProcess
  log: string
  stop(): Promise<void>
}

const exited = (child: ChildProcess): Promise<void> =>
  child.exitCode !== null || child.signalCode !== null ? Promise.resolve() : new Promise((r) => child.once('exit', () => r()))

/** Starts `node <script> …args` pinned to `cores`, waits (≤ 20 s) for its `listening on http://…:<port>` line. */
export const startServer = async (opts: {
  name: string
  script: string
  args?: string[]
  env: Record<string, string>
  cores: string | null
  dir: string
  nodeArgs?: string[]
  /** Another runtime and its arguments before the script (Bun, Deno); default this Node. */
  runtime?: string[]
}): Promise<Running> => {
  const log = join(opts.dir, `${opts.name}.log`)
  const out = openSync(log, 'w')
  const [runtime = process.execPath, ...runtimeArgs] = opts.runtime ?? []
  const [command, args] = pinned(opts.cores, runtime, [
    ...runtimeArgs,
    ...(opts.runtime ? [] : (opts.nodeArgs ?? [])),
    opts.script,
    ...(opts.args ?? []),
  ])
  const env: NodeJS.ProcessEnv = { PATH: process.env.PATH, HOME: process.env.HOME, ...opts.env }
  const child = spawn(command, args, { env, stdio: ['ignore', out, out] })
  closeSync(out)
  const deadline = Date.now() + 20_000
  let port: number | undefined
  while (Date.now() < deadline) {
    const text = existsSync(log) ? readFileSync(log, 'utf8') : ''
    port = Number(/listening on http:\/\/[^\s:]+:(\d+)/.exec(text)?.[1]) || undefined
    if (port) break
    if (child.exitCode !== null) throw new Error(`${opts.name} exited (${child.exitCode}) before listening:\n${text}`)
    await sleep(50)
  }
  if (!port) {
    child.kill('SIGKILL')
    throw new Error(`${opts.name} did not start within 20 s:\n${readFileSync(log, 'utf8')}`)
  }
  const pid = child.pid ?? -1
  return {
    name: opts.name,
    base: `http://127.0.0.1:${port}`,
    pid,
    child,
    log,
    async stop() {
      if (child.exitCode !== null || child.signalCode !== null) return
      child.kill('SIGTERM')
      const timer = setTimeout(() => child.kill('SIGKILL'), 15_000)
      await exited(child)
      clearTimeout(timer)
    },
  }
}

/**
 * Runs `node <script> …args` pinned to `cores` to its end (≤ `timeoutMs`) and parses the last
 * line of its standard output as JSON.
 */
export const runJson = async <T>(opts: {
  script: string
  args?: string[]
  cores: string | null
  timeoutMs: number
  nodeArgs?: string[]
  env?: Record<string, string>
}): Promise<T> => {
  const [command, args] = pinned(opts.cores, process.execPath, [...(opts.nodeArgs ?? []), opts.script, ...(opts.args ?? [])])
  const child = spawn(command, args, { env: { ...process.env, ...opts.env }, stdio: ['ignore', 'pipe', 'pipe'] })
  let stdout = ''
  let stderr = ''
  child.stdout?.setEncoding('utf8').on('data', (d: string) => {
    stdout += d
  })
  child.stderr?.setEncoding('utf8').on('data', (d: string) => {
    stderr += d
  })
  const timer = setTimeout(() => child.kill('SIGKILL'), opts.timeoutMs)
  const code = await new Promise<number | null>((r) => child.once('exit', (c) => r(c)))
  clearTimeout(timer)
  if (code !== 0) throw new Error(`${opts.script} ${opts.args?.join(' ') ?? ''} failed (${code}):\n${stderr}`)
  const last = stdout.trim().split('\n').at(-1) ?? ''
  return JSON.parse(last) as T
}

export const writeJson = (path: string, value: unknown): string => {
  writeFileSync(path, JSON.stringify(value))
  return path
}

const TICK_MS = 10 // USER_HZ is 100 on Linux

/** CPU time (user + system) a process has used so far, in ms, from /proc. */
export const cpuMs = (pid: number): number => {
  try {
    // Fields after the command name (which may hold spaces): state is 3rd, utime 14th, stime 15th.
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]?.split(' ') ?? []
    return (Number(fields[11]) + Number(fields[12])) * TICK_MS
  } catch {
    return Number.NaN
  }
}

/**
 * CPU time a process's main thread (the event loop) has used so far, in ms, from the scheduler's
 * own count (`schedstat`, in ns): the rest of {@link cpuMs} is its other threads (hashing, libuv).
 */
export const mainThreadCpuMs = (pid: number): number => {
  try {
    return Number(readFileSync(`/proc/${pid}/task/${pid}/schedstat`, 'utf8').split(' ')[0]) / 1e6
  } catch {
    return Number.NaN
  }
}

/** Busy and total CPU time of the whole machine so far, in ms (every core), from /proc/stat. */
export const machineMs = (): { busy: number; total: number } => {
  const [, ...values] = (readFileSync('/proc/stat', 'utf8').split('\n')[0] ?? '').trim().split(/\s+/)
  const v = values.map(Number)
  const idle = (v[3] ?? 0) + (v[4] ?? 0)
  const total = v.slice(0, 8).reduce((a, b) => a + b, 0)
  return { busy: (total - idle) * TICK_MS, total: total * TICK_MS }
}

/** Resident set size of a process in KiB, from /proc. */
export const rssKiB = (pid: number): number => {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8')
  return Number(/^VmRSS:\s*(\d+)/m.exec(status)?.[1] ?? Number.NaN)
}

/**
 * A minimal SMTP sink on loopback, so the reference server can run with NODE_ENV=production
 * (which requires SMTP_URL). No scenario sends mail; anything that arrives is accepted and dropped.
 */
export const startSmtpSink = async (): Promise<{ url: string; close(): Promise<void> }> => {
  const server: Server = createServer((socket) => {
    let data = false
    let buffer = ''
    socket.setEncoding('utf8')
    socket.on('error', () => socket.destroy())
    socket.write('220 bench-sink ESMTP\r\n')
    socket.on('data', (chunk: string) => {
      buffer += chunk
      if (buffer.length > 1 << 20) return socket.destroy()
      for (let eol = buffer.indexOf('\r\n'); eol !== -1; eol = buffer.indexOf('\r\n')) {
        const line = buffer.slice(0, eol)
        buffer = buffer.slice(eol + 2)
        if (data) {
          if (line === '.') {
            data = false
            socket.write('250 dropped\r\n')
          }
          continue
        }
        const verb = line.slice(0, 4).toUpperCase()
        if (verb === 'DATA') {
          data = true
          socket.write('354 go ahead\r\n')
        } else if (verb === 'QUIT') socket.end('221 bye\r\n')
        else socket.write('250 ok\r\n')
      }
    })
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const address = server.address()
  const port = typeof address === 'object' && address ? address.port : 0
  return { url: `smtp://127.0.0.1:${port}`, close: () => new Promise((r) => server.close(() => r())) }
}
