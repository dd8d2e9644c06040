/**
 * `node dist/profile-summary.js <file.cpuprofile> [top]`: the functions that cost the most in
 * a V8 CPU profile (from `node --cpu-prof`, or `pnpm bench --profile`), by self time and by
 * total (inclusive) time, with the package or file each one lives in.
 */
import { readFileSync } from 'node:fs'

interface CallFrame {
  functionName: string
  url: string
  lineNumber: number
}
interface ProfileNode {
  id: number
  callFrame: CallFrame
  children?: number[]
}
interface Profile {
  nodes: ProfileNode[]
  samples: number[]
  timeDeltas: number[]
}

const file = process.argv[2]
const top = Number(process.argv[3] ?? 25)
if (!file) throw new Error('usage: node profile-summary.js <file.cpuprofile> [top]')
const profile = JSON.parse(readFileSync(file, 'utf8')) as Profile

const where = ({ url, lineNumber }: CallFrame): string => {
  if (!url) return '(native)'
  const pkg = /node_modules\/(?:\.pnpm\/[^/]+\/node_modules\/)?((?:@[^/]+\/)?[^/]+)\/(.*)$/.exec(url)
  if (pkg) return `${pkg[1]}/${pkg[2]}:${lineNumber + 1}`
  return `${url.replace(/^file:\/\/.*?\/(packages|apps|bench)\//, '$1/')}:${lineNumber + 1}`
}
const label = (n: ProfileNode) => `${n.callFrame.functionName || '(anonymous)'} ${where(n.callFrame)}`

const byId = new Map(profile.nodes.map((n) => [n.id, n]))
const parent = new Map<number, number>()
for (const n of profile.nodes) for (const c of n.children ?? []) parent.set(c, n.id)

/** The package (or node: module, or repository folder) a frame belongs to. */
const owner = ({ url, functionName }: CallFrame): string => {
  if (!url) return functionName.startsWith('(') ? functionName : '(native)'
  const pkg = /node_modules\/(?:\.pnpm\/[^/]+\/node_modules\/)?((?:@[^/]+\/)?[^/]+)\//.exec(url)
  if (pkg?.[1]) return pkg[1]
  if (url.startsWith('node:')) return `node:${url.slice(5).split('/').slice(0, 2).join('/')}`
  const repo = /\/(packages\/[^/]+|apps\/[^/]+|bench)\//.exec(url)
  return repo?.[1] ?? url
}

const self = new Map<string, number>()
const byOwner = new Map<string, number>()
const total = new Map<string, number>()
let all = 0
profile.samples.forEach((id, i) => {
  const dt = profile.timeDeltas[i] ?? 0
  all += dt
  const node = byId.get(id)
  if (!node) return
  self.set(label(node), (self.get(label(node)) ?? 0) + dt)
  byOwner.set(owner(node.callFrame), (byOwner.get(owner(node.callFrame)) ?? 0) + dt)
  const seen = new Set<string>()
  for (let cur: number | undefined = id; cur !== undefined; cur = parent.get(cur)) {
    const n = byId.get(cur)
    if (!n) break
    const l = label(n)
    if (seen.has(l)) continue
    seen.add(l)
    total.set(l, (total.get(l) ?? 0) + dt)
  }
})

const print = (title: string, m: Map<string, number>) => {
  process.stdout.write(`\n${title}\n`)
  for (const [l, t] of [...m].sort((a, b) => b[1] - a[1]).slice(0, top))
    process.stdout.write(`${((100 * t) / all).toFixed(1).padStart(5)}%  ${l}\n`)
}
process.stdout.write(`${file}: ${(all / 1e6).toFixed(1)} s sampled\n`)
print('self time by package', byOwner)
print('self time', self)
print('total time', total)
